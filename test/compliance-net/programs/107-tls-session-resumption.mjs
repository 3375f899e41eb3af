// Session resumption: a client keeps the session of its first connection ('session' event) and
// offers it on the next (isSessionReused() true), with TLS 1.3 tickets and TLS 1.2 sessions; a
// new connection without it, or to a server with tickets off and no session cache, is not
// resumed. The session's bytes are OpenSSL's and differ per run: only counts are printed.
import crypto from 'node:crypto';
import tls from 'node:tls';
import { ca, cert, key } from './tls/pki.mjs';

const PORT13 = 22461;
const PORT12 = 22462;
const PORT_NO_TICKETS = 22463;
const serverLog = [];
const options = { key: key('localhost'), cert: cert('localhost') };
const serve = (s) => s.on('data', (d) => s.end(`echo ${d}`));
const server13 = tls.createServer(options, serve);
const server12 = tls.createServer({ ...options, maxVersion: 'TLSv1.2' }, serve);
const noTickets = tls.createServer({ ...options, maxVersion: 'TLSv1.2', secureOptions: crypto.constants.SSL_OP_NO_TICKET }, serve);
server12.on('newSession', (id, data, done) => {
  serverLog.push(`server12 newSession id of ${id.length} bytes`);
  done();
});
await new Promise((resolve) => server13.listen(PORT13, '127.0.0.1', resolve));
await new Promise((resolve) => server12.listen(PORT12, '127.0.0.1', resolve));
await new Promise((resolve) => noTickets.listen(PORT_NO_TICKETS, '127.0.0.1', resolve));

function connect(label, port, session) {
  return new Promise((resolve) => {
    let kept;
    let sessions = 0;
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca, session }, () => {
      console.log(`${label}: ${socket.getProtocol()} reused=${socket.isSessionReused()}`);
      socket.write('x');
    });
    socket.on('session', (s) => {
      sessions++;
      kept ??= s;
    });
    socket.on('data', () => {});
    socket.on('close', () => {
      console.log(`${label}: ${sessions} session event(s), a Buffer ${kept === undefined || Buffer.isBuffer(kept)}`);
      resolve(kept);
    });
  });
}

const first13 = await connect('1.3 first', PORT13);
await connect('1.3 resumed', PORT13, first13);
await connect('1.3 without the session', PORT13);
const first12 = await connect('1.2 first', PORT12);
await connect('1.2 resumed', PORT12, first12);
await connect('1.2 resumed again', PORT12, first12);
const firstNoTickets = await connect('no tickets first', PORT_NO_TICKETS);
await connect('no tickets offered again (no session cache)', PORT_NO_TICKETS, firstNoTickets);
server13.close();
server12.close();
noTickets.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
