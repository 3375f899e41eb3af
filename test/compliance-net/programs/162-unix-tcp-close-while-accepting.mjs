// server.close() in the first 'connection' while three more clients of the same tick wait to be
// accepted, over TCP and a unix socket: close(2) of the listening socket resets the connections
// in its accept queue, so each waiting client's connect fails with ECONNRESET (libuv reads
// SO_ERROR when it reports the connect). The simulator refused them (ECONNREFUSED) and, on a
// unix socket, accepted a random one first; connections now queue in connect order inside
// connect(2) (TcpStack.connectLocal). Found by review 2026-12-03. Node 20, 22 and 24 alike,
// stable under CPU load.
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'p06-'));
async function trial(kind) {
  const logs = {};
  const L = (k, m) => (logs[k] ??= []).push(m);
  let n = 0;
  const server = net.createServer((s) => {
    const id = ++n;
    L('server', `conn${id}`);
    if (id === 1) server.close(() => L('server', 'closed'));
    s.on('data', (d) => L('server', `data${id} ${d}`));
    s.on('error', (e) => L('server', `err${id} ${e.code}`));
    s.end(`hi${id}`);
  });
  const addr = kind === 'unix' ? path.join(dir, `${kind}.sock`) : 0;
  await new Promise((r) => kind === 'unix' ? server.listen(addr, r) : server.listen(0, '127.0.0.1', r));
  await new Promise((resolve) => setTimeout(() => {
    let closed = 0;
    for (let i = 1; i <= 4; i++) {
      const c = kind === 'unix' ? net.connect(addr) : net.connect(server.address().port, '127.0.0.1');
      c.on('connect', () => L(`c${i}`, 'connect'));
      c.write(`w${i}`);
      c.on('data', (d) => L(`c${i}`, `data ${d}`));
      c.on('end', () => L(`c${i}`, 'end'));
      c.on('error', (e) => L(`c${i}`, `error ${e.code} ${e.syscall}`));
      c.on('close', (h) => { L(`c${i}`, `close ${h}`); if (++closed === 4) setTimeout(resolve, 20); });
    }
  }, 1));
  for (const k of Object.keys(logs).sort()) console.log(kind, k, logs[k].join(', '));
}
await trial('tcp');
await trial('unix');
fs.rmSync(dir, { recursive: true });
