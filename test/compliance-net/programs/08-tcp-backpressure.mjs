// Backpressure: the client writes 4 MiB while the server is paused. write() returns false at
// some point (how soon depends on kernel buffers, so only the fact is printed), 'drain'
// arrives only after the server resumes, and every byte arrives in order.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21080;
const TOTAL = 4 * 1024 * 1024;
const CHUNK = 64 * 1024;
// Each side keeps its own log (the two sides run concurrently: which one reaches a step first
// depends on the kernel and libuv); the server's log is printed first, then the client's.
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.startsWith('server') ? 'server' : 'client'].push(format(line, ...args));

const server = net.createServer((socket) => {
  socket.pause();
  log('server: paused', socket.isPaused());
  let received = 0;
  let sum = 0;
  let resumed = false;
  socket.on('data', (data) => {
    if (!resumed) log('server: data while paused (unexpected)');
    received += data.length;
    for (let i = 0; i < data.length; i += 4096) sum = (sum + data[i]) % 65521;
  });
  socket.on('end', () => {
    log('server: end', received, received === TOTAL);
    socket.end();
  });
  socket.on('close', () => server.close());
  // Resume once the client told us (via its own state) that it is blocked.
  server.resumeNow = () => {
    resumed = true;
    log('server: resume');
    socket.resume();
  };
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => {
    let written = 0;
    let sawFalse = false;
    let drained = false;
    while (written < TOTAL) {
      const chunk = Buffer.alloc(CHUNK, (written / CHUNK) % 251);
      written += CHUNK;
      if (!client.write(chunk)) sawFalse = true;
    }
    log('client: all written', written === TOTAL, 'some write returned false', sawFalse);
    log('client: writableNeedDrain', client.writableNeedDrain, 'writableLength > 0', client.writableLength > 0);
    client.once('drain', () => {
      drained = true;
      log('client: drain', client.writableLength);
      client.end();
    });
    setTimeout(() => {
      log('client: drained before resume', drained);
      server.resumeNow();
    }, 200);
  });
  client.on('finish', () => log('client: finish'));
  client.on('close', (hadError) => log('client: close', hadError, client.bytesWritten === TOTAL));
  client.resume();
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
