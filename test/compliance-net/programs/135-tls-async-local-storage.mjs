// AsyncLocalStorage over TLS, HTTPS and HTTP/2 connected by name: the client's callbacks keep
// the store of the call that connected (its lookup answers in it), the server's the store it
// listened in; a first timer in another store runs before, so a store that leaked from wherever
// the simulation was started would show.
import { AsyncLocalStorage } from 'node:async_hooks';
import tls from 'node:tls';
import https from 'node:https';
import http2 from 'node:http2';
import { ca, cert, key } from './tls/pki.mjs';
const als = new AsyncLocalStorage();
const log = [];
const note = (what) => log.push(`${what}: ${als.getStore() ?? '-'}`);
const step = (name, fn) => als.run(name, () => new Promise((resolve) => fn(resolve)));
await step('first', (d) => setTimeout(d, 1));
const server = tls.createServer({ key: key('localhost'), cert: cert('localhost') }, (s) => { note('secure connection'); s.on('data', () => note('server data')); s.end('hello'); });
await step('listen', (d) => server.listen(0, '127.0.0.1', d));
await step('tls client', (d) => { const s = tls.connect({ host: 'localhost', port: server.address().port, ca, family: 4 }, () => { note('secureConnect'); s.write('x'); }); s.on('data', () => note('client data')); s.on('close', () => { note('client close'); d(); }); });
server.close();
const web = https.createServer({ key: key('localhost'), cert: cert('localhost') }, (req, res) => { note('https request'); res.end('ok'); });
await step('https listen', (d) => web.listen(0, '127.0.0.1', d));
await step('https get', (d) => https.get({ host: 'localhost', port: web.address().port, ca, family: 4, agent: false }, (res) => { note('https response'); res.resume(); res.on('end', () => { note('https end'); d(); }); }));
web.close();
const h2 = http2.createSecureServer({ key: key('localhost'), cert: cert('localhost') });
h2.on('stream', (stream) => { note('h2 stream'); stream.respond({ ':status': 200 }); stream.end('ok'); });
await step('h2 listen', (d) => h2.listen(0, '127.0.0.1', d));
await step('h2 client', (d) => { const c = http2.connect(`https://localhost:${h2.address().port}`, { ca }); c.on('connect', () => note('h2 connect')); const r = c.request({ ':path': '/' }); r.on('response', () => note('h2 response')); r.resume(); r.on('end', () => { note('h2 end'); c.close(); d(); }); });
h2.close();
console.log(log.join('\n'));
