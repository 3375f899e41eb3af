// Close callbacks and immediates after a busy callback (one that spins 5 ms on the clock): what
// came due meanwhile runs in libuv's phase order from the busy phase, and close callbacks in the
// closing phase after check, newest first. An immediate queued by a busy immediate before it
// spun runs in the next turn, after that turn's closing phase. (Found by review, 2026-12-03.)
import net from 'node:net';
const log = [];
const server = net.createServer((s) => { s.on('error', () => {}); s.resume(); });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;
async function open(name) {
  const c = net.connect(port, '127.0.0.1');
  await new Promise((r) => c.on('connect', r));
  c.on('close', () => log.push(`${name} close`));
  await new Promise((r) => setTimeout(r, 5));
  return c;
}
const busy = (ms) => { const t = performance.now(); while (performance.now() - t < ms); };
{
  const a = await open('a');
  setImmediate(() => { log.push('-- immediate: immediate, busy, destroy'); setImmediate(() => log.push('imm')); busy(5); a.destroy(); });
  await new Promise((r) => setTimeout(r, 200));
}
{
  const a = await open('b');
  setTimeout(() => { log.push('-- timer: immediate, busy, destroy'); setImmediate(() => log.push('imm')); busy(5); a.destroy(); }, 1);
  await new Promise((r) => setTimeout(r, 200));
}
{
  const a = await open('c');
  const b = await open('d');
  setTimeout(() => { log.push('-- timer: destroy c, busy, destroy d, immediate'); a.destroy(); busy(5); b.destroy(); setImmediate(() => log.push('imm')); }, 1);
  await new Promise((r) => setTimeout(r, 200));
}
{
  const a = await open('e');
  setImmediate(() => { log.push('-- immediate: destroy, busy, immediate'); a.destroy(); busy(5); setImmediate(() => log.push('imm')); });
  await new Promise((r) => setTimeout(r, 200));
}
console.log(log.join('\n'));
server.close();
