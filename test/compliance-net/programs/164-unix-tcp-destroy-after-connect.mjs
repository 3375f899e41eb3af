// A client destroyed right after net.connect() (in the same tick, a tick later, in 'connect', or
// 2 ms later), over TCP and a unix socket: on one host connect(2) completes the connection in the
// kernel, so the server still accepts it and reads its end. The simulator dropped a SYN whose
// client had closed, and the server never saw the connection. Found by review 2026-12-03.
// Node 20, 22 and 24 alike, stable under CPU load.
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'p19-'));
for (const kind of ['tcp', 'unix']) {
  let log = [];
  const srv = net.createServer((s) => {
    log.push(`conn`);
    s.on('data', (d) => log.push(`data ${d}`));
    s.on('end', () => log.push('end'));
    s.on('error', (e) => log.push(`error ${e.code}`));
    s.on('close', (h) => log.push(`close ${h}`));
  });
  await new Promise((r) => kind === 'unix' ? srv.listen(path.join(dir, 's'), r) : srv.listen(0, '127.0.0.1', r));
  for (const when of ['sync', 'tick', 'connect', 'timer', 'write-sync']) {
    log = [];
    const c = kind === 'unix' ? net.connect(path.join(dir, 's')) : net.connect(srv.address().port, '127.0.0.1');
    c.on('error', (e) => log.push(`client error ${e.code}`));
    c.on('close', () => log.push('client close'));
    if (when === 'sync') c.destroy();
    else if (when === 'write-sync') { c.write('x'); c.destroy(); }
    else if (when === 'tick') process.nextTick(() => c.destroy());
    else if (when === 'connect') c.on('connect', () => c.destroy());
    else setTimeout(() => c.destroy(), 2);
    await new Promise((r) => setTimeout(r, 20));
    const n = await new Promise((r) => srv.getConnections((e, n) => r(n)));
    console.log(kind, when.padEnd(10), log.join(', '), `| connections ${n}`);
  }
  await new Promise((r) => { srv.close(r); });
}
fs.rmSync(dir, { recursive: true });
