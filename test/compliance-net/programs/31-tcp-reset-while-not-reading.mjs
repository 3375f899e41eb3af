// A reset reaches a socket whose handle is not reading (pauseOnConnect): nothing happens to
// the socket until it resumes; then the bytes that arrived before the reset are delivered and
// the socket closes: with 'end' on Node 20 and 22 (libuv before 1.52 takes a partial read under
// EPOLLHUP for the end), with ECONNRESET on Node 24 (libuv 1.52 reads again: compliance-net 140).
// (An earlier note put the difference down to the kernel, gVisor against Linux.)
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21310;
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(':')[0]].push(format(line, ...args));

const server = net.createServer({ pauseOnConnect: true }, (socket) => {
  let data = '';
  socket.on('data', (chunk) => {
    data += chunk;
  });
  socket.on('end', () => log('server: end'));
  socket.on('error', (error) => log('server: error %s', error.code));
  socket.on('close', () => {
    log('server: close; data before it', JSON.stringify(data));
    server.close();
  });
  setTimeout(() => {
    log('server: before resume', socket.destroyed, socket.errored, socket.readableEnded);
    socket.resume();
  }, 200);
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => {
    client.write('abc');
    setTimeout(() => client.resetAndDestroy(), 50);
  });
  client.on('close', (hadError) => log('client: close', hadError));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
