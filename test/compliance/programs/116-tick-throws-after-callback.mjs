// A tick throws in the drain that follows a callback, and an 'uncaughtException' listener takes
// the error. That drain's callback scope failed, so the ticks left behind wait for the next
// callback scope, which drains after its callback, or for the next check phase's start, which
// drains first (Node's handler queues an immediate, so the loop comes round to it without
// blocking): after the check phase's last immediate, a close callback of that turn or a timer
// due in the next runs before them, an immediate of the next check phase after them; after a
// timer, a read of that turn's poll runs before them. (102 covers throws in a callback's own
// code and in the drains between timers and between immediates.) Each case's order is the same
// on every plain run (Node 20, 22, 24).
import net from 'node:net';

const log = [];
const L = (line) => log.push(line);
process.on('uncaughtException', (error) => L(`uncaught ${error.message}`));
/** Queues a tick that throws `message` and a tick after it. */
const throwingTick = (message) => {
  process.nextTick(() => {
    throw new Error(message);
  });
  process.nextTick(() => L(`tick after ${message}`));
};
/** Busy for `ms` of the clock: a timer armed before comes due meanwhile. */
const busy = (ms) => {
  const t0 = performance.now();
  while (performance.now() < t0 + ms);
};

const cases = {
  "the last immediate's tick throws; an immediate it queued": (done) =>
    setImmediate(() => {
      throwingTick('i');
      setImmediate(() => {
        L('next immediate');
        done();
      });
    }),
  "the last immediate's tick throws; a timer due, then an immediate it queued": (done) =>
    setImmediate(() => {
      throwingTick('i');
      setImmediate(() => {
        L('next immediate');
        done();
      });
      setTimeout(() => L('timer'), 1);
      busy(5);
    }),
  "the last immediate's tick throws; a close callback of its turn": (done) => {
    const server = net.createServer((socket) => socket.on('close', () => L('server side close')));
    server.listen(0, '127.0.0.1', () => {
      const client = net.connect(server.address().port, '127.0.0.1', () => {
        setTimeout(() => {
          setImmediate(() => {
            client.on('close', () => {
              L('client close');
              server.close(done);
            });
            client.destroy();
            throwingTick('c');
          });
        }, 2);
      });
    });
  },
  "a timer's tick throws; a read of that turn's poll": (done) => {
    const server = net.createServer((socket) =>
      socket.on('data', (data) => {
        L(`read ${data}`);
        socket.destroy();
        server.close(done);
      }),
    );
    server.listen(0, '127.0.0.1', () => {
      const client = net.connect(server.address().port, '127.0.0.1', () => {
        setTimeout(() => {
          client.write('x');
          throwingTick('t');
          setImmediate(() => {
            L('immediate');
            client.destroy();
          });
        }, 2);
      });
    });
  },
};

const names = Object.keys(cases);
function next(i) {
  if (i === names.length) {
    console.log(log.join('\n'));
    return;
  }
  L(`-- ${names[i]}`);
  cases[names[i]](() => setTimeout(() => next(i + 1), 20));
}
next(0);
