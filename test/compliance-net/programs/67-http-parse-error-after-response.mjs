// A parse error in the same read as a whole request: Node parses the rest of the read only after
// the request's body callback has drained, so the response finishes first and, with no
// 'clientError' listener, the 400 Bad Request still goes out after it; a listener gets the
// read's bytes as rawPacket. The request's 'end' and the socket's 'error' come after the 400.
// A second request pipelined after the body is answered at once (the first response has
// finished), and its response, already sent, gets no 400.
import http from 'node:http';
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21676;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));
const VALID = 'GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\n1';

function serve(name) {
  const server = http.createServer((req, res) => {
    log('server', name, 'request', req.url);
    req.on('end', () => log('server', name, 'request end', req.url));
    res.on('finish', () => log('server', name, 'response finish', req.url));
    res.removeHeader('date');
    res.writeHead(204);
    res.end();
  });
  server.on('connection', (socket) => {
    socket.on('error', (err) => log('server', name, 'socket error', err.code, 'response attached', socket._httpMessage !== null));
    const write = socket.write;
    socket.write = function (data, ...rest) {
      log('server', name, 'socket write', JSON.stringify(String(data).split('\r\n')[0]), 'response attached', this._httpMessage !== null);
      return Reflect.apply(write, this, [data, ...rest]);
    };
  });
  return server;
}

const defaults = serve('defaults');
const listening = serve('listening');
listening.on('clientError', (err, socket) => {
  log('server', 'listening clientError', err.code, JSON.stringify(String(err.rawPacket)), 'response attached', socket._httpMessage !== null);
  socket.end('HTTP/1.1 418 Teapot\r\nConnection: close\r\n\r\n');
});
await new Promise((resolve) => defaults.listen(PORT, '127.0.0.1', resolve));
await new Promise((resolve) => listening.listen(PORT + 1, '127.0.0.1', resolve));

const raw = (port, bytes) => new Promise((resolve) => {
  const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
  let data = '';
  socket.on('data', (chunk) => (data += chunk));
  socket.on('error', (err) => log('client', 'error', err.code));
  socket.on('close', () => {
    log('client', port - PORT, JSON.stringify(data.split('\r\n').filter((line) => line.startsWith('HTTP/'))));
    resolve();
  });
});
await raw(PORT, VALID + 'INVALID');
await raw(PORT + 1, VALID + 'BLAH');
await raw(PORT, VALID + 'GET /second HTTP/1.1\r\nHost: a\r\n\r\nBAD');
defaults.close(() => log('server', 'defaults closed'));
listening.close(() => log('server', 'listening closed'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
