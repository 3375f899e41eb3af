// GOAWAY: the server sends one on an open session (with a code and opaque data) a while after
// the first stream closed (sent at once, it can arrive in the same read as the stream's last
// DATA frame, and then the stream errors before its 'end': docs/notes/node-facts.md); the client
// sees 'goaway' with the code and last stream id, and a new request on that session fails with
// Node's code.
import http2 from 'node:http2';

const PORT = 22631;
const serverLog = [];
const server = http2.createServer();
server.on('stream', (stream, headers) => {
  serverLog.push(`server stream ${headers[':path']} id=${stream.id}`);
  stream.respond({ ':status': 200 });
  stream.end('first');
  const session = stream.session;
  stream.on('close', () => setTimeout(() => session.goaway(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM, stream.id, Buffer.from('calm')), 20));
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const session = http2.connect(`http://127.0.0.1:${PORT}`);
session.on('error', (err) => console.log(`session error ${err.code}`));
session.on('goaway', (code, lastStreamID, opaque) => {
  console.log(`goaway code=${code} lastStreamID=${lastStreamID} opaque=${opaque?.toString()}`);
  try {
    const late = session.request({ ':path': '/late' });
    late.on('error', (err) => console.log(`late request error ${err.code}`));
  } catch (err) {
    console.log(`late request throws ${err.code}`);
  }
});
session.on('close', () => {
  console.log('session close');
  server.close(() => console.log('server closed'));
});
const req = session.request({ ':path': '/first' });
req.setEncoding('utf8');
req.on('data', (d) => console.log(`body ${d}`));
req.on('end', () => console.log('first end'));
req.end();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
