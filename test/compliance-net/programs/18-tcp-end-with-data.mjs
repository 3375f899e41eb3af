// end(data) sends the data and then FIN; bytesRead / bytesWritten totals on both sides, also
// after close (Node keeps them when the handle is gone), with multi-byte characters.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21180;
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(':')[0]].push(format(line, ...args));

const server = net.createServer((socket) => {
  const chunks = [];
  socket.on('data', (data) => chunks.push(data));
  socket.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    log('server: end', JSON.stringify(text), socket.bytesRead);
    socket.end('réponse ✓', 'utf8');
    log('server: bytesWritten after end(data)', socket.bytesWritten);
  });
  socket.on('close', () => {
    log('server: close', socket.bytesRead, socket.bytesWritten);
    server.close();
  });
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => {
    client.write('héllo ');
    client.end(Buffer.from('wörld'), () => log('client: end callback', client.bytesWritten));
  });
  const chunks = [];
  client.on('data', (data) => chunks.push(data));
  client.on('end', () => log('client: end', JSON.stringify(Buffer.concat(chunks).toString('utf8')), client.bytesRead));
  client.on('close', () => log('client: close', client.bytesRead, client.bytesWritten));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
