// dgram socket buffer sizes: the JS validation (ERR_SOCKET_BAD_BUFFER_SIZE for anything but a
// uint32), the binding's EINVAL for a uint32 above 2^31-1 (checked before the socket's state,
// so on an unbound socket too), EBADF on an unbound socket, and a size too large given at
// createSocket failing when bind applies it. Sizes read back depend on the kernel: only
// comparisons are printed.
import dgram from 'node:dgram';
import os from 'node:os';

const log = (...args) => console.log(...args);
const describe = (e) => {
  const errno = e.errno === undefined ? 'none' : e.errno === -os.constants.errno[e.info?.code] ? '-' + e.info.code : e.errno;
  return `${e.name} ${e.code} ${e.message} errno=${errno} syscall=${e.syscall} info=${JSON.stringify(e.info)}`;
};
const attempt = (label, fn) => {
  try {
    const value = fn();
    log(`${label}: returned ${typeof value === 'number' ? 'a number' : value}`);
  } catch (e) {
    log(`${label}: threw ${describe(e)}`);
  }
};
const INT32_MAX = 2 ** 31 - 1;

const unbound = dgram.createSocket('udp4');
attempt('unbound setRecvBufferSize(2^31)', () => unbound.setRecvBufferSize(INT32_MAX + 1));
attempt('unbound setSendBufferSize(2^32-1)', () => unbound.setSendBufferSize(2 ** 32 - 1));
attempt('unbound setRecvBufferSize(4096)', () => unbound.setRecvBufferSize(4096));
attempt('unbound getSendBufferSize()', () => unbound.getSendBufferSize());
attempt('unbound setRecvBufferSize(-1)', () => unbound.setRecvBufferSize(-1));
unbound.close();

const socket = dgram.createSocket('udp4');
await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve));
for (const [set, get] of [['setRecvBufferSize', 'getRecvBufferSize'], ['setSendBufferSize', 'getSendBufferSize']]) {
  const before = socket[get]();
  attempt(`${set}(2^31)`, () => socket[set](INT32_MAX + 1));
  attempt(`${set}(2^32-1)`, () => socket[set](2 ** 32 - 1));
  log(`${get} unchanged by the failures:`, socket[get]() === before);
  attempt(`${set}(2^32)`, () => socket[set](2 ** 32));
  attempt(`${set}(1.5)`, () => socket[set](1.5));
  attempt(`${set}('4096')`, () => socket[set]('4096'));
  attempt(`${set}(0)`, () => socket[set](0));
  log(`${get} unchanged by ${set}(0):`, socket[get]() === before);
  attempt(`${set}(8192)`, () => socket[set](8192));
  log(`${get} after ${set}(8192) >= 8192:`, socket[get]() >= 8192);
  attempt(`${set}(2^31-1)`, () => socket[set](INT32_MAX));
  attempt(`${get}()`, () => socket[get]());
}
socket.close();
attempt('closed setRecvBufferSize(2^31)', () => socket.setRecvBufferSize(INT32_MAX + 1));

// A size given at createSocket is validated as a uint32 there and applied when bind completes:
// above 2^31-1 the bind callback's 'listening' never comes and the error is thrown from bind.
attempt('createSocket({recvBufferSize: 2^32})', () => dgram.createSocket({ type: 'udp4', recvBufferSize: 2 ** 32 }));
const late = dgram.createSocket({ type: 'udp4', sendBufferSize: INT32_MAX + 1 });
late.on('listening', () => log('late: listening'));
await new Promise((resolve) => {
  process.once('uncaughtException', (e) => {
    log('late: uncaught', describe(e));
    resolve();
  });
  late.bind(0, '127.0.0.1');
});
late.close();

process.on('exit', (code) => log('exit', code));
