// ECONNREFUSED on ::1 (the address in the message is the IPv6 one), and a refused connection
// without an 'error' listener: the error is thrown as an uncaught exception (exit code 1),
// which a process 'uncaughtException' handler can catch.
import net from 'node:net';

const PORT = 21420;
const log = (...args) => console.log(...args);

await new Promise((resolve) => {
  const client = net.connect(PORT, '::1');
  client.on('error', (err) => log('v6 error', err.message, err.address, err.port, err.code));
  client.on('close', resolve);
});

process.on('uncaughtException', (err, origin) => {
  log('uncaught', origin, err.code, err.message);
  process.exitCode = 3;
});
net.connect(PORT, '127.0.0.1');
process.on('exit', (code) => log('exit', code));
