// handshakeTimeout: a client that connects and never starts the handshake is dropped after the
// timeout ('tlsClientError' ERR_TLS_HANDSHAKE_TIMEOUT), not before; one that completes in
// time is not affected. The elapsed time is printed only as "at least the timeout". With a
// 'tlsClientError' listener Node leaves the socket open: the listener destroys it.
import net from 'node:net';
import tls from 'node:tls';
import { ca, cert, key } from './tls/pki.mjs';

const PORT = 22491;
const TIMEOUT_MS = 300;
const serverLog = [];
const server = tls.createServer({ key: key('localhost'), cert: cert('localhost'), handshakeTimeout: TIMEOUT_MS }, (s) => {
  // The client speaks first and the server answers and ends: a server that closes first could
  // reset a client whose last bytes it has not read (seen on Node 22).
  s.on('data', () => s.end('fast'));
});
let silentSince;
server.on('tlsClientError', (err, socket) => {
  serverLog.push(`socket destroyed by Node: ${socket.destroyed}`);
  socket.destroy();
  const elapsed = Date.now() - silentSince;
  serverLog.push(`tlsClientError ${err.code}: ${err.message}; after the timeout ${elapsed >= TIMEOUT_MS - 1}`);
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

await new Promise((resolve) => {
  const socket = tls.connect({ host: '127.0.0.1', port: PORT, servername: 'localhost', ca }, () => socket.write('go'));
  let text = '';
  socket.on('data', (d) => (text += d));
  socket.on('close', () => {
    console.log(`fast client: got ${text}`);
    resolve();
  });
});
await new Promise((resolve) => {
  silentSince = Date.now();
  const socket = net.connect(PORT, '127.0.0.1');
  socket.on('error', (err) => console.log(`silent client: error ${err.code}`));
  socket.on('close', () => {
    console.log(`silent client: closed after the timeout ${Date.now() - silentSince >= TIMEOUT_MS - 1}`);
    resolve();
  });
});
server.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
