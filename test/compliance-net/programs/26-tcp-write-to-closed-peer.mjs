// Writing to a peer that closed its socket: the first write is accepted (the bytes leave), the
// peer's kernel answers with a reset, and the next write fails with EPIPE (the connection had
// already seen the peer's FIN). The client is half-open, so 'end' alone does not close it.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21260;
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(':')[0]].push(format(line, ...args));

const server = net.createServer((socket) => {
  socket.on('close', (hadError) => {
    log('server: close', hadError);
    server.close();
  });
  socket.destroy();
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect({ port: PORT, host: '127.0.0.1', allowHalfOpen: true });
  client.on('end', () => {
    log('client: end');
    client.write('first', (err) => log('client: first write callback', err?.code));
    setTimeout(() => {
      client.write('second', (err) => log('client: second write callback', err?.code, err?.syscall, err?.message));
    }, 100);
  });
  client.on('error', (err) => log('client: error', err.code, err.syscall, err.message));
  client.on('close', (hadError) => log('client: close', hadError));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
