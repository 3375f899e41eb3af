// A message Node dispatches in the loop's next poll phase: this turn's when posted from the main
// script or a timer (before the immediates of this turn's check phase), the next turn's when
// posted from an I/O callback, a promise job of one, or an immediate (after the immediates still
// to run in this check phase, before those it queued). Each message is a callback of its own (its
// ticks before the next message), a BroadcastChannel's too, and runs in the async context the
// port was made in. (Close events are left out: Node runs them in its closing phase, outside the
// simulation.)
import { AsyncLocalStorage } from 'node:async_hooks';
import net from 'node:net';
import { BroadcastChannel } from 'node:worker_threads';

const log = (...a) => console.log(...a);
const als = new AsyncLocalStorage();
const LAST = 'from a promise job of the read';
const { port1, port2 } = als.run('where the channel was made', () => new MessageChannel());
port2.onmessage = ({ data }) => {
  log('msg', data, '| store:', als.getStore());
  process.nextTick(() => log('tick from msg', data));
  setImmediate(() => {
    log('imm from msg', data);
    if (data === LAST) closeAll();
  });
};
const a = new BroadcastChannel('dst-114');
const b = new BroadcastChannel('dst-114');
const c = new BroadcastChannel('dst-114');
b.onmessage = ({ data }) => log('b got', data);
c.onmessage = ({ data }) => log('c got', data);

port1.postMessage('from the main script');
a.postMessage('broadcast from the main script');
setImmediate(() => log('imm from the main script'));

// Each stage starts from the last line of the one before, and the ports close after the last
// message's immediate: a plain run under load (CI) reads the socket later than a fixed timer.
const closeAll = () => {
  port1.close();
  for (const channel of [a, b, c]) channel.close();
};
setTimeout(() => {
  als.run('where it was posted', () => port1.postMessage('from a timer'));
  port1.postMessage('second from a timer');
  setImmediate(() => log('imm from the timer'));
  setTimeout(() => {
    log('timer + 0');
    setTimeout(fromImmediates, 50);
  }, 0);
}, 50);
function fromImmediates() {
  setImmediate(() => {
    log('imm A');
    port1.postMessage('from an immediate');
    a.postMessage('broadcast from an immediate');
    setImmediate(() => {
      log('imm C (queued by A)');
      setTimeout(fromARead, 50);
    });
  });
  setImmediate(() => log('imm B (queued before A ran)'));
}
function fromARead() {
  const server = net.createServer((socket) => {
    socket.on('data', (data) => {
      port1.postMessage(`from a read of "${data}"`);
      Promise.resolve().then(() => port1.postMessage(LAST));
      setImmediate(() => log('imm from the read'));
      socket.end();
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const client = net.connect(server.address().port, '127.0.0.1', () => client.write('x'));
    client.on('close', () => server.close());
  });
}
