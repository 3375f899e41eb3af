// SNI: the client's servername reaches the server (socket.servername), an SNICallback picks the
// context per name and the client verifies the certificate it got for that name; addContext
// serves a name without a callback; an unknown name falls back to the default certificate.
import tls from 'node:tls';
import { ca, cert, key } from './tls/pki.mjs';

const PORT = 22421;
const PORT_ADD = 22422;
const serverLog = [];
const contexts = new Map(['tenant-a', 'tenant-b'].map((name) => [name, tls.createSecureContext({ key: key(name), cert: cert(name) })]));
const server = tls.createServer(
  {
    key: key('localhost'),
    cert: cert('localhost'),
    SNICallback(servername, callback) {
      serverLog.push(`SNICallback ${servername}`);
      callback(null, contexts.get(servername));
    },
  },
  (socket) => {
    serverLog.push(`secureConnection servername=${socket.servername}`);
    socket.end(`you asked for ${socket.servername}`);
  },
);
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));
const added = tls.createServer({ key: key('localhost'), cert: cert('localhost') }, (socket) => socket.end(`added ${socket.servername}`));
added.addContext('tenant-b', { key: key('tenant-b'), cert: cert('tenant-b') });
await new Promise((resolve) => added.listen(PORT_ADD, '127.0.0.1', resolve));

function connect(port, servername) {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, ca }, () => {
      const peer = socket.getPeerCertificate();
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d) => (text += d));
      socket.on('end', () => {
        console.log(`${servername}: CN=${peer.subject.CN} authorized=${socket.authorized} "${text}"`);
        resolve();
      });
    });
    socket.on('error', (err) => {
      console.log(`${servername}: error ${err.code}`);
      resolve();
    });
  });
}

await connect(PORT, 'tenant-a');
await connect(PORT, 'tenant-b');
await connect(PORT, 'localhost');
await connect(PORT_ADD, 'tenant-b');
await connect(PORT_ADD, 'tenant-a');
server.close();
added.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
