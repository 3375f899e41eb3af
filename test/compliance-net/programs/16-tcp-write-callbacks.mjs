// Write callbacks run in write order, before 'finish'; the end() callback runs after
// 'finish'; writes queued before the connection exists are flushed in order.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21160;
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(':')[0]].push(format(line, ...args));

const server = net.createServer((socket) => {
  socket.setEncoding('utf8');
  let all = '';
  socket.on('data', (data) => {
    all += data;
  });
  socket.on('end', () => {
    log('server: received', JSON.stringify(all));
    socket.end();
    server.close();
  });
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1');
  log('client: write before connect returns', client.write('a', () => log('client: cb a')));
  client.write(Buffer.from('b'), () => log('client: cb b'));
  log('client: bytesWritten while connecting', client.bytesWritten, client.writableLength);
  client.on('connect', () => {
    log('client: connect');
    client.write('c', 'utf8', () => log('client: cb c'));
    client.cork();
    client.write('d', () => log('client: cb d'));
    client.write('e', () => log('client: cb e'));
    process.nextTick(() => client.uncork());
    client.end('f', () => log('client: end callback'));
    log('client: after end()', client.writableEnded, client.writableFinished);
  });
  client.on('finish', () => log('client: finish', client.bytesWritten));
  client.on('close', () => log('client: close', client.bytesWritten, client.bytesRead));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
