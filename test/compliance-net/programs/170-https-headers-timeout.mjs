// An https.Server enforces headersTimeout as an http.Server does: a TLS client that sends part of
// its headers and stops gets a 408 and the connection closes. (Simulated, an https server's checker
// was Node's own, on the machine's real clock: no 408 ever came, and under CPU load the instant it
// came at followed the machine's speed. Found by a probe, 2026-12-05.)
import https from 'node:https';
import tls from 'node:tls';
import { ca, cert, key } from './tls/pki.mjs';

const log = (...a) => console.log(...a);
const options = { key: key('localhost'), cert: cert('localhost'), headersTimeout: 500, requestTimeout: 2000, connectionsCheckingInterval: 100 };
const server = https.createServer(options, (req, res) => {
  log('server request', req.url);
  res.end('ok');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const t0 = Date.now();
const s = tls.connect({ port: server.address().port, host: '127.0.0.1', servername: 'localhost', ca }, () => s.write('GET /slow HTTP/1.1\r\nHost: x\r\n'));
let data = '';
s.setEncoding('utf8');
s.on('data', (d) => (data += d));
s.on('error', (e) => log('client error', e.code));
const guard = setTimeout(() => {
  log('no 408 within 5 s');
  s.destroy();
}, 5000);
s.on('close', () => {
  clearTimeout(guard);
  const elapsed = Date.now() - t0;
  log('client closed', elapsed >= 500 && elapsed < 1500, JSON.stringify(data.split('\r\n')[0]));
  server.close(() => log('server closed'));
});
process.on('exit', (code) => log('exit', code));
