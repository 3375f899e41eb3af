// Timers of HTTP/2 sessions and streams: stream.setTimeout on an idle stream fires (the client
// cancels it), session.setTimeout on an idle session fires, and ping() answers with a payload and
// a non-negative duration (its value depends on timing: only its type is printed).
import http2 from 'node:http2';

const PORT = 22651;
const serverLog = [];
const server = http2.createServer();
server.on('stream', (stream) => {
  stream.respond({ ':status': 200 });
  stream.on('close', () => serverLog.push(`server stream close rstCode=${stream.rstCode}`));
  // never ends: the client's stream timeout cancels it
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const session = http2.connect(`http://127.0.0.1:${PORT}`);
await new Promise((resolve) => session.once('connect', resolve));
await new Promise((resolve) => {
  const payload = Buffer.from('12345678');
  session.ping(payload, (err, duration, echoed) => {
    console.log(`ping: err=${err} duration is a number ${typeof duration === 'number' && duration >= 0} payload ${echoed.toString()}`);
    resolve();
  });
});
await new Promise((resolve) => {
  const started = Date.now();
  const req = session.request({ ':path': '/idle' });
  req.setTimeout(200, () => {
    console.log(`stream timeout after at least 200 ms ${Date.now() - started >= 199}`);
    req.close(http2.constants.NGHTTP2_CANCEL);
  });
  req.on('close', resolve);
  req.end();
});
await new Promise((resolve) => {
  const started = Date.now();
  session.setTimeout(300, () => {
    console.log(`session timeout after at least 300 ms ${Date.now() - started >= 299}`);
    session.close(resolve);
  });
});
server.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
