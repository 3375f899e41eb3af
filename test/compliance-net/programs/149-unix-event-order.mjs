// Event order of connects made inside a setTimeout callback (one to three clients in the same
// tick), relative to a nextTick and immediates queued right after. The unix connect() completes
// synchronously in the kernel, but 'connect' (then 'ready') comes in the next poll, right after
// the server's 'connection' for the first client. The server accepts ONE connection per loop
// iteration (strace: one accept4 per poll, no EAGAIN probe), so with N clients all N 'connect's
// come in the first poll and 'connection'2..N come one per later iteration, interleaved with
// immediates. Data written before/at connect reaches the server one iteration after its
// 'connection' (the accepted socket starts reading then).
// Measured: Node 20, 22, 24 identical, 6 plain + 3 loaded runs each.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const sockPath = path.join(dir, 's.sock');

async function trial(name, clients, extra = () => {}) {
  const log = [];
  const sockets = [];
  let n = 0;
  const server = net.createServer((socket) => {
    const id = ++n;
    log.push(`connection${id}`);
    sockets.push(socket);
    socket.on('data', (d) => log.push(`server data${id} ${d}`));
    socket.on('end', () => socket.end());
  });
  await new Promise((resolve) => server.listen(sockPath, resolve));
  await new Promise((resolve) => {
    setTimeout(() => {
      let closed = 0;
      for (let i = 1; i <= clients; i++) {
        const client = net.connect(sockPath, () => log.push(`connect${i}`));
        client.on('ready', () => log.push(`ready${i}`));
        extra(client, i, log);
        client.on('data', () => {});
        client.on('close', () => {
          if (++closed === clients) resolve();
        });
        setTimeout(() => client.end(), 20);
      }
      log.push('sync end');
      process.nextTick(() => log.push('tick'));
      setImmediate(() => log.push('immediate'));
      setImmediate(() => setImmediate(() => log.push('immediate2')));
    }, 1);
  });
  await new Promise((resolve) => server.close(resolve));
  console.log(`${name}: ${log.join(', ')}`);
}

await trial('one client', 1);
await trial('two clients', 2);
await trial('three clients', 3);
await trial('one client writing at once', 1, (client, i) => client.write(`w${i}`));
await trial('two clients writing at once', 2, (client, i) => client.write(`w${i}`));
await trial('write in connect', 1, (client, i, log) =>
  client.on('connect', () => {
    client.write(`c${i}`);
    setImmediate(() => log.push('immediate after connect'));
  }),
);
fs.rmSync(dir, { recursive: true });
