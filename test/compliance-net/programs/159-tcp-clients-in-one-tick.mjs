// Clients that connect to a loopback TCP server in one tick (149 for unix sockets): libuv
// (1.45+, PR #3696) accepts one connection per poll of the listening socket, so the first poll
// reports the first 'connection', then every client's 'connect'; the other connections are
// accepted one per later poll, after that turn's immediates. An accepted socket's reads start at
// the poll after its 'connection' (its descriptor joins epoll there). Node 20, 22 and 24 alike,
// stable plainly and under CPU load.
import net from 'node:net';

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
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise((resolve) => {
    setTimeout(() => {
      let closed = 0;
      for (let i = 1; i <= clients; i++) {
        const client = net.connect(server.address().port, '127.0.0.1', () => log.push(`connect${i}`));
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
