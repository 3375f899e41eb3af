// pause() stops 'data' events (the bytes wait), resume() delivers them in order; isPaused()
// and readableFlowing follow along; 'end' waits until the paused data was consumed.
import net from 'node:net';

const PORT = 21200;
const log = (...args) => console.log(...args);

const server = net.createServer((socket) => {
  log('server: flowing at connection', socket.readableFlowing, socket.isPaused());
  socket.setEncoding('utf8');
  let got = '';
  socket.on('data', (data) => {
    got += data;
    if (got === 'one') {
      socket.pause();
      log('server: paused after one', socket.isPaused(), socket.readableFlowing);
      socket.write('go');
      setTimeout(() => {
        log('server: while paused, buffered', socket.readableLength > 0, 'got', JSON.stringify(got));
        socket.resume();
        log('server: resumed', socket.isPaused(), socket.readableFlowing);
      }, 200);
    }
  });
  socket.on('end', () => {
    log('server: end', JSON.stringify(got));
    socket.end();
    server.close();
  });
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => client.write('one'));
  client.on('data', (data) => {
    log('client: data', String(data));
    client.end('two-three');
  });
  client.on('close', () => log('client: close'));
});
process.on('exit', (code) => log('exit', code));
