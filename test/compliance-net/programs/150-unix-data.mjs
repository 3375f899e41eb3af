// Data over a unix socket: 1000 small writes arrive in order with 1000 callbacks; one 4 MiB write
// returns false, then 'drain' (writableLength 0) before the write callback, then 'finish' and
// 'end'. Half-close with allowHalfOpen on both sides: the server can still write after 'end'.
// Without allowHalfOpen the server side ends itself. Both ends calling end(): clean close.
// destroy() with data read into the JS buffer but not consumed: the peer sees a clean 'end'.
// destroy() with data still unread in the KERNEL queue (pauseOnConnect): the peer gets
// ECONNRESET (errno -104, syscall read) and close(hadError true) - no 'end'. A write after
// the peer closed: write() returns false, the write callback gets EPIPE, then 'error' EPIPE
// (syscall write), then close(true).
// Measured: Node 20, 22, 24 identical, 5 plain + 3 loaded runs each.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const sockPath = path.join(dir, 's.sock');
const log = (...args) => console.log(...args);

async function withServer(options, onConnection, run) {
  const server = net.createServer(options, onConnection);
  await new Promise((resolve) => server.listen(sockPath, resolve));
  await run();
  await new Promise((resolve) => server.close(resolve));
}

const sha = (buf) => crypto.createHash('sha256').update(buf).digest('hex').slice(0, 16);

// 1. many small writes arrive in order and complete
{
  let received = '';
  await withServer(
    {},
    (socket) => {
      socket.setEncoding('utf8');
      socket.on('data', (d) => (received += d));
      socket.on('end', () => socket.end());
    },
    () =>
      new Promise((resolve) => {
        const client = net.connect(sockPath);
        let expected = '';
        let callbacks = 0;
        for (let i = 0; i < 1000; i++) {
          const s = `${i},`;
          expected += s;
          client.write(s, () => callbacks++);
        }
        client.end();
        client.resume();
        client.on('close', () => {
          log('many writes: in order', received === expected, 'length', received.length, 'callbacks', callbacks, 'bytesWritten', client.bytesWritten);
          resolve();
        });
      }),
  );
}

