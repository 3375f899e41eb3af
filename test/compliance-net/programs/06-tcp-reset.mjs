// socket.resetAndDestroy(): the peer sees ECONNRESET (a read error), the resetting side closes
// without error. Also resetAndDestroy() while still connecting waits for the connection.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21060;
// Each side keeps its own log (the two sides run concurrently: which one reaches a step first
// depends on the kernel and libuv); the server's log is printed first, then the client's.
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.startsWith('server') ? 'server' : 'client'].push(format(line, ...args));

function describe(err) {
  return { message: err.message, code: err.code, errno: err.errno, syscall: err.syscall, stack: err.stack.split('\n')[0] };
}

let round = 0;
const server = net.createServer((socket) => {
  const r = ++round;
  socket.on('data', (data) => log(`server ${r}: data`, String(data)));
  socket.on('end', () => log(`server ${r}: end`));
  socket.on('error', (err) => log(`server ${r}: error`, describe(err)));
  socket.on('close', (hadError) => {
    log(`server ${r}: close`, hadError);
    if (r === 2) server.close();
  });
  if (r === 1) socket.write('hi');
});

await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

// 1: reset after a round trip.
await new Promise((resolve) => {
  const client = net.connect(PORT, '127.0.0.1');
  client.on('data', (data) => {
    log('client 1: data', String(data));
    const ret = client.resetAndDestroy();
    log('client 1: resetAndDestroy returned this', ret === client, client.destroyed);
  });
  client.on('error', (err) => log('client 1: error', describe(err)));
  client.on('close', (hadError) => {
    log('client 1: close', hadError);
    resolve();
  });
});
await new Promise((resolve) => setTimeout(resolve, 50));

// 2: reset requested while connecting.
await new Promise((resolve) => {
  const client = net.connect(PORT, '127.0.0.1');
  client.resetAndDestroy();
  log('client 2: destroyed right after resetAndDestroy()', client.destroyed, client.connecting);
  client.on('connect', () => log('client 2: connect'));
  client.on('error', (err) => log('client 2: error', describe(err)));
  client.on('close', (hadError) => {
    log('client 2: close', hadError);
    resolve();
  });
});

// 3: resetAndDestroy on a socket that never had a handle.
const bare = new net.Socket();
bare.on('error', (err) => log('bare: error', err.code, err.message));
bare.on('close', (hadError) => log('bare: close', hadError));
bare.resetAndDestroy();
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
