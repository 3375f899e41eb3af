// A unix server's backlog is enforced at connect(): N clients connecting in one tick to a server
// listening with backlog B (before it can accept): the first B+1 connect, the others fail at
// once with 'connect EAGAIN <path>' (errno -11, syscall connect) - unlike TCP, where connects
// wait. Default backlog (511) takes 50 at once. This is kernel behaviour (Linux 6.18 here).
// Measured: Node 20, 22, 24 identical, 5 plain + 3 loaded runs each.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const hide = (s) => (typeof s === 'string' ? s.split(dir).join('DIR') : s);
const log = (...args) => console.log(...args.map(hide));
const sockPath = path.join(dir, 's.sock');

async function trial(backlog, clients) {
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted++;
    socket.on('data', () => {});
    socket.on('end', () => socket.end());
  });
  await new Promise((resolve) => server.listen({ path: sockPath, backlog }, resolve));
  const results = [];
  const sync = [];
  await new Promise((resolve) => {
    let closed = 0;
    for (let i = 1; i <= clients; i++) {
      const c = net.connect(sockPath);
      c.on('connect', () => {
        results[i] = 'connect';
        c.end();
      });
      c.on('error', (err) => (results[i] = `${err.code} ${err.errno} ${err.syscall} ${hide(err.message)}`));
      c.on('data', () => {});
      c.on('close', () => {
        if (++closed === clients) resolve();
      });
    }
  });
  await new Promise((resolve) => server.close(resolve));
  const summary = {};
  for (const r of results.slice(1)) summary[r] = (summary[r] || 0) + 1;
  log(`backlog ${backlog}, ${clients} clients in one tick: accepted ${accepted}`, summary, 'first failing client', results.findIndex((r, i) => i > 0 && r !== 'connect'));
}

await trial(1, 5);
await trial(2, 5);
await trial(4, 10);
await trial(511, 50);

fs.rmSync(dir, { recursive: true });
process.on('exit', (code) => log('exit', code));
