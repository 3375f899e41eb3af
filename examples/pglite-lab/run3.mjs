const realNow = performance.now.bind(performance);
const marks = [];
globalThis.__mark = (what) => marks.push([what, realNow()]);
const { connect } = await import('./restart-client.mjs');
const { Sim } = await import(process.env.DIST ?? new URL('../../dist/index.mjs', import.meta.url).href);
const seed = Number(process.env.SEED ?? 1);
const boots = Number(process.env.BOOTS ?? 3);
const t0 = realNow();
const sim = new Sim({ seed, disk: process.env.DISK ?? 'real' });
sim.host('db', { main: './pg-service.mjs' }, { onCrash: 'fail' });
const seen = [];
sim.client('app', async () => {
  for (let b = 1; b <= boots; b++) {
    const c = await connect();
    const r = await c.query('select count(*)::int as n from pg_class');
    seen.push(`boot ${b}: ${r.rows[0].n} relations at ${performance.now()} ms`);
    await c.end();
    if (b < boots) { sim.crash('db'); sim.restart('db'); }
  }
});
const r = await sim.run();
console.log(seen.join('\n'));
let last;
const per = [];
for (const [what, at] of marks) { if (what === 'boot') { last = at; per.push({}); } else per.at(-1)[what] = Math.round(at - last); }
console.log('per incarnation (real ms since boot):', JSON.stringify(per));
console.log('run:', JSON.stringify({ fingerprint: r.fingerprint, elapsedNs: r.elapsedNs, events: r.events, stopReason: r.stopReason }), 'real ms', Math.round(realNow() - t0));
process.exit(0);
