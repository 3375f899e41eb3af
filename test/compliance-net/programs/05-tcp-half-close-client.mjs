// allowHalfOpen on the client: the server ends first; the client sees 'end', then keeps
// writing, and the server (not half-open, but it already ended) still reads it all.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21050;
// Each side keeps its own log: the two sides run concurrently, and which of them reaches a
// step first depends on the kernel. Within one side the order is Node's.
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(':')[0]].push(format(line, ...args));

const server = net.createServer((socket) => {
  socket.setEncoding('utf8');
  let received = '';
  socket.end('greeting', () => log('server: end callback'));
  socket.on('data', (data) => {
    received += data;
  });
  socket.on('finish', () => log('server: finish'));
  socket.on('end', () => log('server: end', JSON.stringify(received)));
  socket.on('close', (hadError) => {
    log('server: close', hadError);
    server.close();
  });
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect({ port: PORT, host: '127.0.0.1', allowHalfOpen: true });
  client.setEncoding('utf8');
  client.on('data', (data) => log('client: data', data));
  client.on('end', () => {
    log('client: end', client.readyState, client.writable, client.allowHalfOpen);
    client.write('one,');
    setTimeout(() => {
      client.write('two,');
      client.end('three', () => log('client: end callback'));
    }, 20);
  });
  client.on('finish', () => log('client: finish'));
  client.on('close', (hadError) => log('client: close', hadError, client.bytesRead, client.bytesWritten));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
