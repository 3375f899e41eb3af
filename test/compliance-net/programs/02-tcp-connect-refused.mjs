// Connecting to a port nobody listens on: ECONNREFUSED with Node's exact error shape, then
// 'close' with hadError. Both an IP literal and a name ('localhost', which emits 'lookup').
import net from 'node:net';

const PORT = 21020;
const log = (...args) => console.log(...args);

function describe(err) {
  return {
    name: err.name,
    message: err.message,
    code: err.code,
    errno: err.errno,
    syscall: err.syscall,
    address: err.address,
    port: err.port,
    isError: err instanceof Error,
    keys: Object.keys(err).sort(),
  };
}

function attempt(label, ...args) {
  return new Promise((resolve) => {
    const socket = net.connect(...args);
    socket.on('lookup', (err, address, family, host) => log(label, 'lookup', err, address, family, host));
    socket.on('connect', () => log(label, 'connect (unexpected)'));
    socket.on('error', (err) => {
      log(label, 'error', describe(err));
      log(label, 'state at error', socket.destroyed, socket.connecting, socket.readyState);
    });
    socket.on('close', (hadError) => {
      log(label, 'close', hadError, socket.destroyed, socket.bytesRead, socket.bytesWritten);
      resolve();
    });
  });
}

await attempt('ip', PORT, '127.0.0.1');
await attempt('name', { port: PORT, host: 'localhost' });
await attempt('callback', PORT, '127.0.0.1', () => log('callback: connect listener (unexpected)'));
process.on('exit', (code) => log('exit', code));
