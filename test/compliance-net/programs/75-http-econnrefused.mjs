// A request to a port nobody listens on fails with ECONNREFUSED: the error's code, errno,
// syscall, address and port, and the request's 'close'. Same with a port whose server was
// closed, and with 'localhost' (which may try ::1 first: only the final error is printed).
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21750;
const log = (...args) => console.log(format(...args));

function get(host, port) {
  return new Promise((resolve) => {
    const req = http.get({ host, port, path: '/', agent: false }, () => log('response (unexpected)'));
    req.on('error', (err) => {
      log(host, 'error', err.name, err.code, err.errno, err.syscall, err.address, err.port === port, err.message === `connect ECONNREFUSED ${err.address}:${port}`);
    });
    req.on('close', () => {
      log(host, 'close', req.destroyed, 'socket', req.socket?.destroyed);
      resolve();
    });
  });
}
await get('127.0.0.1', PORT);
const server = http.createServer();
await new Promise((resolve) => server.listen(PORT + 1, '127.0.0.1', resolve));
await new Promise((resolve) => server.close(resolve));
await get('127.0.0.1', PORT + 1);
await new Promise((resolve) => {
  const req = http.get({ host: 'localhost', port: PORT + 2, path: '/', agent: false }, () => log('response (unexpected)'));
  req.on('error', (err) => log('localhost error', err.name, err.code, (err.errors ?? []).map((e) => [e.code, e.address])));
  req.on('close', resolve);
});
process.on('exit', (code) => log('exit', code));
