const finalized = [];
globalThis.__fr = new FinalizationRegistry((w) => finalized.push(w));
const { Sim } = await import(process.env.DIST ?? new URL('../../dist/index.mjs', import.meta.url).href);
const rss = () => Math.round(process.memoryUsage.rss() / 1e6);
const mode = process.argv[2] ?? 'module';
const sim = new Sim({ seed: 1 });
if (mode === 'module') sim.host('big', { main: './big-host.mjs' });
else sim.host('big', async () => { const big = new Uint8Array(200e6).fill(1); globalThis.__fr.register(big, 'big'); (await import('node:net')).default.createServer((s) => s.end(String(big[0]))).listen(7000); });
sim.client('c', async () => {
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setTimeout(r, 10));
    globalThis.gc(); console.log(`boot ${i + 1}: rss ${rss()} MB, finalized ${finalized.length}`);
    sim.crash('big'); sim.restart('big');
  }
});
await sim.run();
globalThis.gc(); await new Promise((r) => setTimeout(r, 100)); globalThis.gc(); await new Promise((r) => setTimeout(r, 100));
console.log(`after run: rss ${rss()} MB, finalized ${finalized.length}`);
