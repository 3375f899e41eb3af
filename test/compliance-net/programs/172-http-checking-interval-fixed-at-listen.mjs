// Node arms an http.Server's headers/request-timeout checker at 'listening' with the interval of
// that moment: a later change of connectionsCheckingInterval does not move it. (Found by a probe,
// 2026-12-05: the simulator read it anew for each connection.)
import http from 'node:http';
import net from 'node:net';
const server = http.createServer({ headersTimeout: 300, requestTimeout: 1000, connectionsCheckingInterval: 100 }, (req, res) => res.end('ok'));
await new Promise((r) => server.listen(0, '127.0.0.1', r));
server.connectionsCheckingInterval = 5000; // after listen: Node's interval is already armed
const t0 = Date.now();
const s = net.connect(server.address().port, '127.0.0.1', () => s.write('GET / HTTP/1.1\r\n'));
let data = '';
s.setEncoding('utf8').on('data', (d) => (data += d));
s.on('close', () => {
  console.log('408 within 1 s:', Date.now() - t0 < 1000, JSON.stringify(data.split('\r\n')[0]));
  server.close();
});
