// Errors of dgram that real Node raises on 127.0.0.1, printed with the port numbers masked.
import dgram from 'node:dgram';
import { once } from 'node:events';

const log = (...args) => console.log(...args);
const fields = (err, port) => [err.constructor.name, err.code, err.errno, err.syscall, err.address, port !== undefined && err.port === port ? 'PORT' : err.port,
  String(err.message).replace(`:${port}`, ':PORT')].join(' | ');

const first = dgram.createSocket('udp4');
await new Promise((resolve) => first.bind(0, '127.0.0.1', resolve));
const port = first.address().port;

// A port in use: 'error' event from bind, and the socket can bind elsewhere afterwards.
const second = dgram.createSocket('udp4');
second.bind(port, '127.0.0.1');
const [inUse] = await once(second, 'error');
log('EADDRINUSE:', fields(inUse, port));
await new Promise((resolve) => second.bind(0, '127.0.0.1', resolve));
log('rebound elsewhere:', second.address().port !== port);
try {
  second.bind(0);
} catch (err) {
  log('bind twice:', err.code, err.message);
}

// Too big for one IPv4 datagram: only the callback hears of it.
second.on('error', (err) => log('unexpected error event', err.message));
const big = await new Promise((resolve) => second.send(Buffer.alloc(65_508), port, '127.0.0.1', (err, bytes) => resolve([err, bytes])));
log('EMSGSIZE:', fields(big[0], port), big[1]);
second.send(Buffer.alloc(65_508), port, '127.0.0.1');
const max = await new Promise((resolve) => second.send(Buffer.alloc(65_507), port, '127.0.0.1', (err, bytes) => resolve([err, bytes])));
log('65507 bytes:', max[0], max[1]);
const [maxMsg, maxInfo] = await once(first, 'message');
log('received:', maxMsg.length, maxInfo.size);

// Wrong family, broadcast without SO_BROADCAST.
const v6 = await new Promise((resolve) => second.send('x', 9, '::1', (err) => resolve(err)));
log('udp4 to ::1:', fields(v6, 9));
const bcast = await new Promise((resolve) => second.send('x', 9, '255.255.255.255', (err) => resolve(err)));
log('broadcast:', fields(bcast, 9));

// Socket options.
for (const [name, value] of [['setTTL', 0], ['setTTL', 64], ['setTTL', 256], ['setMulticastTTL', 0], ['setMulticastTTL', 256], ['setMulticastLoopback', true]]) {
  try {
    log(`${name}(${value}):`, second[name](value));
  } catch (err) {
    log(`${name}(${value}):`, fields(err));
  }
}
for (const [name, ...args] of [['addMembership', '10.0.0.1'], ['dropMembership', '239.1.2.3'], ['setMulticastInterface', '10.9.9.9'], ['setMulticastInterface', 'nope']]) {
  try {
    second[name](...args);
    log(`${name}(${args}): ok`);
  } catch (err) {
    log(`${name}(${args}):`, fields(err));
  }
}
try {
  second.send('x', 0, 'localhost');
} catch (err) {
  log('port 0:', err.code, err.message);
}

// Unbound and closed sockets.
const idle = dgram.createSocket('udp4');
for (const call of [() => idle.address(), () => idle.remoteAddress(), () => idle.setBroadcast(true), () => idle.disconnect()]) {
  try {
    call();
  } catch (err) {
    log('unbound:', fields(err));
  }
}
idle.close();
for (const call of [() => idle.close(), () => idle.send('x', 9, '127.0.0.1'), () => idle.address()]) {
  try {
    call();
  } catch (err) {
    log('closed:', err.code, err.message);
  }
}
first.close();
second.close(() => log('closed both'));
process.on('exit', (code) => log('exit', code));
