// Explore seeds: two clients withdraw 60 each from a balance of 100, concurrently.
const realNow = performance.now.bind(performance);
const { Sim } = await import(process.env.DIST ?? new URL('../../dist/index.mjs', import.meta.url).href);
const { connect } = await import('./restart-client.mjs');
const seeds = (process.env.SEEDS ?? '1-10').split('-').map(Number);
const env = { PG_TEMPLATE: new URL('./pgdata.tar', import.meta.url).pathname, PG_CACHE: '1' };
let failures = 0;
for (let seed = seeds[0]; seed <= (seeds[1] ?? seeds[0]); seed++) {
  const t0 = realNow();
  const sim = new Sim({ seed });
  sim.host('db', { main: './pg-service.mjs', env: { ...env, PG_MAX_CONNECTIONS: '16' } });
  sim.host('api', { main: './api.mjs', env: { BUG: process.env.BUG ?? '1' } });
  const results = [];
  let ready;
  const setup = new Promise((r) => (ready = r));
  sim.client('setup', async () => {
    const c = await connect();
    await c.query('create table accounts (id int primary key, balance int not null)');
    await c.query('insert into accounts values (1, 100)');
    await c.end();
    ready();
  });
  for (const name of ['alice', 'bob']) {
    sim.client(name, async () => {
      await setup;
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 5)));
      for (let i = 0; ; i++) {
        try {
          const res = await fetch('http://api:8080/withdraw?amount=60', { method: 'POST' });
          results.push(`${name} ${res.status}`);
          return;
        } catch (e) { if (i > 100) throw e; await new Promise((r) => setTimeout(r, 50)); }
      }
    });
  }
  let balance;
  sim.client('checker', async () => {
    await setup;
    await new Promise((r) => setTimeout(r, 2000));
    balance = Number(await (await fetch('http://api:8080/balance')).text());
  });
  const r = await sim.run();
  const ok = results.filter((s) => s.endsWith('200')).length;
  const violated = ok > 1 || balance !== 100 - 60 * ok;
  if (violated) failures++;
  console.log(`seed ${seed}: ${results.sort().join(', ')}, final balance ${balance} -> ${violated ? 'INVARIANT VIOLATED (lost update)' : 'ok'}  fingerprint ${r.fingerprint}  real ${Math.round(realNow() - t0)} ms`);
}
console.log(`${failures} failing seeds`);
process.exit(0);
