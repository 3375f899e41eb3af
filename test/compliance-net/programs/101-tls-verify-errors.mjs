// Certificate verification between a TLS client and server: a CA-signed certificate with the CA
// given (authorized), without it (Node's code for an untrusted chain), for the wrong name
// (ERR_TLS_CERT_ALTNAME_INVALID, with its reason, host and cert), and a self-signed one
// (DEPTH_ZERO_SELF_SIGNED_CERT). Each attempt in turn; the server's tlsClientError codes after.
import tls from 'node:tls';
import { ca, cert, key, selfSigned } from './tls/pki.mjs';

const PORT = 22401;
const PORT_SELF = 22402;
const serverLog = [];
const server = tls.createServer({ key: key('localhost'), cert: cert('localhost') }, (socket) => socket.end('hello'));
server.on('tlsClientError', (err) => serverLog.push(`server tlsClientError ${err.code}`));
const selfSignedServer = tls.createServer(selfSigned, (socket) => socket.end('hello'));
selfSignedServer.on('tlsClientError', (err) => serverLog.push(`self-signed server tlsClientError ${err.code}`));
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));
await new Promise((resolve) => selfSignedServer.listen(PORT_SELF, '127.0.0.1', resolve));

function attempt(label, options) {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', servername: 'localhost', ...options }, () => {
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d) => (text += d));
      socket.on('end', () => {
        console.log(`${label}: connected authorized=${socket.authorized} got ${text}`);
        resolve();
      });
    });
    socket.on('error', (err) => {
      console.log(`${label}: error ${err.code}: ${err.message}`);
      if (err.reason !== undefined) console.log(`  reason ${err.reason}; host ${err.host}; cert CN ${err.cert?.subject?.CN}`);
      resolve();
    });
  });
}

await attempt('with ca', { port: PORT, ca });
await attempt('no ca', { port: PORT });
await attempt('wrong name', { port: PORT, ca, servername: 'db.internal' });
await attempt('ip not in cert', { port: PORT, ca, servername: undefined, host: '127.0.0.1' });
await attempt('self-signed', { port: PORT_SELF });
await attempt('self-signed trusted', { port: PORT_SELF, ca: selfSigned.cert });
await new Promise((resolve) => setTimeout(resolve, 50));
server.close();
selfSignedServer.close();
process.on('exit', (code) => {
  for (const line of serverLog) console.log(line);
  console.log('exit', code);
});
