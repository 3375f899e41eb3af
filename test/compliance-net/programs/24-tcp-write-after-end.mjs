// Writing after end(): ERR_STREAM_WRITE_AFTER_END, to the write callback on a later tick and
// as an 'error' event that destroys the socket. Writing after the peer ended (without
// allowHalfOpen): EPIPE "This socket has been ended by the other party".
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21240;
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(':')[0]].push(format(line, ...args));

const server = net.createServer((socket) => {
  socket.on('data', () => {});
  socket.on('end', () => {
    log('server: end; writable', socket.writable, socket.writableEnded);
    const ret = socket.write('too late', (err) => log('server: write callback', err?.code, err?.message));
    log('server: write after peer end returned', ret);
  });
  socket.on('error', (err) => log('server: error', err.code, err.message, Object.keys(err)));
  socket.on('close', (hadError) => {
    log('server: close', hadError);
    server.close();
  });
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => {
    client.end('done');
    let sync = true;
    const ret = client.write('more', (err) => log('client: write callback', err?.code, err?.message, 'sync', sync));
    sync = false;
    log('client: write after end returned', ret);
  });
  client.on('error', (err) => log('client: error', err.name, err.code, err.message));
  client.on('close', (hadError) => log('client: close', hadError));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
