// getPeerCertificate() on both sides (subject, issuer, subjectaltname, validity, serial,
// fingerprints, the issuer chain with detailed=true, ending at the self-issued CA),
// getCertificate(), getProtocol(), and getPeerX509Certificate() where Node has it.
import tls from 'node:tls';
import { ca, cert, key } from './tls/pki.mjs';

const PORT = 22451;
const serverLog = [];
const describe = (c) =>
  c === null || c === undefined || Object.keys(c).length === 0
    ? 'none'
    : `subject ${JSON.stringify(c.subject)} issuer ${JSON.stringify(c.issuer)} san ${c.subjectaltname} valid ${c.valid_from} .. ${c.valid_to} serial ${c.serialNumber} sha256 ${c.fingerprint256} ca ${c.ca}`;
const server = tls.createServer({ key: key('localhost'), cert: cert('localhost'), ca, requestCert: true }, (socket) => {
  serverLog.push(`server peer: ${describe(socket.getPeerCertificate())}`);
  serverLog.push(`server own: ${describe(socket.getCertificate())}`);
  socket.end();
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

await new Promise((resolve) => {
  const socket = tls.connect({ host: '127.0.0.1', port: PORT, servername: 'localhost', ca, key: key('client'), cert: cert('client') }, () => {
    console.log(`client protocol ${socket.getProtocol()}`);
    const peer = socket.getPeerCertificate(true);
    console.log(`client peer: ${describe(peer)}`);
    console.log(`client peer's issuer: ${describe(peer.issuerCertificate)}`);
    console.log(`issuer chain ends at itself: ${peer.issuerCertificate.issuerCertificate === peer.issuerCertificate}`);
    console.log(`client own: ${describe(socket.getCertificate())}`);
    if (typeof socket.getPeerX509Certificate === 'function') {
      const x509 = socket.getPeerX509Certificate();
      console.log(`X509Certificate: ${x509.subject.replace(/\n/g, ', ')} checkHost ${x509.checkHost('localhost')} issued by ca ${x509.checkIssued(new (x509.constructor)(ca))}`);
    }
  });
  socket.on('data', () => {});
  socket.on('close', resolve);
});
server.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
