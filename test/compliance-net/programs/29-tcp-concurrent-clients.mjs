// Ten clients connect at once; each sends its name and gets it back upper-cased on its own
// connection. Arrival order depends on timing, so results are printed sorted.
import net from 'node:net';

const PORT = 21290;
const log = (...args) => console.log(...args);
let connections = 0;

const server = net.createServer((socket) => {
  connections++;
  socket.setEncoding('utf8');
  let text = '';
  socket.on('data', (data) => {
    text += data;
  });
  socket.on('end', () => socket.end(text.toUpperCase()));
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const names = Array.from({ length: 10 }, (_, i) => `client-${i}`);
const results = await Promise.all(names.map((name) => new Promise((resolve, reject) => {
  const client = net.connect(PORT, '127.0.0.1', () => client.end(name));
  client.setEncoding('utf8');
  let reply = '';
  client.on('data', (data) => {
    reply += data;
  });
  client.on('error', reject);
  client.on('close', () => resolve(`${name} -> ${reply}`));
})));
for (const line of results.sort()) log(line);
log('connections', connections);
server.getConnections((err, count) => {
  log('open connections at the end', err, count);
  server.close(() => log('server closed'));
});
process.on('exit', (code) => log('exit', code));
