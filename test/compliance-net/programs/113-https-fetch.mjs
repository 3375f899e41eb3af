// fetch of an https: URL. Global fetch takes no `ca`: this program turns verification off for
// the process (NODE_TLS_REJECT_UNAUTHORIZED=0, which Node warns about once), as a test against a
// self-signed server would; the body, status and headers arrive as over plain http.
import https from 'node:https';
import { cert, key } from './tls/pki.mjs';

process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
process.on('warning', (w) => console.log(`warning: ${w.message}`));
const PORT = 22521;
const server = https.createServer({ key: key('localhost'), cert: cert('localhost') }, (req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => res.end(JSON.stringify({ method: req.method, body, alpn: req.socket.alpnProtocol })));
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));
const got = await fetch(`https://localhost:${PORT}/x`, { method: 'POST', body: 'hello' });
console.log(`fetch: ${got.status} ${await got.text()}`);
const again = await fetch(`https://localhost:${PORT}/y`);
console.log(`fetch again: ${again.status} ${await again.text()}`);
server.close();
server.closeIdleConnections?.();
