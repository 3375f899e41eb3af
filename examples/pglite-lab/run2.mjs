const { Sim } = await import(process.env.DIST ?? new URL('../../dist/index.mjs', import.meta.url).href);
const seed = Number(process.env.SEED ?? 1);
const real0 = performance.now();
const sim = new Sim({ seed, durationMs: Number(process.env.DUR ?? 600000), trace: process.env.TRACE });
sim.host('db', { main: './db.mjs' });
sim.client('app', { main: './app.mjs' });
try {
  const r = await sim.run();
  console.log('run:', JSON.stringify({ fingerprint: r.fingerprint, elapsedNs: r.elapsedNs, events: r.events, stopReason: r.stopReason }));
} catch (e) { console.log('run failed:', e.message.split('\n').slice(0,6).join('\n')); }
console.log('real ms', (performance.now() - real0).toFixed(0));
setTimeout(() => console.log('exit at real', (performance.now() - real0).toFixed(0)), 100).unref();
