// end() twice (the second is a no-op; its callback still runs), destroySoon() (end, then
// destroy after 'finish'), and end() on a socket that never connected.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21370;
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(':')[0]].push(format(line, ...args));

const server = net.createServer((socket) => {
  socket.setEncoding('utf8');
  socket.on('data', (data) => log('server: data', data));
  socket.on('end', () => {
    log('server: end');
    socket.destroySoon();
    log('server: after destroySoon', socket.writableEnded, socket.destroyed);
  });
  socket.on('finish', () => log('server: finish', socket.destroyed));
  socket.on('close', (hadError) => {
    log('server: close', hadError);
    server.close();
  });
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => {
    client.end('one', () => log('client: first end callback'));
    client.end(() => log('client: second end callback'));
    log('client: ended twice', client.writableEnded);
  });
  client.on('error', (err) => log('client: error', err.code));
  client.on('end', () => log('client: end'));
  client.on('finish', () => log('client: finish'));
  client.on('close', (hadError) => log('client: close', hadError));
});

const never = new net.Socket();
never.on('finish', () => log('client: never-connected finish'));
never.on('close', (hadError) => log('client: never-connected close', hadError));
never.on('error', (err) => log('client: never-connected error', err.code));
log('client: never-connected end returns this', never.end() === never);

process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
