// listen({ reusePort: true }) (SO_REUSEPORT, Node 22.12+; Node 20 ignores the option): servers
// that all set it share a port, one that does not is refused (EADDRINUSE), each connection
// reaches one of them (which one is the kernel's hash: only the totals are printed), and once
// one closes, the other takes every connection. Node's test-net-reuseport.
import net from 'node:net';

const log = (...args) => console.log(...args);
const accepted = { a: 0, b: 0 };
const server = (name) => net.createServer((socket) => {
  accepted[name]++;
  socket.end(name);
});
const listen = (srv, options) =>
  new Promise((resolve) => {
    srv.once('error', (err) => resolve(`${err.code} ${err.syscall}`));
    srv.listen(options, () => resolve('listening'));
  });

const a = server('a');
const b = server('b');
log('a:', await listen(a, { port: 0, host: '127.0.0.1', reusePort: true }));
const port = a.address().port;
log('b, same port, reusePort:', await listen(b, { port, host: '127.0.0.1', reusePort: true }));
const c = net.createServer();
log('c, same port, no reusePort:', await listen(c, { port, host: '127.0.0.1' }));
const d = net.createServer();
log('d, wildcard, same port, reusePort:', await listen(d, { port, host: '0.0.0.0', reusePort: true }), d.listening ? 'then closed' : '');
if (d.listening) await new Promise((resolve) => d.close(resolve));

async function connectAll(count) {
  const replies = [];
  for (let i = 0; i < count; i++) {
    replies.push(
      await new Promise((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        let text = '';
        socket.setEncoding('utf8').on('data', (chunk) => (text += chunk));
        socket.on('error', (err) => resolve(err.code));
        socket.on('close', () => resolve(text));
      }),
    );
  }
  return replies;
}

const first = await connectAll(20);
log('20 connections answered:', first.filter((r) => r === 'a' || r === 'b').length, 'accepted in all:', accepted.a + accepted.b);
if (b.listening) await new Promise((resolve) => b.close(resolve));
const before = { ...accepted };
const second = await connectAll(5);
log('after b closed:', JSON.stringify(second), 'b accepted more:', accepted.b - before.b);
a.close();
process.on('exit', (code) => log('exit', code));
