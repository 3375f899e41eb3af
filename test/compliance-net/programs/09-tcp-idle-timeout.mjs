// socket.setTimeout(): 'timeout' after the socket is idle that long (it does not close the
// socket), the callback form, socket.timeout, and that activity pushes the timeout back.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21090;
// Each side keeps its own log (the two sides run concurrently).
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(':')[0]].push(format(line, ...args));

const server = net.createServer((socket) => {
  const start = Date.now();
  let writes = 0;
  log('server: timeout before', socket.timeout);
  const ret = socket.setTimeout(400, () => log('server: timeout callback'));
  log('server: setTimeout returns this', ret === socket, socket.timeout);
  socket.on('timeout', () => {
    const elapsed = Date.now() - start;
    // The client wrote 3 times, 50 ms apart (well within the 400 ms, even on a loaded machine):
    // each read postponed the timeout, so it fires 400 ms after the last one.
    log('server: timeout event', 'after client activity', writes, 'elapsed >= 500', elapsed >= 500, 'destroyed', socket.destroyed);
    socket.destroy();
  });
  socket.on('data', () => {
    writes++;
  });
  socket.on('close', (hadError) => {
    log('server: close', hadError);
    server.close();
  });
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1');
  let sent = 0;
  const timer = setInterval(() => {
    client.write('x');
    if (++sent === 3) clearInterval(timer);
  }, 50);
  client.on('end', () => log('client: end'));
  client.on('close', (hadError) => log('client: close', hadError));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
