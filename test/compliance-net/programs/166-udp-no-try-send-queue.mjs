// Flags: --test-udp-no-try-send
// Node's own tests' flag: every dgram send goes through libuv's send queue (no uv_udp_try_send).
// getSendQueueSize/Count count a send until it completes; the first send into an empty queue
// leaves at once and completes in the next turn's pending phase, the others leave there; each
// completion drops the counts before its callback. A close completes what is queued in its
// closing phase: sent ones with their bytes, waiting ones with ECANCELED. A send error (EMSGSIZE)
// reaches the callback with the byte count. Datagrams received are printed sorted at the end
// (their arrival among the callbacks is the network's).
import dgram from 'node:dgram';

const log = (...args) => console.log(...args);
process.on('exit', (code) => log('exit', code));
const received = [];
const server = dgram.createSocket('udp4');
server.on('message', (m) => received.push(String(m)));

function queue(s) {
  return `${s.getSendQueueSize()}/${s.getSendQueueCount()}`;
}

server.bind(0, '127.0.0.1', () => {
  const port = server.address().port;
  const a = dgram.createSocket('udp4');
  a.connect(port, '127.0.0.1', () => {
    a.send('one', (e, n) => log('a cb one', e, n, queue(a)));
    log('a after one', queue(a));
    a.send('two!');
    a.send('three', (e, n) => log('a cb three', e, n, queue(a)));
    log('a after three', queue(a));
    process.nextTick(() => log('a tick', queue(a)));
    setImmediate(() => {
      log('a immediate', queue(a));
      a.close();
      closing();
    });
  });

  function closing() {
    const b = dgram.createSocket('udp4');
    b.connect(port, '127.0.0.1', () => {
      b.send('four', (e, n) => log('b cb four', e?.code ?? e, n));
      b.send('five', (e, n) => log('b cb five', e?.code, e?.syscall, n));
      log('b before close', queue(b));
      b.close(() => log('b closed'));
      setTimeout(tooBig, 20);
    });
  }

  function tooBig() {
    const c = dgram.createSocket('udp4');
    c.bind(0, '127.0.0.1', () => {
      c.send(Buffer.alloc(70000), port, '127.0.0.1', (e, n) => {
        log('c cb big', e?.code, e?.syscall, n, queue(c));
        c.close();
        setTimeout(() => {
          log('received', received.sort().join(' '));
          server.close();
        }, 20);
      });
      log('c after big', queue(c));
    });
  }
});
