// destroy() while a large write is still waiting for the peer to read: the queued write is
// cancelled when the handle closes. Node 20 and 22 call its callback without an error (the
// stream is already destroyed); Node 24 reports ECANCELED. A write still buffered in the stream
// gets ERR_STREAM_DESTROYED (20, 22) or the same ECANCELED (24).
import net from 'node:net';

const PORT = 21460;
const log = (...args) => console.log(...args);

const server = net.createServer({ pauseOnConnect: true }, (socket) => {
  // Stop listening at once: the accepted socket, which never reads, does not keep the
  // process alive, so it exits once the client is gone.
  socket.on('error', () => {});
  server.close();
});
server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => {
    const big = Buffer.alloc(16 * 1024 * 1024, 1);
    log('big write returns', client.write(big, (err) => log('big write callback', err?.code, err?.message)));
    log('small write returns', client.write('x', (err) => log('small write callback', err?.code, err?.message)));
    setTimeout(() => {
      log('destroy; the big write is still queued', client.writableLength > 0);
      client.destroy();
    }, 50);
  });
  client.on('error', (err) => log('client: error', err.code));
  client.on('close', (hadError) => log('client: close', hadError));
});
process.on('exit', (code) => log('exit', code));
