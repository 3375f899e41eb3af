// AsyncLocalStorage across the network and the thread pool: every callback sees the store of
// the context Node runs it in. A dns.lookup of a name answers in the caller's context, so a
// connect by name (net, http) and everything it starts keep it; an accepted connection's own
// callbacks start in no store (Node makes its wrap outside any callback), while the server's
// 'connection' event has the server's; fs, zlib, crypto, dns and dgram callbacks have their
// caller's. A first timer in another store runs before, so a store that leaked from wherever the
// simulation happened to be started would show.
import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import dgram from 'node:dgram';
import dns from 'node:dns';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';

const als = new AsyncLocalStorage();
const log = [];
const note = (what) => log.push(`${what}: ${als.getStore() ?? '-'}`);
const step = (name, fn) => als.run(name, () => new Promise((resolve) => fn(resolve)));

await step('first timer', (done) => setTimeout(done, 1));
await step('lookup a', (done) => dns.lookup('localhost', () => { note('dns.lookup'); done(); }));
await step('lookup b', (done) => dns.lookup('localhost', { all: true }, () => { note('dns.lookup all'); done(); }));
await step('promises', (done) => dns.promises.lookup('localhost').then(() => { note('dns.promises.lookup'); done(); }));
await step('lookupService', (done) => dns.lookupService('127.0.0.1', 22, () => { note('dns.lookupService'); done(); }));
await step('resolve4', (done) => dns.resolve4('localhost', () => { note('dns.resolve4'); done(); }));
await step('fs', (done) => fs.stat('.', () => { note('fs.stat'); done(); }));
await step('zlib', (done) => zlib.gzip('x', () => { note('zlib.gzip'); done(); }));
await step('pbkdf2', (done) => crypto.pbkdf2('p', 's', 1, 8, 'sha256', () => { note('crypto.pbkdf2'); done(); }));
await step('randomBytes', (done) => crypto.randomBytes(8, () => { note('crypto.randomBytes'); done(); }));

const server = net.createServer();
await step('listen', (done) => server.listen(0, '127.0.0.1', () => { note('listen callback'); done(); }));
server.on('connection', (socket) => {
  note('server connection');
  socket.on('data', () => note('accepted socket data'));
  socket.on('end', () => { note('accepted socket end'); socket.end(); });
});
await step('connect by name', (done) => {
  const client = net.connect({ host: 'localhost', port: server.address().port, family: 4 }, () => {
    note('client connect');
    client.end('hi', () => note('client write callback'));
  });
  client.on('close', () => { note('client close'); done(); });
});
await step('close', (done) => server.close(() => { note('server close callback'); done(); }));

const web = http.createServer((req, res) => { note('http request'); res.end('ok'); });
await step('http listen', (done) => web.listen(0, '127.0.0.1', done));
await step('http get', (done) => http.get({ host: 'localhost', port: web.address().port, family: 4, agent: false }, (res) => {
  note('http response');
  res.resume();
  res.on('end', () => { note('http end'); done(); });
}));
web.close();

await step('udp', (done) => {
  const socket = dgram.createSocket('udp4');
  socket.bind(0, '127.0.0.1', () => {
    note('udp bind callback');
    socket.on('message', () => { note('udp message'); socket.close(done); });
    socket.send('x', socket.address().port, 'localhost', () => note('udp send callback'));
  });
});
console.log(log.join('\n'));
