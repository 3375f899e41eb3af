// Backpressure from server to client: the server writes 8 MiB to a client that does not
// read for a while. write() returns false, bufferSize grows, 'drain' comes only after the
// client starts reading, and the client receives every byte.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21390;
const TOTAL = 8 * 1024 * 1024;
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(':')[0]].push(format(line, ...args));
let clientReading = false;

const server = net.createServer((socket) => {
  let sent = 0;
  let sawFalse = false;
  const block = Buffer.alloc(256 * 1024, 7);
  while (sent < TOTAL) {
    sent += block.length;
    if (!socket.write(block)) sawFalse = true;
  }
  log('server: write returned false', sawFalse, 'bufferSize > 0', socket.bufferSize > 0, 'writableNeedDrain', socket.writableNeedDrain);
  socket.once('drain', () => {
    log('server: drain; client was reading', clientReading, 'writableLength', socket.writableLength);
    socket.end();
  });
  socket.on('close', () => server.close());
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1');
  client.pause();
  let received = 0;
  client.on('data', (data) => {
    received += data.length;
  });
  client.on('connect', () => {
    setTimeout(() => {
      log('client: buffered something while paused', client.readableLength > 0);
      clientReading = true;
      client.resume();
    }, 200);
  });
  client.on('end', () => log('client: end', received === TOTAL, client.bytesRead === TOTAL));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
