// An h2c server allowing one concurrent stream, and a client that opens two before the server's
// SETTINGS arrive: both HEADERS come in one read, nghttp2 takes the first stream and refuses the
// second (NGHTTP2_REFUSED_STREAM), since the first is still open: its response goes out only in
// the check phase after the read. (The simulator handed the frames over one per event and let a
// check phase run between them, so the first stream's response went out and closed it first, and
// the second was accepted: Node's test-http2-max-concurrent-streams failed.)
import http2 from 'node:http2';

const server = http2.createServer({ settings: { maxConcurrentStreams: 1 } });
let streams = 0;
server.on('stream', (stream) => {
  streams++;
  stream.respond();
  stream.end('hello');
});
server.listen(0, '127.0.0.1', () => {
  const client = http2.connect(`http://127.0.0.1:${server.address().port}`);
  client.on('remoteSettings', (settings) => console.log(`remote maxConcurrentStreams ${settings.maxConcurrentStreams}`));
  let closed = 0;
  const done = () => {
    if (++closed < 2) return;
    console.log(`server saw ${streams} stream(s)`);
    client.close();
    server.close();
  };
  for (const name of ['first', 'second']) {
    const req = client.request({ ':method': 'POST' });
    req.on('response', (headers) => console.log(`${name}: response ${headers[':status']}`));
    req.on('aborted', () => console.log(`${name}: aborted`));
    req.on('error', (error) => console.log(`${name}: ${error.code} ${error.message}`));
    req.resume();
    req.on('end', () => console.log(`${name}: end`));
    req.on('close', () => {
      console.log(`${name}: close`);
      done();
    });
    req.end();
  }
});
