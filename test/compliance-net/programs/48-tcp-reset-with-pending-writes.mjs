// The peer resets the connection while a large write of ours waits for it to read: our read
// side reports ECONNRESET (the socket is destroyed with that error) and the queued write is
// cancelled with the handle (its callback: no error on Node 20 and 22, ECANCELED on 24).
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21480;
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(':')[0]].push(format(line, ...args));

const server = net.createServer({ pauseOnConnect: true }, (socket) => {
  server.close();
  setTimeout(() => {
    log('server: reset');
    socket.resetAndDestroy();
  }, 100);
  socket.on('close', (hadError) => log('server: close', hadError));
});
server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => {
    const big = Buffer.alloc(16 * 1024 * 1024, 2);
    log('client: big write returns', client.write(big, (err) => log('client: big write callback', err?.code)));
  });
  client.on('error', (err) => log('client: error', err.code, err.syscall, err.message));
  client.on('close', (hadError) => log('client: close', hadError, client.destroyed));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
