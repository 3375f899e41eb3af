// Plain-text HTTP/2 (h2c): each frame Node reads is handed to JavaScript in a callback of its own,
// whose ticks run before the next frame's. A response's HEADERS and DATA frames, written together
// and read together, give the client stream's 'response' (emitted on a tick) before its 'data';
// a request's HEADERS and DATA frames give the server's 'stream' before the body's 'data'.
import http2 from 'node:http2';

const PORT = 22681;
const log = [];
const server = http2.createServer();
server.on('stream', (stream) => {
  log.push('server stream');
  stream.on('data', (d) => log.push(`server data ${d.length}`));
  stream.on('end', () => {
    log.push('server end');
    stream.respond({ ':status': 200 });
    stream.end('response body');
  });
});
server.listen(PORT, '127.0.0.1', () => {
  const client = http2.connect(`http://127.0.0.1:${PORT}`);
  const request = client.request({ ':path': '/', ':method': 'POST' });
  request.on('response', (headers) => {
    log.push(`client response ${headers[':status']}`);
    process.nextTick(() => log.push('client tick after response'));
  });
  request.on('data', (d) => log.push(`client data ${d.length}`));
  request.on('end', () => log.push('client end'));
  request.on('close', () => {
    client.close();
    server.close(() => {
      for (const line of log) console.log(line);
      console.log('done');
    });
  });
  request.end('request body');
});
