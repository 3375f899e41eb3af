// A TLS 1.3 server that answers the client's first data with a write and destroy() at once: the
// client gets the bytes, as a TCP socket's peer does (they are in the kernel before the close).
// Over a TCPWrap, TLSWrap reads the client's Finished and its first data in one read and one
// cycle, and writes the session tickets together with the answer. Also https's
// `res.end(body); req.socket.destroy()`. (Found by a probe, 2026-12-06: the simulator completed
// the tickets' write in the check phase, the answer waited behind it, and destroy() lost it:
// 0 bytes, and ECONNRESET for https.)
import https from 'node:https';
import tls from 'node:tls';
import { ca, cert, key } from './tls/pki.mjs';

const options = { key: key('localhost'), cert: cert('localhost') };

async function writeThenDestroy(size, maxVersion) {
  const server = tls.createServer({ ...options, ...(maxVersion ? { maxVersion } : {}) }, (socket) => {
    socket.once('data', () => {
      socket.write(Buffer.alloc(size, 65));
      socket.destroy();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise((resolve) => {
    let got = 0;
    const events = [];
    const client = tls.connect({ port: server.address().port, host: '127.0.0.1', ca, servername: 'localhost' }, () => client.write('go'));
    client.on('data', (data) => (got += data.length));
    client.on('end', () => events.push('end'));
    client.on('error', (error) => events.push(`error ${error.code}`));
    client.on('close', () => {
      console.log(`${maxVersion ?? 'TLSv1.3'} write ${size} then destroy: client got ${got}, ${events.join(', ')}`);
      server.close(resolve);
    });
  });
}

async function httpsEndThenDestroy() {
  const server = https.createServer(options, (req, res) => {
    res.end('hello');
    req.socket.destroy();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise((resolve) => {
    https.get({ host: '127.0.0.1', port: server.address().port, ca, servername: 'localhost', agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        console.log(`https end then destroy: ${res.statusCode} ${body}`);
        server.close(resolve);
      });
    }).on('error', (error) => {
      console.log(`https end then destroy: ${error.code} ${error.message}`);
      server.close(resolve);
    });
  });
}

for (const size of [5, 20_000, 200_000]) await writeThenDestroy(size);
await writeThenDestroy(5, 'TLSv1.2');
await httpsEndThenDestroy();
