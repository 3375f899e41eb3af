// allowHalfOpen on the server: the client ends its side first; the server sees 'end', keeps
// writing to the client for a while, then ends. Order of 'end', 'finish' and 'close' on both.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21040;
// Each side keeps its own log: the two sides run concurrently, and which of them reaches a
// step first depends on the kernel. Within one side the order is Node's.
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(':')[0]].push(format(line, ...args));

const server = net.createServer({ allowHalfOpen: true }, (socket) => {
  log('server: connection', socket.allowHalfOpen);
  socket.setEncoding('utf8');
  socket.on('data', (data) => log('server: data', data));
  socket.on('end', () => {
    log('server: end', socket.readyState, socket.writable);
    socket.write('after-end-1', () => log('server: write callback 1'));
    setTimeout(() => {
      socket.write('after-end-2', () => log('server: write callback 2'));
      socket.end('bye', () => log('server: end callback'));
      log('server: after end()', socket.readyState);
    }, 20);
  });
  socket.on('finish', () => log('server: finish'));
  socket.on('close', (hadError) => {
    log('server: close', hadError, socket.bytesRead, socket.bytesWritten);
    server.close();
  });
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect({ port: PORT, host: '127.0.0.1' }, () => {
    client.end('request');
    log('client: after end()', client.readyState);
  });
  client.setEncoding('utf8');
  let received = '';
  client.on('data', (data) => {
    received += data;
  });
  client.on('finish', () => log('client: finish', client.readyState));
  client.on('end', () => log('client: end', JSON.stringify(received)));
  client.on('close', (hadError) => log('client: close', hadError, client.bytesRead, client.bytesWritten));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
