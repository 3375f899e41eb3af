// ALPN: the server picks from the client's list in its own order of preference; no overlap
// leaves alpnProtocol false or fails the handshake with Node's code; an ALPN-less client gets false.
import tls from 'node:tls';
import { ca, cert, key } from './tls/pki.mjs';

const PORT = 22431;
const serverLog = [];
const server = tls.createServer({ key: key('localhost'), cert: cert('localhost'), ALPNProtocols: ['h2', 'http/1.1'] }, (socket) => {
  serverLog.push(`server alpnProtocol=${socket.alpnProtocol}`);
  socket.end();
});
server.on('tlsClientError', (err) => serverLog.push(`server tlsClientError ${err.code}`));
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

function connect(label, ALPNProtocols) {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: PORT, servername: 'localhost', ca, ALPNProtocols }, () => {
      console.log(`${label}: alpnProtocol=${socket.alpnProtocol}`);
    });
    socket.on('data', () => {});
    socket.on('close', () => resolve());
    socket.on('error', (err) => console.log(`${label}: error ${err.code}`));
  });
}

await connect('both', ['http/1.1', 'h2']);
await connect('http/1.1 only', ['http/1.1']);
await connect('none in common', ['spdy/3']);
await connect('no ALPN', undefined);
server.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
