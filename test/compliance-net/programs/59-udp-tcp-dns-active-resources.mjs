// process.getActiveResourcesInfo() lists sockets as Node lists their handles and requests: a
// TCP or UDP handle while it is open (or closing, until the loop's closing phase) and ref'd, a
// connect or name lookup while it is in flight (until its callback has returned).
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';

const NET = new Set(['TCPSocketWrap', 'TCPServerWrap', 'UDPWrap', 'ConnectWrap', 'GetAddrInfoReqWrap', 'GetNameInfoReqWrap']);
const show = (label) => console.log(label.padEnd(28), process.getActiveResourcesInfo().filter((k) => NET.has(k)).join(' '));
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
process.on('exit', (code) => console.log('exit', code));

show('start');
const server = net.createServer();
show('server created');
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
show('listening');
server.unref();
show('server unref');
server.ref();
show('server ref');

const accepted = new Promise((resolve) => server.once('connection', resolve));
const client = net.connect(server.address().port, '127.0.0.1');
show('client made');
await new Promise((resolve) => client.once('connect', () => {
  show('in connect');
  resolve();
}));
const peer = await accepted;
await tick();
show('connected');
client.unref();
show('client unref');
client.ref();
client.destroy();
show('client destroyed');
await new Promise((resolve) => client.once('close', resolve));
// The server's side reads the FIN, ends and closes (allowHalfOpen is false): wait for that
// rather than for a time, which a loaded machine may not keep.
if (!peer.closed) await new Promise((resolve) => peer.once('close', resolve));
await tick();
show('client closed');

const udp = dgram.createSocket('udp4');
show('udp created');
await new Promise((resolve) => udp.bind(0, '127.0.0.1', resolve));
show('udp bound');
udp.unref();
show('udp unref');
udp.ref();
udp.close();
show('udp closing');
await tick();
show('udp closed');

await new Promise((resolve) => {
  dns.lookup('localhost', { family: 4 }, () => {
    show('in lookup callback');
    resolve();
  });
  show('lookup pending');
});
await tick();
show('looked up');
server.close();
show('server closing');
await tick();
show('server closed');
