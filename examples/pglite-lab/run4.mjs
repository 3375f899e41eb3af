import { connect } from './restart-client.mjs';
// Item 4: data directory on the host's simulated disk; a machine crash; what survives.
const { Sim } = await import(process.env.DIST ?? new URL('../../dist/index.mjs', import.meta.url).href);
const sim = new Sim({ seed: Number(process.env.SEED ?? 1), disk: 'simulated', trace: process.env.TRACE });
sim.host('db', { main: './pg-service.mjs', env: { PG_DATADIR: new URL('./pgdata-sim', import.meta.url).pathname, PG_TEMPLATE: new URL('./pgdata.tar', import.meta.url).pathname, PG_CACHE: '1', PG_LOG: '1', ...(process.env.PG_FSYNC ? { PG_FSYNC: '1' } : {}) } }, { onCrash: 'fail' });
const seen = [];
sim.client('app', async () => {

  let c = await connect();
  for (const name of ['fsync', 'wal_sync_method', 'synchronous_commit', 'full_page_writes', 'wal_level']) seen.push(`${name} = ${(await c.query(`show ${name}`)).rows[0][name]}`);
  const f0 = globalThis.__fsyncs ?? 0;
  await c.query('create table t (id int primary key, v text)');
  for (let i = 1; i <= 20; i++) await c.query('insert into t values ($1, $2)', [i, `row ${i}`]);
  seen.push(`before crash: ${(await c.query('select count(*)::int n from t')).rows[0].n} rows, fsyncs by the statements ${(globalThis.__fsyncs ?? 0) - f0}`);
  c.on('error', () => {});
  sim.crash('db'); sim.restart('db');
  try {
    c = await connect();
    seen.push(`after crash: ${(await c.query('select count(*)::int n from t')).rows[0].n} rows`);
  } catch (e) { seen.push(`after crash: ${e.message}`); }
});
try {
  const r = await sim.run();
  console.log(JSON.stringify({ fingerprint: r.fingerprint, elapsedNs: r.elapsedNs, stopReason: r.stopReason }));
} catch (e) { console.log('run failed:', e.message.split('\n').slice(0, 8).join('\n')); }
console.log(seen.join('\n'));
console.log('real dir exists on the real disk?', (await import('node:fs')).existsSync(new URL('./pgdata-sim', import.meta.url).pathname));
process.exit(0);
