// TLSWrap decrypts a read of the TCP socket record by record, and hands each record's cleartext
// (at most 16 KiB) to JavaScript in a callback of its own from C++, whose scope then runs the
// nextTicks and microtasks that 'data' queued: tick and microtask after each record, the
// immediates after the whole read. When a 'data' listener throws (an 'uncaughtException'
// listener takes it), the error is reported at once and the next record of the read comes
// next, before the ticks the throw left (its callback scope failed; the next one drains); a
// tick that throws is reported before the next record too. One
// server write of 40,000 bytes is three records, read together (Node 20, 22 and 24 alike).
import tls from 'node:tls';
import { ca, cert, key } from './tls/pki.mjs';

const log = [];
const L = (line) => log.push(line);
let onUncaught = () => {};
process.on('uncaughtException', (error) => {
  L(`uncaught ${error.message}`);
  onUncaught();
});

/** `how` throws at record `at`: 'listener' from 'data', 'tick' from a tick it queued. */
async function trial(name, at = 0, how = 'listener', destroyOnThrow = false) {
  L(`-- ${name}`);
  const server = tls.createServer({ key: key('localhost'), cert: cert('localhost') }, (socket) => {
    socket.on('data', () => {});
    socket.on('end', () => socket.end());
    socket.write(Buffer.alloc(40_000, 97));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise((resolve) => {
    const client = tls.connect({ host: '127.0.0.1', port: server.address().port, servername: 'localhost', ca });
    onUncaught = destroyOnThrow ? () => client.destroy() : () => {};
    let n = 0;
    let total = 0;
    client.on('data', (data) => {
      const k = ++n;
      total += data.length;
      L(`data ${data.length}`);
      process.nextTick(() => L(`tick ${k}`));
      Promise.resolve().then(() => L(`microtask ${k}`));
      setImmediate(() => L(`immediate ${k}`));
      if (total === 40_000) setTimeout(() => client.end(), 5);
      if (k === at && how === 'tick') process.nextTick(() => {
        throw new Error(`tick ${k}`);
      });
      else if (k === at) throw new Error(`data ${k}`);
    });
    client.on('end', () => L(`end, ${total} bytes`));
    client.on('close', () => server.close(resolve));
  });
}

await trial('three records in one read');
await trial("the first record's listener throws", 1);
await trial("the second record's listener throws", 2);
await trial("a tick of the first record's listener throws", 1, 'tick');
await trial("the first record's listener throws, and the handler destroys the socket", 1, 'listener', true);
console.log(log.join('\n'));
