// What a datagram carries: buffer lists, strings, offset/length, empty datagrams, and a burst
// of 20 datagrams (counted and sorted: their arrival order is the network's business).
import dgram from 'node:dgram';
import { once } from 'node:events';

const log = (...args) => console.log(...args);
const server = dgram.createSocket('udp4');
await new Promise((resolve) => server.bind(0, '127.0.0.1', resolve));
const port = server.address().port;
const client = dgram.createSocket('udp4');

async function roundTrip(label, ...args) {
  const sent = new Promise((resolve) => client.send(...args, port, '127.0.0.1', (err, bytes) => resolve([err, bytes])));
  const [[msg, rinfo], [err, bytes]] = await Promise.all([once(server, 'message'), sent]);
  log(label, JSON.stringify(String(msg)), msg.length, rinfo.size, err, bytes, Buffer.isBuffer(msg));
}
await roundTrip('string:', 'plain text');
await roundTrip('list:', [Buffer.from('ab'), 'cd', new Uint8Array([101, 102])]);
await roundTrip('offset/length:', Buffer.from('0123456789'), 2, 5);
await roundTrip('empty:', Buffer.alloc(0));
await roundTrip('empty list:', []);
await roundTrip('utf8:', 'héllo wörld');

const received = [];
const all = new Promise((resolve) => server.on('message', (msg) => {
  received.push(Number(String(msg)));
  if (received.length === 20) resolve();
}));
for (let i = 0; i < 20; i++) client.send(String(i), port, '127.0.0.1');
await all;
log('burst:', received.length, JSON.stringify(received.sort((a, b) => a - b)));
client.close();
server.close();
process.on('exit', (code) => log('exit', code));
