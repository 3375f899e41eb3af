// Loopback data against immediates, as libuv's phases order them: what a timer callback writes
// (TCP or UDP, before or after it queues an immediate) is read in the poll phase that comes
// before the immediate's check phase; what an immediate writes, before the immediate it queues
// (which runs in the next turn); what an I/O callback writes, after the immediate it queues
// (its poll has returned). A socket destroyed from a timer: the peer's 'end' (poll) before its
// own 'close' (the closing phase). Connects: 137-tcp-loopback-connect-before-immediate.mjs.
import net from 'node:net';
import dgram from 'node:dgram';
const log = [];
const server = net.createServer((s) => { s.on('data', (d) => log.push(`server data ${d}`)); });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const c = net.connect(server.address().port, '127.0.0.1');
await new Promise((r) => c.on('connect', r));
await new Promise((r) => setTimeout(r, 5));
const u = dgram.createSocket('udp4');
await new Promise((r) => u.bind(0, '127.0.0.1', r));
u.on('message', (m) => log.push(`udp ${m}`));
const steps = [
  () => setTimeout(() => { c.write('t1'); setImmediate(() => log.push('imm t1')); }, 5),
  () => setTimeout(() => { setImmediate(() => log.push('imm t2')); c.write('t2'); }, 5),
  () => setTimeout(() => setImmediate(() => { c.write('i1'); setImmediate(() => log.push('imm i1')); }), 5),
  () => setTimeout(() => { u.send('u1', u.address().port, '127.0.0.1'); setImmediate(() => log.push('imm u1')); }, 5),
  () => setTimeout(() => { const s = dgram.createSocket('udp4'); s.bind(0, '127.0.0.1', () => { s.send('u2', u.address().port, '127.0.0.1', () => { setImmediate(() => { log.push('imm u2'); s.close(); }); }); }); }, 5),
];
for (const step of steps) { step(); await new Promise((r) => setTimeout(r, 30)); }
// From an I/O callback: the data handler writes back, then queues an immediate.
const echo = net.createServer((s) => s.on('data', (d) => { s.write(`echo ${d}`); setImmediate(() => log.push(`imm after echo ${d}`)); }));
await new Promise((r) => echo.listen(0, '127.0.0.1', r));
const e = net.connect(echo.address().port, '127.0.0.1');
e.on('data', (d) => log.push(`client got ${d}`));
await new Promise((r) => e.on('connect', r));
e.write('p1');
await new Promise((r) => setTimeout(r, 30));
// A socket destroyed from a timer: its FIN is read by the peer (poll) before the destroyed
// socket's close callback runs (the closing phase, after poll and check).
const ender = net.createServer((s) => s.on('end', () => log.push('peer end')));
await new Promise((r) => ender.listen(0, '127.0.0.1', r));
const d = net.connect(ender.address().port, '127.0.0.1');
await new Promise((r) => d.on('connect', r));
await new Promise((r) => setTimeout(r, 5));
await new Promise((r) => setTimeout(() => {
  d.on('close', () => { log.push('destroyed socket close'); r(); });
  d.destroy();
}, 5));
await new Promise((r) => setTimeout(r, 20));
console.log(log.join('\n'));
c.destroy(); e.destroy(); u.close(); server.close(); echo.close(); ender.close();
