// rejectUnauthorized: false: the handshake completes, the client sees authorized=false and the
// authorizationError a verifying client would have failed with, and data flows both ways.
import tls from 'node:tls';
import { ca, cert, key, selfSigned } from './tls/pki.mjs';

const PORT = 22411;
const server = tls.createServer({ key: key('localhost'), cert: cert('localhost') }, (socket) => {
  socket.on('data', (d) => socket.end(`echo ${d}`));
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

function connect(label, options) {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: PORT, rejectUnauthorized: false, ...options }, () => {
      console.log(`${label}: secureConnect authorized=${socket.authorized} authorizationError=${socket.authorizationError}`);
      socket.write('ping');
    });
    socket.setEncoding('utf8');
    socket.on('data', (d) => console.log(`${label}: data ${d}`));
    socket.on('close', () => resolve());
    socket.on('error', (err) => console.log(`${label}: error ${err.code}`));
  });
}

await connect('untrusted', {});
await connect('wrong name', { ca, servername: 'other.example' });
await connect('trusted', { ca, servername: 'localhost' });
server.close(() => console.log('server closed'));
