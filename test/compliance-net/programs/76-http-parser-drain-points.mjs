// The server's native parser drains nextTicks and microtasks after each piece of body, but not
// after headers-complete or message-complete. So, for a request whose headers and body arrive
// in one read: an async handler resumes after its first await before the request is complete,
// and a request paused in its first 'data' is not dumped when the response finishes (Node's
// test-http-pause-no-dump). The socket's next read (here its EOF) comes after that parse: a
// response written on the request's 'end' is sent before the server sees the client's FIN
// (Node's test-http-chunk-extensions-limit). (The simulator parsed every callback of a read in
// a row.)
import http from 'node:http';
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21670;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer(async (req, res) => {
  if (req.url === '/await') {
    log('server', '/await: complete in the handler', req.complete);
    await null;
    log('server', '/await: complete after one await', req.complete);
    process.nextTick(() => log('server', '/await: complete in a nextTick', req.complete));
    setImmediate(() => {
      log('server', '/await: complete in an immediate', req.complete);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
  } else if (req.url === '/end') {
    let pieces = 0;
    req.on('data', () => pieces++);
    req.on('end', () => {
      log('server', '/end: end after', pieces, 'pieces');
      res.end('bye');
    });
  } else {
    req.once('data', (chunk) => {
      log('server', '/pause: first data', chunk.length, 'complete', req.complete);
      req.pause();
      res.writeHead(200);
      res.end();
      res.on('finish', () => {
        log('server', '/pause: finish, dumped', req._dumped, 'complete', req.complete);
        setImmediate(() => log('server', '/pause: an immediate later, dumped', req._dumped, 'complete', req.complete));
      });
    });
  }
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const post = (path, body) =>
  new Promise((resolve) => {
    const agent = new http.Agent({ keepAlive: false });
    const req = http.request({ port: PORT, host: '127.0.0.1', method: 'POST', path, agent }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        log('client', path, res.statusCode, JSON.stringify(text));
        resolve();
      });
    });
    req.end(body);
  });
await post('/await', 'hello');
await post('/pause', Buffer.alloc(1024, 'x'));
await new Promise((resolve) => {
  // Three chunks and the FIN in one write: one read of the request, then EOF.
  const socket = net.connect(PORT, '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (d) => (text += d));
  socket.on('end', () => {
    log('client', '/end', JSON.stringify(text.split('\r\n')[0]), 'body', JSON.stringify(text.split('\r\n\r\n')[1]));
    resolve();
  });
  socket.end(
    'POST /end HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n' +
      '2\r\naa\r\n2\r\nbb\r\n2\r\ncc\r\n0\r\n\r\n',
  );
});
server.close();
server.closeAllConnections();
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
