// One net.Socket object connects, closes, and connects again: the second connection is a new
// one (new local port), the counters start over, and the events fire again.
import net from 'node:net';

const PORT = 21340;
const log = (...args) => console.log(...args);

let n = 0;
const server = net.createServer((socket) => {
  n++;
  socket.end(`hello ${n}`);
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const socket = new net.Socket();
socket.setEncoding('utf8');
socket.on('connect', () => log('connect', socket.readyState));
socket.on('data', (data) => log('data', data));
socket.on('end', () => log('end'));
const ports = [];
for (const round of [1, 2]) {
  await new Promise((resolve) => {
    socket.connect(PORT, '127.0.0.1', () => ports.push(socket.localPort));
    socket.once('close', (hadError) => {
      log('close', round, hadError, socket.destroyed, socket.bytesRead);
      resolve();
    });
  });
}
log('different local ports', ports[0] !== ports[1]);
server.close(() => log('server closed'));
process.on('exit', (code) => log('exit', code));
