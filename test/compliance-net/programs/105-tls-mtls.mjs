// Client certificates (mTLS): requestCert with rejectUnauthorized on the server accepts a
// client certificate signed by its ca (authorized, peer CN) and refuses a client without one;
// with rejectUnauthorized: false the server sees authorized=false and the authorizationError.
import tls from 'node:tls';
import { ca, cert, key, selfSigned } from './tls/pki.mjs';

const STRICT = 22441;
const LENIENT = 22442;
const serverLog = [];
const onSecure = (name) => (socket) => {
  const peer = socket.getPeerCertificate();
  serverLog.push(`${name}: authorized=${socket.authorized} authorizationError=${socket.authorizationError} peer CN=${peer.subject?.CN}`);
  socket.end('welcome');
};
const strict = tls.createServer({ key: key('localhost'), cert: cert('localhost'), ca, requestCert: true, rejectUnauthorized: true }, onSecure('strict'));
strict.on('tlsClientError', (err) => serverLog.push(`strict tlsClientError ${err.code}`));
const lenient = tls.createServer({ key: key('localhost'), cert: cert('localhost'), ca, requestCert: true, rejectUnauthorized: false }, onSecure('lenient'));
await new Promise((resolve) => strict.listen(STRICT, '127.0.0.1', resolve));
await new Promise((resolve) => lenient.listen(LENIENT, '127.0.0.1', resolve));

function connect(label, port, options) {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca, ...options });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (text += d));
    socket.on('close', () => {
      console.log(`${label}: got "${text}"`);
      resolve();
    });
    socket.on('error', (err) => console.log(`${label}: error ${err.code}`));
  });
}

await connect('strict with client cert', STRICT, { key: key('client'), cert: cert('client') });
await connect('strict without cert', STRICT, {});
await connect('strict with self-signed cert', STRICT, selfSigned);
await connect('lenient with client cert', LENIENT, { key: key('client'), cert: cert('client') });
await connect('lenient without cert', LENIENT, {});
await connect('lenient with self-signed cert', LENIENT, selfSigned);
strict.close();
lenient.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
