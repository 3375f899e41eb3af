// destroy() right after connect(): no 'connect', 'close' without error, a pending write's
// callback gets an error; destroy(err) while connecting emits that error. Only the client
// side is printed (whether the server saw a connection depends on timing).
import net from 'node:net';

const PORT = 21270;
const log = (...args) => console.log(...args);

const server = net.createServer((socket) => socket.on('error', () => {}));
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

await new Promise((resolve) => {
  const client = net.connect(PORT, '127.0.0.1');
  client.on('connect', () => log('a: connect (unexpected)'));
  client.write('queued', (err) => log('a: write callback', err?.code, err?.message));
  client.destroy();
  log('a: after destroy', client.destroyed, client.connecting, client.pending, client.readyState);
  client.on('error', (err) => log('a: error', err.code, err.message));
  client.on('close', (hadError) => {
    log('a: close', hadError);
    resolve();
  });
});

await new Promise((resolve) => {
  const client = net.connect(PORT, 'localhost');
  client.on('lookup', () => log('b: lookup (unexpected: destroyed before the lookup answered)'));
  client.destroy(new Error('changed my mind'));
  client.on('error', (err) => log('b: error', err.message));
  client.on('close', (hadError) => {
    log('b: close', hadError);
    resolve();
  });
});

await new Promise((resolve) => {
  const client = net.connect(PORT, '127.0.0.1');
  client.end('x');
  client.on('connect', () => log('c: connect'));
  client.on('end', () => log('c: end (unexpected)'));
  // end() before the connection exists: _final waits for 'connect', then 'finish' follows.
  client.on('finish', () => {
    log('c: finish');
    client.destroy();
    log('c: destroyed');
  });
  client.on('close', (hadError) => {
    log('c: close', hadError);
    resolve();
  });
});
server.close(() => log('server closed'));
process.on('exit', (code) => log('exit', code));
