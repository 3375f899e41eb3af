// unref() on a socket not bound yet goes to its native handle; the bound socket must stay
// unref'd (before the fix, the simulated socket forgot it and the run never ended).
import dgram from 'node:dgram';

const log = (...args) => console.log(...args);
const socket = dgram.createSocket('udp4');
socket.unref();
socket.bind(0, '127.0.0.1', () => {
  log('bound');
  setTimeout(() => log('timer: the process ends after this, the socket still open'), 20);
});
socket.on('message', () => log('never: nothing is sent'));
process.on('exit', (code) => log('exit', code));
