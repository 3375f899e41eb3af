// One port, several listeners on different addresses of the same machine: 127.0.0.1 and ::1
// (different families) and 127.0.0.1 and 127.0.0.3; a wildcard then conflicts with them.
// Each connection goes to the listener of the address it was made to.
import net from 'node:net';

const PORT = 21430;
const log = (...args) => console.log(...args);

function listen(host) {
  return new Promise((resolve) => {
    const server = net.createServer((socket) => socket.end(host));
    server.once('error', (err) => resolve({ host, err }));
    server.listen(PORT, host, () => resolve({ host, server }));
  });
}

const results = [];
for (const host of ['127.0.0.1', '::1', '127.0.0.3', '0.0.0.0', '::']) {
  const r = await listen(host);
  log('listen', host, r.err ? r.err.code : 'ok');
  results.push(r);
}

for (const host of ['127.0.0.1', '::1', '127.0.0.3']) {
  await new Promise((resolve) => {
    const client = net.connect(PORT, host);
    let reply = '';
    client.setEncoding('utf8');
    client.on('data', (data) => {
      reply += data;
    });
    client.on('end', () => {
      log('connect', host, 'answered by', reply);
      resolve();
    });
  });
}
for (const r of results) r.server?.close();
process.on('exit', (code) => log('exit', code));
