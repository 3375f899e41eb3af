// STARTTLS: a plain-text exchange over net, then both sides upgrade the same socket with
// new tls.TLSSocket(socket) (server side with isServer) and continue encrypted.
import net from 'node:net';
import tls from 'node:tls';
import { ca, cert, key } from './tls/pki.mjs';

const PORT = 22501;
const serverLog = [];
const context = tls.createSecureContext({ key: key('localhost'), cert: cert('localhost') });
const server = net.createServer((raw) => {
  raw.once('data', (line) => {
    serverLog.push(`server plain: ${line}`);
    raw.write('GO AHEAD\n', () => {
      const secure = new tls.TLSSocket(raw, { isServer: true, secureContext: context });
      secure.on('secure', () => serverLog.push(`server secure: ${secure.getProtocol()} encrypted=${secure.encrypted}`));
      secure.setEncoding('utf8');
      secure.on('data', (d) => {
        serverLog.push(`server encrypted: ${d}`);
        secure.end(`ack ${d}`);
      });
    });
  });
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

await new Promise((resolve) => {
  const raw = net.connect(PORT, '127.0.0.1', () => raw.write('STARTTLS'));
  raw.once('data', (reply) => {
    console.log(`client plain: ${String(reply).trim()}`);
    const secure = tls.connect({ socket: raw, servername: 'localhost', ca }, () => {
      console.log(`client secureConnect authorized=${secure.authorized}`);
      secure.write('secret');
    });
    secure.setEncoding('utf8');
    secure.on('data', (d) => console.log(`client encrypted: ${d}`));
    secure.on('close', () => resolve());
  });
});
server.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
