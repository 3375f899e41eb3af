// fetch with AbortSignal.timeout against a server that never answers rejects with a
// DOMException TimeoutError; an AbortController aborted with a reason rejects with that
// reason. (Whether the request reached the server before the abort depends on timing, so the
// server's view is not printed; the server closes every connection once the client is done.)
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21840;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer(() => {});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

try {
  await fetch(`http://127.0.0.1:${PORT}/timeout`, { signal: AbortSignal.timeout(300) });
} catch (err) {
  log('client', 'timeout:', err.name, err.message, err instanceof DOMException, err.code);
}
const controller = new AbortController();
setTimeout(() => controller.abort(new Error('stop now')), 100);
try {
  await fetch(`http://127.0.0.1:${PORT}/manual`, { signal: controller.signal });
} catch (err) {
  log('client', 'manual:', err.name, err.message);
}
server.close(() => log('server', 'closed'));
server.closeAllConnections();
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
