// A peer that speaks plain text: an HTTP request sent to a TLS server fails its handshake
// ('tlsClientError' with Node's code) and the connection closes; a TLS client talking to a
// plain-text server fails with an error of its own. OpenSSL's messages start with a thread
// address that differs per run: only codes are printed.
import net from 'node:net';
import tls from 'node:tls';
import { ca, cert, key } from './tls/pki.mjs';

const TLS_PORT = 22481;
const PLAIN_PORT = 22482;
const serverLog = [];
const server = tls.createServer({ key: key('localhost'), cert: cert('localhost') }, (s) => s.end());
server.on('tlsClientError', (err, socket) => serverLog.push(`tls server: tlsClientError ${err.code} library=${err.library} destroyed=${socket.destroyed}`));
await new Promise((resolve) => server.listen(TLS_PORT, '127.0.0.1', resolve));
const plain = net.createServer((socket) => {
  socket.on('error', () => {});
  socket.on('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
});
await new Promise((resolve) => plain.listen(PLAIN_PORT, '127.0.0.1', resolve));

await new Promise((resolve) => {
  const socket = net.connect(TLS_PORT, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n'));
  let bytes = 0;
  socket.on('data', (d) => (bytes += d.length));
  socket.on('error', (err) => console.log(`plain client: error ${err.code}`));
  socket.on('close', () => {
    console.log(`plain client: closed, ${bytes > 0 ? 'got bytes' : 'got nothing'}`);
    resolve();
  });
});
await new Promise((resolve) => {
  const socket = tls.connect({ host: '127.0.0.1', port: PLAIN_PORT, servername: 'localhost', ca });
  socket.on('secureConnect', () => console.log('tls client: secureConnect (unexpected)'));
  socket.on('error', (err) => console.log(`tls client: error ${err.code} library=${err.library}`));
  socket.on('close', () => {
    console.log('tls client: closed');
    resolve();
  });
});
server.close();
plain.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
