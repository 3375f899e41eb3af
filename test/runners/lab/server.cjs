const net = require('node:net');
const { randomUUID } = require('node:crypto');
const id = randomUUID();
const server = net.createServer((socket) => socket.end(`${id} ${Date.now()} ${Math.random().toFixed(6)}\n`));
server.listen(7001);
