// Closing a socket while received data is still unread in the kernel (the server never read:
// pauseOnConnect) sends a reset, not a FIN: the peer's next read fails with ECONNRESET.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21250;
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(':')[0]].push(format(line, ...args));

const server = net.createServer({ pauseOnConnect: true }, (socket) => {
  log('server: connection, paused', socket.isPaused());
  setTimeout(() => {
    log('server: destroy with unread data');
    socket.destroy();
  }, 100);
  socket.on('close', (hadError) => {
    log('server: close', hadError);
    server.close();
  });
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => client.write('unread bytes'));
  client.on('end', () => log('client: end (unexpected)'));
  client.on('error', (err) => log('client: error', err.code, err.syscall, err.message));
  client.on('close', (hadError) => log('client: close', hadError));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
