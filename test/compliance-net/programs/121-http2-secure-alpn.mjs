// HTTP/2 over TLS: http2.createSecureServer with ALPN h2 and allowHTTP1; http2.connect with the
// CA (h2, verified), a connect without it (Node's verification code on the session), and an
// HTTP/1.1 client (https) served through the compatibility API.
import http2 from 'node:http2';
import https from 'node:https';
import { ca, cert, key } from './tls/pki.mjs';

const PORT = 22611;
const serverLog = [];
const server = http2.createSecureServer({ key: key('localhost'), cert: cert('localhost'), allowHTTP1: true }, (req, res) => {
  serverLog.push(`server ${req.httpVersion} ${req.method} ${req.url} alpn=${req.socket.alpnProtocol ?? req.stream?.session?.alpnProtocol}`);
  res.end(`hello over ${req.httpVersion}`);
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

await new Promise((resolve) => {
  const session = http2.connect(`https://localhost:${PORT}`, { ca });
  session.on('connect', () => console.log(`h2 connect: alpn=${session.alpnProtocol} encrypted=${session.encrypted} authorized=${session.socket.authorized}`));
  const req = session.request({ ':path': '/h2' });
  let text = '';
  req.setEncoding('utf8');
  req.on('response', (h) => console.log(`h2 status ${h[':status']}`));
  req.on('data', (d) => (text += d));
  req.on('end', () => {
    console.log(`h2 body "${text}"`);
    session.close(resolve);
  });
});
await new Promise((resolve) => {
  const session = http2.connect(`https://localhost:${PORT}`);
  session.on('error', (err) => {
    console.log(`h2 without ca: session error ${err.code}`);
    resolve();
  });
});
await new Promise((resolve) => {
  https.get(`https://localhost:${PORT}/h1`, { ca, agent: false }, (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (d) => (text += d));
    res.on('end', () => {
      console.log(`https: ${res.statusCode} "${text}" alpn=${res.socket?.alpnProtocol}`);
      resolve();
    });
  });
});
server.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
