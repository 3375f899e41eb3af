// An AbortController's signal on http.request: aborting before the response arrives fails
// the request with AbortError (code ABORT_ERR); aborting before the request is even sent does
// the same. The server sees the connection of the first request close.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21740;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer((req, res) => {
  log('server', 'request', req.url);
  req.on('close', () => {
    log('server', 'req close');
    server.close(() => log('server', 'closed'));
  });
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

function attempt(name, controller, abortWhen) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port: PORT, path: `/${name}`, signal: controller.signal }, () => log('client', name, 'response (unexpected)'));
    req.on('error', (err) => log('client', name, 'error', err.name, err.code, err.message));
    req.on('close', () => {
      log('client', name, 'close; destroyed', req.destroyed);
      resolve();
    });
    abortWhen(controller);
  });
}
const already = new AbortController();
already.abort();
await attempt('pre-aborted', already, () => {});
await attempt('in-flight', new AbortController(), (c) => setTimeout(() => c.abort(), 100));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
