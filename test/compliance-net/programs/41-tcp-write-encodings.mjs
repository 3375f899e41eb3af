// Writes in every encoding reach the peer as the right bytes: utf8, latin1, ascii, ucs2,
// base64, hex, a Buffer, a Uint8Array, and corked mixed writes (one writev).
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21410;
// Each side keeps its own log (the two sides run concurrently: which one reaches a step first
// depends on the kernel and libuv); the server's log is printed first, then the client's.
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.startsWith('server') ? 'server' : 'client'].push(format(line, ...args));

const server = net.createServer((socket) => {
  const chunks = [];
  socket.on('data', (data) => chunks.push(data));
  socket.on('end', () => {
    log('server: bytes', Buffer.concat(chunks).toString('hex'));
    socket.end();
    server.close(() => log('server closed'));
  });
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => {
    client.write('é', 'utf8');
    client.write('é', 'latin1');
    client.write('A', 'ascii');
    client.write('é', 'ucs2');
    client.write('3q2+7w==', 'base64');
    client.write('0102', 'hex');
    client.write(Buffer.from([0xff]));
    client.write(new Uint8Array([0xfe]));
    client.cork();
    client.write('x');
    client.write(Buffer.from([0x00]));
    client.write('ÿ', 'latin1');
    client.uncork();
    client.end();
  });
  client.on('close', () => log('client: close', client.bytesWritten));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
