// Node's http server feeds the request's bytes straight to its native parser; each piece of body
// it parses is delivered through a callback of its own, after which nextTicks and microtasks
// run. So an async handler's code after its first `await` runs once the first piece of body is
// buffered and before the request completes, and a request paused in its first 'data' is not
// dumped when the response finishes (Node's test-http-pause-no-dump). (The simulator parsed
// from the socket's 'data' events, all of one read in a row.)
import http from 'node:http';

const PORT = 21760;
const log = (...args) => console.log(...args);

function post(path, body) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: PORT, method: 'POST', path }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.end(body);
  });
}

const server = http.createServer(async (req, res) => {
  if (req.url === '/await') {
    log('await: handler, complete', req.complete, 'buffered', req.readableLength);
    await null;
    log('await: after await, complete', req.complete, 'buffered', req.readableLength);
    res.end('ok');
    return;
  }
  let first = true;
  req.on('data', (d) => {
    log('pause: data', d.length);
    if (!first) return;
    first = false;
    req.pause();
    res.end('ok');
    res.on('finish', () => log('pause: finish, data listeners', req.listenerCount('data'), 'paused', req.isPaused()));
  });
});
server.listen(PORT, '127.0.0.1', async () => {
  await post('/await', 'hello body');
  await post('/pause', Buffer.alloc(1024));
  server.close();
});
