// Plain-text HTTP/2 (h2c): several concurrent streams on one session, request and response
// headers, a body each way, trailers, and the session's remote settings.
import http2 from 'node:http2';

const PORT = 22601;
const serverLog = [];
const server = http2.createServer();
server.on('stream', (stream, headers) => {
  let body = '';
  stream.setEncoding('utf8');
  stream.on('data', (d) => (body += d));
  stream.on('end', () => {
    serverLog.push(`server ${headers[':method']} ${headers[':path']} x-id=${headers['x-id']} body=${body}`);
    stream.respond({ ':status': 200, 'x-echo': headers['x-id'] }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'x-trailer': `t${headers['x-id']}` }));
    stream.end(`reply ${headers['x-id']}`);
  });
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const session = http2.connect(`http://127.0.0.1:${PORT}`);
await new Promise((resolve) => session.once('remoteSettings', resolve));
console.log(`remote settings: maxConcurrentStreams=${session.remoteSettings.maxConcurrentStreams} initialWindowSize=${session.remoteSettings.initialWindowSize}`);
const results = await Promise.all(
  [1, 2, 3].map(
    (id) =>
      new Promise((resolve) => {
        const req = session.request({ ':method': 'POST', ':path': `/item/${id}`, 'x-id': String(id) });
        let status;
        let echo;
        let trailer;
        let text = '';
        req.on('response', (headers) => {
          status = headers[':status'];
          echo = headers['x-echo'];
        });
        req.on('trailers', (t) => (trailer = t['x-trailer']));
        req.setEncoding('utf8');
        req.on('data', (d) => (text += d));
        req.on('end', () => resolve(`stream ${id}: status=${status} x-echo=${echo} body="${text}" trailer=${trailer}`));
        req.end(`body ${id}`);
      }),
  ),
);
results.forEach((line) => console.log(line));
session.close(() => console.log('session closed'));
server.close();
process.on('exit', () => serverLog.sort().forEach((line) => console.log(line)));
