// https between a server and a client: GET and POST through a keep-alive https.Agent (the
// second request reuses the TLS socket, the agent's session cache resumes a new one), a
// request with the wrong CA (Node's verification code on the request), and https.get.
import https from 'node:https';
import { ca, cert, key, selfSigned } from './tls/pki.mjs';

const PORT = 22511;
const serverLog = [];
const server = https.createServer({ key: key('localhost'), cert: cert('localhost') }, (req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    serverLog.push(`${req.method} ${req.url} body=${body} encrypted=${req.socket.encrypted} alpn=${req.socket.alpnProtocol}`);
    res.setHeader('content-type', 'text/plain');
    res.end(`${req.method} ok`);
  });
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca, servername: 'localhost' });
const sockets = new Set();

function request(label, options, body) {
  return new Promise((resolve) => {
    const req = https.request({ host: '127.0.0.1', port: PORT, agent, ...options }, (res) => {
      const socket = res.socket;
      sockets.add(socket);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        console.log(`${label}: ${res.statusCode} ${res.headers['content-type']} "${text}" reused=${socket.isSessionReused()}`);
        resolve();
      });
    });
    req.on('error', (err) => {
      console.log(`${label}: error ${err.code}`);
      resolve();
    });
    req.end(body);
  });
}

await request('GET', { path: '/a' });
await request('POST', { path: '/b', method: 'POST' }, 'payload');
console.log(`one socket for both: ${sockets.size === 1}`);
await request('wrong CA', { path: '/c', agent: false, ca: selfSigned.cert, servername: 'localhost' });
await new Promise((resolve) => {
  https.get(`https://localhost:${PORT}/d`, { ca, agent: false }, (res) => {
    res.resume();
    res.on('end', () => {
      console.log(`https.get: ${res.statusCode}`);
      resolve();
    });
  });
});
agent.destroy();
server.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
