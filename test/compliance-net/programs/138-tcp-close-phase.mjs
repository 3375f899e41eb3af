// libuv's closing phase and pending queue against immediates. A turn of the loop runs timers,
// pending callbacks (again right after poll), poll, check (immediates), then the closing phase
// (handles' close callbacks, newest first). So a socket destroyed from a timer or an I/O callback
// emits 'close' after an immediate queued there, even one queued after destroy(); destroyed from an
// immediate, before the immediate it queues (that one runs in the next turn); several destroyed in
// one callback close in reverse order; one destroyed from a close callback closes in the next
// turn, after an immediate queued there. A shutdown (end()) completes from the pending queue:
// from a timer before the timer's immediate, from an immediate before the one it queues, and its
// callback's close joins the same closing phase, before an older one. dgram and server 'close'
// come from process.nextTick, not the closing phase.
import net from 'node:net';
import dgram from 'node:dgram';
const log = [];
const server = net.createServer((s) => { s.on('error', () => {}); s.resume(); });
server.allowHalfOpen = true;
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;
async function open(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const c = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    await new Promise((r) => c.on('connect', r));
    c.name = `s${i}`;
    c.resume();
    out.push(c);
  }
  await new Promise((r) => setTimeout(r, 5));
  return out;
}
const closed = (socks) => Promise.all(socks.map((s) => new Promise((r) => s.on('close', () => { log.push(`${s.name} close`); r(); }))));
const settle = () => new Promise((r) => setTimeout(r, 5));
{
  const [a] = await open(1);
  const done = closed([a]);
  setTimeout(() => { log.push('-- timer: destroy, immediate'); a.destroy(); setImmediate(() => log.push('imm')); }, 1);
  await done; await settle();
}
{
  const [a] = await open(1);
  const done = closed([a]);
  setImmediate(() => { log.push('-- immediate: destroy, immediate'); a.destroy(); setImmediate(() => log.push('imm')); });
  await done; await settle();
}
{
  const [a] = await open(1);
  const done = closed([a]);
  setImmediate(() => { log.push('-- immediate: immediate, destroy'); setImmediate(() => log.push('imm')); a.destroy(); });
  await done; await settle();
}
{
  const socks = await open(3);
  const done = closed(socks);
  setTimeout(() => { log.push('-- timer: destroy s0 s1 s2'); for (const s of socks) s.destroy(); }, 1);
  await done; await settle();
}
{
  const socks = await open(2);
  const done = closed(socks);
  socks[0].on('close', () => { socks[1].destroy(); setImmediate(() => log.push('imm from close')); });
  setTimeout(() => { log.push('-- timer: destroy s0, then s1 from its close'); socks[0].destroy(); }, 1);
  await done; await settle();
}
{
  // From an I/O callback: the client's 'data'.
  const [a] = await open(1);
  const accepted = new Promise((r) => server.once('connection', r));
  const b = net.connect(port, '127.0.0.1');
  b.name = 'b';
  const peer = await accepted;
  b.on('data', () => { log.push('-- data: destroy b, destroy s0, immediate'); b.destroy(); a.destroy(); setImmediate(() => log.push('imm')); });
  const done = Promise.all([closed([a]), closed([b])]);
  peer.write('x');
  await done; await settle();
}
{
  const [a] = await open(1);
  const u = dgram.createSocket('udp4');
  await new Promise((r) => u.bind(0, '127.0.0.1', r));
  const other = net.createServer();
  await new Promise((r) => other.listen(0, '127.0.0.1', r));
  const done = Promise.all([closed([a]), new Promise((r) => u.on('close', () => { log.push('udp close'); r(); })), new Promise((r) => other.on('close', () => { log.push('server close'); r(); }))]);
  setTimeout(() => { log.push('-- timer: udp, tcp, server, immediate'); u.close(); a.destroy(); other.close(); setImmediate(() => log.push('imm')); }, 1);
  await done; await settle();
}
{
  const [a] = await open(1);
  await new Promise((r) => setTimeout(() => { log.push('-- timer: end, immediate'); a.end(() => log.push('s0 finish')); setImmediate(() => { log.push('imm'); r(); }); }, 1));
  await settle(); a.destroy();
}
{
  const [a] = await open(1);
  await new Promise((r) => setImmediate(() => { log.push('-- immediate: end, immediate'); a.end(() => log.push('s0 finish')); setImmediate(() => { log.push('imm'); r(); }); }));
  await settle(); a.destroy();
}
{
  const [a, b] = await open(2);
  const done = closed([a, b]);
  setTimeout(() => {
    log.push('-- timer: destroy s1, end s0 (destroyed when finished), immediate');
    b.destroy();
    a.end(() => { log.push('s0 finish'); a.destroy(); });
    setImmediate(() => log.push('imm'));
  }, 1);
  await done; await settle();
}
console.log(log.join('\n'));
server.close();
