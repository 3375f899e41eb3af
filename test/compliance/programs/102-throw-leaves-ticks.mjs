// A callback throws, an 'uncaughtException' listener takes the error, and the nextTicks and
// microtasks the callback queued before it threw are left behind. Node runs them at the next
// point that drains its queues, which depends on the phase the callback threw in:
// - a timer: processTimers goes on with the next timer of the same list (no drain first; it
//   drains before another list); the timers phase's callback scope drains at its end, before
//   anything of a later phase;
// - an immediate: processImmediate is called again for what is queued now, in the same check
//   phase, and runs its first immediate without a drain;
// - a read, an fs callback, a close callback: the failed callback scope does not drain; the
//   check phase drains at its start (Node's handler queues an immediate, so there is one).
// A tick that throws while they run leaves the rest for the same places; at a check phase's
// start, the first immediate runs before the rest.
// Every case's order is the same on every plain run (Node 20, 22, 24): nothing here races a
// timer against real time.
import fs from 'node:fs';
import net from 'node:net';

const log = [];
const L = (line) => log.push(line);
process.on('uncaughtException', (error) => {
  L(`uncaught ${error.message}`);
  if (error.message === 'tick throws') process.nextTick(() => L('tick from the handler'));
});
/** Queues a tick and a microtask tagged `tag`. */
const leave = (tag) => {
  process.nextTick(() => L(`tick ${tag}`));
  Promise.resolve().then(() => L(`microtask ${tag}`));
};
/** A server and a connected client; `onAccept(server socket, client, server)`. */
const pair = (onAccept) => {
  let client;
  const server = net.createServer((socket) => onAccept(socket, client, server));
  server.listen(0, '127.0.0.1', () => {
    client = net.connect(server.address().port, '127.0.0.1');
    client.on('error', () => {});
  });
};

const cases = {
  'a timer throws; a second timer of the same list': (done) => {
    setTimeout(() => {
      leave('t1');
      throw new Error('t1');
    }, 2);
    setTimeout(() => {
      L('t2');
      setImmediate(() => {
        L('immediate');
        done();
      });
    }, 2);
    // Both are due when the timers phase comes, even if the clock moved between the two calls.
    const t0 = performance.now();
    while (performance.now() < t0 + 5);
  },
  'a timer throws; an immediate and a timer it queued': (done) => {
    setTimeout(() => {
      leave('t');
      setImmediate(() => L('immediate'));
      setTimeout(() => {
        L('next timer');
        done();
      }, 0);
      throw new Error('t');
    }, 1);
  },
  'a timer throws; one of its ticks throws too': (done) => {
    setTimeout(() => {
      process.nextTick(() => {
        L('tick 1');
        throw new Error('tick throws');
      });
      process.nextTick(() => L('tick 2'));
      setImmediate(() => {
        L('immediate');
        done();
      });
      throw new Error('t');
    }, 1);
  },
  'a timer throws; a timer of another list due in the same phase': (done) => {
    setTimeout(() => {
      leave('t1');
      throw new Error('t1');
    }, 1);
    setTimeout(() => {
      L('t3');
      setImmediate(() => {
        L('immediate');
        done();
      });
    }, 3);
    // Both are due when the timers phase comes: processTimers drains before the second list.
    const t0 = performance.now();
    while (performance.now() < t0 + 10);
  },
  "an fs callback throws; the first tick it left throws too": (done) =>
    fs.stat('/', () => {
      process.nextTick(() => {
        L('tick 1');
        throw new Error('tick 1');
      });
      process.nextTick(() => L('tick 2'));
      setImmediate(() => {
        L('immediate');
        setTimeout(done, 1);
      });
      throw new Error('fs');
    }),
  'an immediate throws; two more immediates': (done) => {
    setImmediate(() => {
      leave('i');
      throw new Error('i');
    });
    setImmediate(() => L('immediate 2'));
    setImmediate(() => {
      L('immediate 3');
      done();
    });
  },
  'the only immediate throws; an immediate it queued': (done) => {
    setImmediate(() => {
      leave('i');
      setImmediate(() => {
        L('queued immediate');
        done();
      });
      throw new Error('i');
    });
  },
  'the only immediate throws; a timer it queued': (done) => {
    setImmediate(() => {
      leave('i');
      setTimeout(() => {
        L('timer');
        done();
      }, 0);
      throw new Error('i');
    });
  },
  "a 'data' listener throws; an immediate it queued": (done) =>
    pair((socket, client, server) => {
      socket.once('data', () => {
        leave('read');
        setImmediate(() => {
          L('immediate');
          socket.destroy();
          client.destroy();
          server.close(done);
        });
        throw new Error('read');
      });
      client.write('x');
    }),
  'an fs callback throws; an immediate it queued': (done) =>
    fs.stat('/', () => {
      leave('fs');
      setImmediate(() => {
        L('immediate');
        done();
      });
      throw new Error('fs');
    }),
  "a socket's 'close' listener throws; an immediate it queued": (done) =>
    pair((socket, client, server) => {
      socket.on('close', () => {
        leave('close');
        setImmediate(() => {
          L('immediate');
          done();
        });
        throw new Error('close');
      });
      setTimeout(() => {
        socket.destroy();
        client.destroy();
        server.close();
      }, 2);
    }),
  "a socket's 'close' listener throws; data it wrote to another socket, an immediate": (done) => {
    // The other socket reads the data in the next turn's poll, before that turn's check phase.
    let reader;
    const server = net.createServer((socket) => {
      if (reader === undefined) {
        reader = socket;
        reader.on('data', (data) => L(`read ${data}`));
        return;
      }
      socket.on('close', () => {
        leave('close');
        setImmediate(() => {
          L('immediate');
          for (const s of [reader, writer, other]) s.destroy();
          server.close(done);
        });
        writer.write('hello');
        throw new Error('close');
      });
      setTimeout(() => socket.destroy(), 2);
    });
    let writer;
    let other;
    server.listen(0, '127.0.0.1', () => {
      writer = net.connect(server.address().port, '127.0.0.1', () => {
        // allowHalfOpen: no FIN comes back to the destroyed socket's closed port.
        other = net.connect({ port: server.address().port, host: '127.0.0.1', allowHalfOpen: true });
        other.on('error', () => {});
      });
    });
  },
  "a server's 'close' listener (a tick) throws; an immediate it queued": (done) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      server.close(() => {
        leave('server close');
        setImmediate(() => {
          L('immediate');
          done();
        });
        throw new Error('server close');
      });
    });
  },
  'an interval throws each time': (done) => {
    let n = 0;
    const interval = setInterval(() => {
      leave(`interval ${n}`);
      if (++n === 3) {
        clearInterval(interval);
        setImmediate(() => {
          L('immediate');
          done();
        });
      }
      throw new Error(`interval ${n}`);
    }, 1);
  },
  'a queueMicrotask callback throws (nothing unwinds)': (done) => {
    setTimeout(() => {
      queueMicrotask(() => {
        leave('qm');
        throw new Error('qm');
      });
      process.nextTick(() => L('tick'));
      setImmediate(() => {
        L('immediate');
        done();
      });
    }, 1);
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