// 2. one large write: write() returns false, 'drain' comes once, everything arrives
{
  const big = Buffer.alloc(4 * 1024 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = (i * 7 + 3) & 0xff;
  const chunks = [];
  await withServer(
    {},
    (socket) => {
      socket.on('data', (d) => chunks.push(d));
      socket.on('end', () => socket.end());
    },
    () =>
      new Promise((resolve) => {
        const client = net.connect(sockPath, () => {
          const ret = client.write(big, () => L.push('write callback'));
          L.push(`write returned ${ret}, writableLength ${client.writableLength}, writableNeedDrain ${client.writableNeedDrain}`);
        });
        const L = [];
        client.on('drain', () => L.push(`drain, writableLength ${client.writableLength}`));
        client.on('end', () => L.push('end'));
        client.resume();
        client.on('finish', () => L.push('finish'));
        client.on('drain', () => client.end());
        client.on('close', () => {
          const all = Buffer.concat(chunks);
          log('large write:', L.join(', '));
          log('large write: received', all.length, 'equal', sha(all) === sha(big), 'bytesWritten', client.bytesWritten);
          resolve();
        });
      }),
  );
}

// 3. half-close: the client ends, the server (allowHalfOpen) still writes, then ends
{
  const S = [];
  await withServer(
    { allowHalfOpen: true },
    (socket) => {
      socket.setEncoding('utf8');
      socket.on('data', (d) => S.push(`data ${d}`));
      socket.on('end', () => {
        S.push(`end, writable ${socket.writable}, readyState ${socket.readyState}`);
        socket.write('late1');
        setTimeout(() => {
          socket.write('late2');
          socket.end('bye');
        }, 5);
      });
      socket.on('finish', () => S.push('finish'));
      socket.on('close', (hadError) => S.push(`close ${hadError}`));
    },
    () =>
      new Promise((resolve) => {
        const C = [];
        const client = net.connect({ path: sockPath, allowHalfOpen: true }, () => client.end('req'));
        let got = '';
        client.setEncoding('utf8');
        client.on('finish', () => C.push(`finish, readyState ${client.readyState}`));
        client.on('data', (d) => (got += d));
        client.on('end', () => C.push(`end got ${got}, readyState ${client.readyState}`));
        client.on('close', (hadError) => {
          C.push(`close ${hadError}`);
          setTimeout(() => {
            log('half-close client:', C.join(', '));
            log('half-close server:', S.join(', '));
            resolve();
          }, 5);
        });
      }),
  );
}

// 4. without allowHalfOpen the server's socket ends itself when the client ends
{
  const S = [];
  await withServer(
    {},
    (socket) => {
      socket.on('data', () => {});
      socket.on('end', () => S.push(`end, writable ${socket.writable}`));
      socket.on('finish', () => S.push('finish'));
      socket.on('close', (hadError) => S.push(`close ${hadError}`));
    },
    () =>
      new Promise((resolve) => {
        const C = [];
        const client = net.connect(sockPath, () => client.end());
        client.on('finish', () => C.push('finish'));
        client.on('end', () => C.push('end'));
        client.resume();
        client.on('close', (hadError) => {
          C.push(`close ${hadError}`);
          setTimeout(() => {
            log('auto end client:', C.join(', '));
            log('auto end server:', S.join(', '));
            resolve();
          }, 5);
        });
      }),
  );
}

// 5. the server destroys its socket while the client's data sits unconsumed in the socket's
// JS buffer ('readable' came, read() never called) (Node read it from the kernel already): the client sees a clean EOF
{
  const S = [];
  await withServer(
    {},
    (socket) => {
      socket.once('readable', () =>
        setTimeout(() => {
          S.push(`destroy with unread data, readableLength ${socket.readableLength}`);
          socket.destroy();
        }, 5),
      );
      socket.on('close', (hadError) => S.push(`close ${hadError}`));
    },
    () =>
      new Promise((resolve) => {
        const C = [];
        const client = net.connect(sockPath, () => client.write('unread data'));
        client.on('data', () => C.push('data'));
        client.on('end', () => C.push('end'));
        client.on('error', (err) => C.push(`error ${err.code} ${err.syscall}`));
        client.on('close', (hadError) => {
          C.push(`close ${hadError}`);
          setTimeout(() => {
            log('destroy with unread data client:', C.join(', '));
            log('destroy with unread data server:', S.join(', '));
            resolve();
          }, 5);
        });
      }),
  );
}

// 5b. the same with pauseOnConnect: the data is still in the kernel's queue (never read)
{
  const S = [];
  await withServer(
    { pauseOnConnect: true },
    (socket) => {
      setTimeout(() => {
        S.push(`destroy with unread data`);
        socket.destroy();
      }, 10);
      socket.on('close', (hadError) => S.push(`close ${hadError}`));
    },
    () =>
      new Promise((resolve) => {
        const C = [];
        const client = net.connect(sockPath, () => client.write('unread data'));
        client.on('data', () => C.push('data'));
        client.on('end', () => C.push('end'));
        client.on('error', (err) => C.push(`error ${err.code} ${err.errno} ${err.syscall} ${err.message}`));
        client.on('close', (hadError) => {
          C.push(`close ${hadError}`);
          setTimeout(() => {
            log('destroy with data unread in the kernel client:', C.join(', '));
            log('destroy with data unread in the kernel server:', S.join(', '));
            resolve();
          }, 5);
        });
      }),
  );
}

// 6. the server destroys its socket (nothing unread); the client writes after that
{
  const S = [];
  await withServer(
    {},
    (socket) => {
      socket.on('data', () => {});
      setTimeout(() => socket.destroy(), 5);
    },
    () =>
      new Promise((resolve) => {
        const C = [];
        const client = net.connect({ path: sockPath, allowHalfOpen: true });
        client.on('end', () => {
          C.push('end');
          setTimeout(() => {
            const ret = client.write('after peer closed', (err) => C.push(`write callback ${err && err.code}`));
            C.push(`write returned ${ret}`);
          }, 5);
        });
        client.resume();
        client.on('error', (err) => C.push(`error ${err.code} ${err.syscall} ${err.message}`));
        client.on('close', (hadError) => {
          C.push(`close ${hadError}`);
          log('write after peer closed:', C.join(', '));
          resolve();
        });
      }),
  );
}

// 7. both sides call end() at the same time
{
  const S = [];
  await withServer(
    {},
    (socket) => {
      socket.on('data', () => {});
      socket.end('from server');
      socket.on('end', () => S.push('end'));
      socket.on('finish', () => S.push('finish'));
      socket.on('close', (hadError) => S.push(`close ${hadError}`));
    },
    () =>
      new Promise((resolve) => {
        const C = [];
        let got = '';
        const client = net.connect(sockPath, () => client.end('from client'));
        client.setEncoding('utf8');
        client.on('data', (d) => (got += d));
        client.on('end', () => C.push(`end ${got}`));
        client.on('finish', () => C.push('finish'));
        client.on('close', (hadError) => {
          C.push(`close ${hadError}`);
          setTimeout(() => {
            log('both end client:', C.join(', '));
            log('both end server:', S.join(', '));
            resolve();
          }, 5);
        });
      }),
  );
}

fs.rmSync(dir, { recursive: true });
process.on('exit', (code) => log('exit', code));
