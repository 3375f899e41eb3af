// An HTTP/2 session over a JavaScript duplex (stream.duplexPair), made by the program's top level
// right as node:http2 loads: the session's first frames are written from a native immediate.
// (On Node 24 the simulator's strict mode counted it as a real immediate that escaped, exit 74:
// the load of its HTTP/2 shims held the simulation for a check phase, and the look for escapes
// did not claim native immediates while something held it.)
import http2 from 'node:http2';
import { duplexPair } from 'node:stream';

const server = http2.createServer();
server.on('stream', (stream, headers) => {
  stream.respond({ ':status': 200 });
  stream.end(`path ${headers[':path']}`);
});
const [clientSide, serverSide] = duplexPair();
server.emit('connection', serverSide);
const client = http2.connect('http://localhost:80', { createConnection: () => clientSide });
const req = client.request({ ':path': '/over-a-duplex' });
req.setEncoding('utf8');
let body = '';
req.on('response', (headers) => console.log(`response ${headers[':status']}`));
req.on('data', (chunk) => (body += chunk));
req.on('end', () => {
  console.log(`body: ${body}`);
  client.close();
  server.close();
});
req.end();
