// HTTP/2 used for the first time from callbacks, not at the top level: a server created and
// bound from an immediate (as @grpc/grpc-js's bindAsync does), a client connecting from a timer,
// one request. Found by a probe (2026-12-06): under register mode the runtime's first-use probe
// of node:http2 left immediates of its own that strict mode took for escaped real work (exit 74).
import http2 from 'node:http2';

const PORT = 22741;
setImmediate(() => {
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    stream.respond({ ':status': 200 });
    stream.end(`hello ${headers[':path']}`);
  });
  server.listen(PORT, '127.0.0.1', () => {
    console.log('listening');
    setTimeout(() => {
      const session = http2.connect(`http://127.0.0.1:${PORT}`);
      const req = session.request({ ':path': '/first' });
      let body = '';
      req.setEncoding('utf8');
      req.on('response', (headers) => console.log(`status ${headers[':status']}`));
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        console.log(`body ${body}`);
        session.close();
        server.close(() => console.log('server closed'));
      });
      req.end();
    }, 5);
  });
});
