import net from 'node:net';
import { randomUUID } from 'node:crypto';
const id = randomUUID();
const server = net.createServer((socket) => {
  socket.end(`${id} ${Date.now()} ${Math.random().toFixed(6)}\n`);
});
server.listen(7000);
globalThis[Symbol.for('lab.boots')] = (globalThis[Symbol.for('lab.boots')] ?? 0) + 1;
