// RST_STREAM both ways: the server refuses a stream (close with REFUSED_STREAM: the client's
// stream errors with ERR_HTTP2_STREAM_ERROR and rstCode 7), the client cancels a stream the
// server is still answering (the server's stream sees 'aborted' and rstCode 8), and the session
// keeps serving other streams afterwards.
import http2 from 'node:http2';

const PORT = 22641;
const serverLog = [];
const server = http2.createServer();
server.on('stream', (stream, headers) => {
  const path = headers[':path'];
  stream.on('error', (err) => serverLog.push(`server ${path} error ${err.code}`));
  stream.on('aborted', () => serverLog.push(`server ${path} aborted`));
  stream.on('close', () => serverLog.push(`server ${path} close rstCode=${stream.rstCode}`));
  if (path === '/refuse') {
    stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
  } else if (path === '/slow') {
    stream.respond({ ':status': 200 });
    stream.write('part');
  } else {
    stream.respond({ ':status': 200 });
    stream.end('ok');
  }
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const session = http2.connect(`http://127.0.0.1:${PORT}`);
const stream = (path) => session.request({ ':path': path });
await new Promise((resolve) => {
  const refused = stream('/refuse');
  refused.on('error', (err) => console.log(`refuse: error ${err.code}: ${err.message}`));
  refused.on('close', () => {
    console.log(`refuse: close rstCode=${refused.rstCode}`);
    resolve();
  });
  refused.end();
});
await new Promise((resolve) => {
  const slow = stream('/slow');
  slow.on('data', () => slow.close(http2.constants.NGHTTP2_CANCEL));
  slow.on('close', () => {
    console.log(`slow: close rstCode=${slow.rstCode} destroyed=${slow.destroyed}`);
    resolve();
  });
  slow.end();
});
await new Promise((resolve) => {
  const after = stream('/after');
  after.setEncoding('utf8');
  after.on('data', (d) => console.log(`after: ${d}`));
  after.on('close', resolve);
  after.end();
});
await new Promise((resolve) => setTimeout(resolve, 20));
session.close();
server.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
