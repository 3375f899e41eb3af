// Postgres' own crash recovery on a simulated disk: the database keeps its data directory on the
// db host's disk; a client commits rows, the machine loses power (sim.crash: what was not
// fsync'd is gone, unsynced writes torn at 512-byte sectors), and after the restart Postgres
// replays its WAL. Every committed row must be there.
//
//   node examples/postgres/crash-recovery.mjs [seed]        # prints what it saw and the fingerprint
import pg from 'pg';
import { Sim } from 'dst-runtime';
import { postgres } from 'dst-runtime/services/postgres';

const seed = process.argv[2] ?? '0x1';
const sim = new Sim({
  seed,
  disk: 'simulated',
  diskFaults: { hosts: 'db', tornWrites: true },
});
sim.host('db', postgres({ from: import.meta.url, dataDir: '/var/lib/postgresql/data' }));
const seen = [];

async function connect() {
  for (let attempt = 0; ; attempt++) {
    const client = new pg.Client({ host: 'db', port: 5432, user: 'postgres', database: 'postgres' });
    client.on('error', () => {}); // the crash ends its connection
    try {
      await client.connect();
      return client;
    } catch (error) {
      if (attempt >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

sim.client('app', async () => {
  let client = await connect();
  const { rows } = await client.query('SELECT 41 + 1 AS answer, now() AS now');
  seen.push(`answer ${rows[0].answer} at ${rows[0].now.toISOString()} (virtual ${performance.now().toFixed(3)} ms)`);
  // From now on each fsync takes time, so the crash can come while one is in flight. (Set from the
  // start, the fsyncs of the freshly loaded data directory would take seconds of virtual time.)
  sim.setDiskFaults('db', { fsyncLatency: { minMs: 0.5, maxMs: 3 } });
  await client.query('CREATE TABLE t (id int PRIMARY KEY, v text)');
  let committed = 0;
  const stopAt = performance.now() + 20 + Math.random() * 100; // the crash comes at a seeded moment
  while (performance.now() < stopAt) {
    await client.query('INSERT INTO t VALUES ($1, repeat($2, 200))', [committed + 1, 'x']);
    committed++;
  }
  sim.crash('db');
  sim.restart('db');
  client = await connect();
  const count = (await client.query('SELECT count(*)::int AS n FROM t')).rows[0].n;
  seen.push(`committed ${committed}, after the crash ${count} (${count === committed ? 'all there' : 'LOST'})`);
  await client.end();
});

const result = await sim.run();
console.log(seen.join('\n'));
console.log(`fingerprint ${result.fingerprint} events ${result.events}`);
process.exit(0);
