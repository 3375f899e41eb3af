// HTTP/2 flow control: the client announces a small initial window, so a 1 MiB response is
// sent in window-sized pieces as the client reads; a paused reader stops the sender (the
// server's write buffer fills and write() returns false), resumed it completes. Byte totals and
// the backpressure flag are printed, not chunk sizes.
import http2 from 'node:http2';

const PORT = 22621;
const SIZE = 1024 * 1024;
const serverLog = [];
const server = http2.createServer();
server.on('stream', (stream) => {
  stream.respond({ ':status': 200 });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  let sawBackpressure = false;
  const pump = () => {
    while (sent < SIZE) {
      sent += chunk.length;
      if (!stream.write(chunk)) {
        sawBackpressure = true;
        stream.once('drain', pump);
        return;
      }
    }
    stream.end();
    serverLog.push(`server sent ${sent} bytes, backpressure seen ${sawBackpressure}`);
  };
  pump();
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const session = http2.connect(`http://127.0.0.1:${PORT}`, { settings: { initialWindowSize: 16 * 1024 } });
const req = session.request({ ':path': '/big' });
let received = 0;
let paused = false;
req.on('data', (d) => {
  received += d.length;
  if (!paused && received >= 256 * 1024) {
    paused = true;
    req.pause();
    setTimeout(() => req.resume(), 50);
  }
});
req.on('end', () => {
  console.log(`client received ${received} bytes, paused once ${paused}`);
  console.log(`local window size setting ${session.localSettings.initialWindowSize}`);
  session.close();
  server.close();
});
req.end();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
