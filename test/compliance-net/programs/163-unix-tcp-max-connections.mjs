// server.maxConnections = 2 with four clients that connect and write in one tick, over TCP and a
// unix socket: connections 3 and 4 are accepted one per poll after the first two, by then with
// their client's bytes unread, so Node's close of the dropped handle resets them: the client
// sees 'connect', then read ECONNRESET (the simulator's dropped clients saw a clean 'end': the
// bytes had not arrived at its accept). Found by review 2026-12-03. Node 20, 22 and 24 alike,
// stable under CPU load.
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'p07-'));
async function trial(kind) {
  const logs = {};
  const L = (k, m) => (logs[k] ??= []).push(m);
  let n = 0;
  const server = net.createServer((s) => {
    const id = ++n;
    L('server', `conn${id}`);
    s.on('data', (d) => L('server', `data${id} ${d}`));
    s.end(`hi${id}`);
  });
  server.maxConnections = 2;
  server.on('drop', (d) => L('server', `drop ${JSON.stringify(Object.keys(d ?? {}).sort())} ${typeof d?.remoteAddress}`));
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
  await new Promise((r) => server.close(r));
  for (const k of Object.keys(logs).sort()) console.log(kind, k, logs[k].join(', '));
}
await trial('tcp');
await trial('unix');
fs.rmSync(dir, { recursive: true });
