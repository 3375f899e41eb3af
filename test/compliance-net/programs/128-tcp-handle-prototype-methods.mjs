// A program's own setNoDelay and setKeepAlive on TCP.prototype (Node's test-net-persistent-nodelay
// does this through the tcp_wrap binding) are the ones net.js's calls reach, before the connection
// (deferred to it) and after, on the client's and the accepted side's handles. (The simulator's
// own handle methods shadowed them: the program's were never called.) Each side keeps its own log:
// which side's calls come first depends on the kernel and libuv.
import net from 'node:net';

const logs = { server: [], client: [] };
let client;
const log = (handle, line) => logs[handle === client?._handle ? 'client' : 'server'].push(line);
const server = net.createServer({ noDelay: true }, (socket) => {
  socket.setKeepAlive(true, 7);
  socket.end();
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const proto = Object.getPrototypeOf(server._handle);
const { setNoDelay, setKeepAlive } = proto;
proto.setNoDelay = function (enable) {
  log(this, `setNoDelay ${enable} ${typeof setNoDelay.call(this, enable)}`);
};
proto.setKeepAlive = function (enable, delay) {
  log(this, `setKeepAlive ${enable} ${delay} ${typeof setKeepAlive.call(this, enable, delay)}`);
};
client = new net.Socket();
client.setNoDelay();
client.setKeepAlive(true, 3000);
client.connect(server.address().port, '127.0.0.1');
await new Promise((resolve) => client.on('connect', resolve));
logs.client.push('connected');
client.setNoDelay(false);
client.setKeepAlive(false);
client.on('end', () => client.destroy());
await new Promise((resolve) => client.on('close', resolve));
await new Promise((resolve) => server.close(resolve));
proto.setNoDelay = setNoDelay;
proto.setKeepAlive = setKeepAlive;
console.log([...logs.server.map((l) => `server: ${l}`), ...logs.client.map((l) => `client: ${l}`)].join('\n'));
