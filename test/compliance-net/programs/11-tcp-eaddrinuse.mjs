// A second listen on a port in use: an 'error' event (not a throw) with EADDRINUSE, Node's
// message and fields; the port is free again once the first server closes.
import net from 'node:net';

const PORT = 21110;
const log = (...args) => console.log(...args);

function describe(err) {
  return { message: err.message, code: err.code, errno: err.errno, syscall: err.syscall, address: err.address, port: err.port };
}

const first = net.createServer();
await new Promise((resolve) => first.listen(PORT, '127.0.0.1', resolve));
log('first listening', first.listening);

for (const host of ['127.0.0.1', '0.0.0.0', undefined]) {
  const second = net.createServer();
  second.on('listening', () => log('second listening (unexpected)', host));
  await new Promise((resolve) => {
    second.once('error', (err) => {
      log('second error', host, describe(err), 'listening', second.listening);
      resolve();
    });
    const ret = host === undefined ? second.listen(PORT) : second.listen(PORT, host);
    log('listen returned the server', ret === second, 'listening', second.listening);
  });
}

// A different loopback address on the same port is a different socket address.
const other = net.createServer();
await new Promise((resolve) => {
  other.once('error', (err) => {
    log('127.0.0.2 error', err.code);
    resolve();
  });
  other.listen(PORT, '127.0.0.2', () => {
    log('127.0.0.2 listening', other.address());
    other.close(resolve);
  });
});

await new Promise((resolve) => first.close(resolve));
const third = net.createServer();
third.listen(PORT, '127.0.0.1', () => {
  log('third listening after first closed', third.address().port === PORT);
  third.close(() => log('third closed'));
});
process.on('exit', (code) => log('exit', code));
