// Loopback puts written bytes in the peer socket's receive buffer inside write(). A socket closed
// with unread bytes sends a reset, not a FIN: so a server that destroys its socket in the same
// timers phase as its client's write (the keep-alive race: the server closes an idle connection
// just as the client reuses it) gives the client ECONNRESET. (The simulator delivered loopback
// data 10-100 µs after the write, so the close found nothing unread, sent a FIN, and the client
// got 'end'.) Two cases: write and destroy in one callback, and in two timers of one phase.
import net from 'node:net';

async function attempt(label, act) {
  let serverSocket;
  const server = net.createServer((socket) => {
    serverSocket = socket;
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = net.connect(server.address().port, '127.0.0.1');
  await new Promise((resolve) => client.on('connect', resolve));
  await new Promise((resolve) => setTimeout(resolve, 10));
  const log = [];
  client.on('end', () => log.push('end'));
  client.on('error', (error) => log.push(`error ${error.code}`));
  await new Promise((resolve) => {
    client.on('close', resolve);
    act(client, serverSocket);
  });
  console.log(`${label}: ${log.join(', ')}`);
  server.close();
}

await attempt('one callback', (client, serverSocket) => setTimeout(() => {
  client.write('request');
  serverSocket.destroy();
}, 50));
await attempt('two timers', (client, serverSocket) => {
  setTimeout(() => client.write('request'), 50);
  setTimeout(() => serverSocket.destroy(), 50);
});
