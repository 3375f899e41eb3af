// Methods a program puts on a socket's handle itself (Node's test-net-connect-nodelay and
// test-net-connect-keepalive do) are the ones net.js calls when the connection is made with
// noDelay / keepAlive: the simulator's own handle methods must not replace them.
// (They were overwritten when the simulated connect happened.)
import net from 'node:net';

const server = net.createServer((socket) => socket.end());
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
const calls = [];
const client = net.connect({ port, host: '127.0.0.1', noDelay: true, keepAlive: true, keepAliveInitialDelay: 2000 });
client._handle.setNoDelay = (enable) => calls.push(`setNoDelay ${enable}`);
client._handle.setKeepAlive = (enable, delay) => calls.push(`setKeepAlive ${enable} ${delay}`);
await new Promise((resolve) => client.on('connect', resolve));
client.on('end', () => client.destroy());
await new Promise((resolve) => client.on('close', resolve));
server.close();
console.log(calls.join('\n'));
