// headersTimeout: a client that sends a request line and some headers but never finishes
// them gets 408 Request Timeout and the connection closes; a client that finishes in time is
// served. connectionsCheckingInterval is short so the check runs often.
import http from 'node:http';
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21700;
const logs = { server: [], slow: [], quick: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer({ headersTimeout: 500, requestTimeout: 2000, connectionsCheckingInterval: 100 }, (req, res) => {
  log('server', 'request', req.url);
  res.end('ok');
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

function raw(side, parts) {
  return new Promise((resolve) => {
    const socket = net.connect(PORT, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (data += chunk));
    socket.on('error', (err) => log(side, 'error', err.code));
    socket.on('close', () => {
      log(side, 'closed; first line', JSON.stringify(data.split('\r\n')[0]), 'connection', data.match(/\r\nConnection: ([^\r]*)/)?.[1]);
      resolve();
    });
    (async () => {
      for (const part of parts) {
        if (typeof part === 'number') await new Promise((r) => setTimeout(r, part));
        else socket.write(part);
      }
    })();
  });
}
await Promise.all([
  raw('slow', ['GET /slow HTTP/1.1\r\nHost: x\r\n', 'X-A: 1\r\n']),
  raw('quick', ['GET /quick HTTP/1.1\r\nHost: x\r\n', 100, 'Connection: close\r\n\r\n']),
]);
server.close(() => log('server', 'closed'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.slow, ...logs.quick]) console.log(line);
  console.log('exit', code);
});
