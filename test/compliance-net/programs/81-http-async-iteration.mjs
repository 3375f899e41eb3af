// http.get with the response consumed by async iteration: a chunked body written over time
// arrives whole; breaking out of the loop early destroys the response (its 'close' fires,
// the server's response sees 'close' before finishing).
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21810;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer(async (req, res) => {
  res.on('close', () => log('server', req.url, 'res close; finished', res.writableFinished));
  const count = req.url === '/all' ? 5 : 1000;
  for (let i = 0; i < count && !res.destroyed; i++) {
    res.write(`line ${i}\n`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (!res.destroyed) res.end('last\n');
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const get = (path) => new Promise((resolve, reject) => {
  http.get({ host: '127.0.0.1', port: PORT, path, agent: false }, resolve).on('error', reject);
});
const all = await get('/all');
let text = '';
all.setEncoding('utf8');
for await (const chunk of all) text += chunk;
log('client', 'all:', JSON.stringify(text), 'complete', all.complete);

const early = await get('/early');
early.setEncoding('utf8');
let seen = '';
for await (const chunk of early) {
  seen += chunk;
  if (seen.includes('line 2\n')) break;
}
log('client', 'early: destroyed', early.destroyed, 'complete', early.complete, 'starts with line 0', seen.startsWith('line 0\n'));
await new Promise((resolve) => setTimeout(resolve, 100));
server.close(() => log('server', 'closed'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
