// An async hook's destroy callback hears of a socket's native handle once it is closed (Node
// emits it after libuv closed the handle, from a native immediate): a TCP server, the client
// and accepted sockets, and a UDP socket, each destroyed by a given point of the program.
import asyncHooks from 'node:async_hooks';
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';

const WATCHED = new Set(['TCPWRAP', 'TCPSERVERWRAP', 'UDPWRAP']);
const handles = new Map();
const destroyed = [];
const hook = asyncHooks.createHook({
  init(id, type, _trigger, resource) {
    // Node's own handles only (a socket's native handle has getAsyncId()).
    if (WATCHED.has(type) && typeof resource?.getAsyncId === 'function') handles.set(id, type);
  },
  destroy(id) {
    if (handles.has(id)) destroyed.push(handles.get(id));
  },
}).enable();
// Written without console (its stream would make handles of its own).
const print = (line) => fs.writeSync(1, `${line}\n`);
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

const server = net.createServer((socket) => socket.end('bye'));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
await new Promise((resolve) => {
  const client = net.connect(server.address().port, '127.0.0.1');
  client.resume();
  client.on('close', resolve);
});
await settle();
print(`after a connection closed: ${destroyed.slice().sort().join(',')}`);
await new Promise((resolve) => server.close(resolve));
await settle();
print(`after the server closed: ${destroyed.slice().sort().join(',')}`);
const udp = dgram.createSocket('udp4');
await new Promise((resolve) => udp.bind(0, '127.0.0.1', resolve));
await new Promise((resolve) => udp.close(resolve));
await settle();
print(`after a UDP socket closed: ${destroyed.slice().sort().join(',')}`);
hook.disable();
