// stream.setTimeout() on an Http2Stream counts as activity of its session: Node's setStreamTimeout
// refreshes the session's timer (this[kSession][kUpdateTimer]()), so the session's 'timeout' comes
// 300 ms after the stream's setTimeout, not after the session's. (Found by a probe, 2026-12-05.)
import http2 from 'node:http2';
const server = http2.createServer();
server.on('stream', (stream) => stream.respond({ ':status': 200 })); // never ends
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const session = http2.connect(`http://127.0.0.1:${server.address().port}`);
const req = session.request({ ':path': '/' });
req.end();
await new Promise((r) => req.once('response', r));
await new Promise((r) => setTimeout(r, 50)); // let the exchange settle
const t0 = Date.now();
session.setTimeout(300, () => {
  console.log('session timeout postponed by stream.setTimeout:', Date.now() - t0 >= 450);
  session.destroy();
  server.close();
});
setTimeout(() => req.setTimeout(5000), 200);
