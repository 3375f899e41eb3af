// A loop polling with setImmediate for a reply that comes over TCP (`while (!reply) await new
// Promise(setImmediate)`): in Node every turn of the loop takes real time and the reply arrives.
// The simulator gave immediates no virtual time, so the reply, due later, never came and the
// run went on to the event limit; past IMMEDIATES_FROZEN immediates in a row each takes 1 µs of
// its host's time (runtime/world.ts). Twice, so the second poll starts after a long chain ended.
import net from 'node:net';

const server = net.createServer((socket) => socket.on('data', (data) => socket.end(`pong ${data}`)));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
for (const name of ['one', 'two']) {
  let reply;
  const client = net.connect(server.address().port, '127.0.0.1', () => client.write(name));
  client.on('data', (data) => {
    reply = String(data);
  });
  let turns = 0;
  while (reply === undefined) {
    turns++;
    await new Promise((resolve) => setImmediate(resolve));
  }
  console.log('reply:', reply, turns > 0 ? '(after polling)' : '(at once)');
  await new Promise((resolve) => client.on('close', resolve));
}
server.close(() => console.log('closed'));
