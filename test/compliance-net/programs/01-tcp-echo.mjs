// Echo over 127.0.0.1: the order of connection, connect, ready, data, end, finish and close
// on both sides, and the byte counters after close.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21010;
// Each side keeps its own log (the two sides run concurrently: which one reaches a step first
// depends on the kernel and libuv); the server's log is printed first, then the client's.
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.startsWith('server') ? 'server' : 'client'].push(format(line, ...args));

const server = net.createServer((socket) => {
  log('server: connection', socket.remoteAddress, socket.remoteFamily, socket.localPort === PORT);
  socket.on('data', (data) => {
    log('server: data', JSON.stringify(String(data)));
    socket.write(data);
  });
  socket.on('end', () => {
    log('server: end');
    socket.end();
  });
  socket.on('finish', () => log('server: finish'));
  socket.on('close', (hadError) => {
    log('server: close', hadError, socket.bytesRead, socket.bytesWritten);
    server.close(() => log('server: closed'));
  });
});
server.on('listening', () => log('server: listening event'));
server.listen(PORT, '127.0.0.1', () => {
  log('server: listen callback', server.address());
  const client = net.connect(PORT, '127.0.0.1');
  log('client: connecting', client.connecting, client.pending, client.readyState);
  client.on('connect', () => {
    log('client: connect', client.connecting, client.pending, client.readyState);
    log('client: remote', client.remoteAddress, client.remotePort === PORT, client.remoteFamily);
    client.write('hello');
  });
  client.on('ready', () => log('client: ready'));
  client.on('data', (data) => {
    log('client: data', JSON.stringify(String(data)));
    client.end();
    log('client: after end()', client.readyState, client.writableEnded, client.writableFinished);
  });
  client.on('end', () => log('client: end', client.readyState));
  client.on('finish', () => log('client: finish', client.readyState));
  client.on('close', (hadError) => {
    log('client: close', hadError, client.bytesRead, client.bytesWritten, client.destroyed, client.readyState);
  });
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
