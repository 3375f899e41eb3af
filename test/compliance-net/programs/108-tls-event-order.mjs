// The order of events on each side of one TLS exchange, where Node fixes it: the server's
// 'connection' before 'secureConnection' (and the socket's 'secure'); the client's 'connect'
// (TCP) before 'secureConnect', then data, 'end', 'close'; keylog and OCSP-free session events.
import tls from 'node:tls';
import { format } from 'node:util';
import { ca, cert, key } from './tls/pki.mjs';

const PORT = 22471;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));
const server = tls.createServer({ key: key('localhost'), cert: cert('localhost') });
server.on('connection', () => log('server', 'connection'));
server.on('secureConnection', (socket) => {
  log('server', 'secureConnection authorized=%s', socket.authorized);
  socket.on('data', (d) => {
    log('server', 'data %s', d);
    socket.end('bye');
  });
  socket.on('end', () => log('server', 'end'));
  socket.on('finish', () => log('server', 'finish'));
  socket.on('close', (hadError) => {
    log('server', 'close hadError=%s', hadError);
    server.close(() => log('server', 'closed'));
  });
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const socket = tls.connect({ host: '127.0.0.1', port: PORT, servername: 'localhost', ca });
socket.on('connect', () => log('client', 'connect (tcp) encrypted=%s', socket.encrypted));
socket.on('secureConnect', () => {
  log('client', 'secureConnect authorized=%s', socket.authorized);
  socket.write('hello');
});
socket.on('session', () => {}); // TLS 1.3 tickets arrive after the handshake, in a timing-dependent place
socket.on('data', (d) => log('client', 'data %s', d));
socket.on('end', () => log('client', 'end'));
socket.on('finish', () => log('client', 'finish'));
socket.on('close', (hadError) => log('client', 'close hadError=%s', hadError));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
