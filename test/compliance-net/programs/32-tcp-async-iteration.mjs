// Promise-style use: events.once(socket, 'connect'), for await over a socket's chunks, and
// a server's connection handled by an async function. A for-await loop that runs to the end
// destroys the socket, so a reply written after it is never sent.
import net from 'node:net';
import { once } from 'node:events';

const PORT = 21320;
const log = (...args) => console.log(...args);

const server = net.createServer(async (socket) => {
  let text = '';
  for await (const chunk of socket) text += chunk;
  log('server: iterated to the end', JSON.stringify(text), socket.readableEnded, 'destroyed by the loop', socket.destroyed);
  socket.end(`got ${text.length} chars`); // too late: nothing is sent
});
server.listen(PORT, '127.0.0.1');
await once(server, 'listening');
log('listening');

const client = net.connect(PORT, '127.0.0.1');
const [] = await once(client, 'connect');
log('connected');
client.write('one ');
client.write('two ');
client.end('three');
let reply = '';
client.setEncoding('utf8');
for await (const chunk of client) reply += chunk;
log('client: reply', reply, client.destroyed);
server.close();
await once(server, 'close');
log('server closed');
process.on('exit', (code) => log('exit', code));
