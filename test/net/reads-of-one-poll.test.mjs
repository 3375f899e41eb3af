// What libuv reads of one socket in one poll runs before the next socket's reads (World.continuePoll):
// a socket's second 64 KiB read, or the EOF that EPOLLHUP brings after a partial read (libuv
// before 1.52), is never separated from its first read by another socket's callbacks. Which of
// two sockets is read first depends on the seed (compliance-net 140 compares each socket's own
// order with Node's).
import assert from 'node:assert/strict';
import net from 'node:net';
import { Sim } from 'dst-runtime';

const [uvMajor, uvMinor] = process.versions.uv.split('.').map(Number);
const hangupEof = uvMajor === 1 && uvMinor < 52;

/** Both ends write and end in one timer; returns the run's log. */
async function bothEnd(seed, size) {
  const log = [];
  const sim = new Sim({ seed });
  sim.host('h', () => {
    const watch = (socket, name) => {
      socket.on('data', (d) => {
        log.push(`${name} data ${d.length}`);
        Promise.resolve().then(() => log.push(`${name} micro`));
        setImmediate(() => log.push(`${name} imm`));
      });
      socket.on('end', () => log.push(`${name} end`));
    };
    const server = net.createServer({ allowHalfOpen: true }, (srv) => {
      watch(srv, 'srv');
      setTimeout(() => {
        client.end(Buffer.alloc(size));
        srv.end(Buffer.alloc(size));
        setTimeout(() => server.close(), 10);
      }, 5);
    });
    server.listen(7000);
    const client = net.connect({ port: 7000, host: '127.0.0.1', allowHalfOpen: true });
    watch(client, 'cli');
  });
  await sim.run();
  return log;
}

/** The lines of `name` in `log`, and whether they are consecutive there. */
function run(log, name) {
  const at = log.flatMap((line, i) => (line.startsWith(`${name} `) && !line.endsWith(' imm') ? [i] : []));
  return { lines: at.map((i) => log[i]), consecutive: at.every((i, k) => k === 0 || i === at[k - 1] + 1) };
}

describe('reads of one socket in one poll (seeds 1-12)', () => {
  it('a partial read and the EOF behind it: together under EPOLLHUP (libuv < 1.52), else the EOF after the immediate', async () => {
    const firsts = new Set();
    for (let seed = 1; seed <= 12; seed++) {
      const log = await bothEnd(seed, 3);
      firsts.add(log[0].split(' ')[0]);
      for (const name of ['cli', 'srv']) {
        const own = log.filter((line) => line.startsWith(`${name} `));
        const expected = hangupEof
          ? [`${name} data 3`, `${name} micro`, `${name} end`, `${name} imm`]
          : [`${name} data 3`, `${name} micro`, `${name} imm`, `${name} end`];
        assert.deepEqual(own, expected, `seed ${seed}: ${log.join(', ')}`);
        if (hangupEof) assert.ok(run(log, name).consecutive, `seed ${seed}: ${name}'s reads are split: ${log.join(', ')}`);
      }
    }
    // Both orders of the two sockets occur: the seed decides it, as between two processes.
    assert.deepEqual([...firsts].sort(), ['cli', 'srv']);
  });

  it('a full 64 KiB read is followed by the next read of the same socket before any other callback', async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const log = await bothEnd(seed, 100_000);
      for (const name of ['cli', 'srv']) {
        const own = log.filter((line) => line.startsWith(`${name} `));
        assert.deepEqual(own.slice(0, 4), [`${name} data 65536`, `${name} micro`, `${name} data 34464`, `${name} micro`], `seed ${seed}: ${log.join(', ')}`);
        const first = log.indexOf(`${name} data 65536`);
        assert.deepEqual(log.slice(first, first + 4), own.slice(0, 4), `seed ${seed}: ${name}'s two reads are split: ${log.join(', ')}`);
      }
    }
  });
});
