// destroy() without and with an error. The destroying side: 'error' (only with an error) then
// 'close' with hadError; writes after destroy fail with ERR_STREAM_DESTROYED. The peer: a
// FIN ('end', then 'close' without error), since nothing was left unread.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21070;
// Each side keeps its own log (the two sides run concurrently).
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(' ')[0]].push(format(line, ...args));

let round = 0;
const server = net.createServer((socket) => {
  const r = ++round;
  socket.on('data', (data) => {
    log(`server ${r}: data`, String(data));
    if (r === 1) {
      socket.destroy();
      log(`server ${r}: destroyed`, socket.destroyed, socket.readyState);
    } else {
      socket.destroy(new Error('boom'));
      log(`server ${r}: destroyed with error`, socket.destroyed, socket.errored?.message);
    }
    socket.write('late', (err) => log(`server ${r}: late write callback`, err?.code, err?.message));
  });
  socket.on('error', (err) => log(`server ${r}: error`, err.message));
  socket.on('end', () => log(`server ${r}: end (unexpected)`));
  socket.on('close', (hadError) => log(`server ${r}: close`, hadError));
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

for (const r of [1, 2]) {
  await new Promise((resolve) => {
    const client = net.connect(PORT, '127.0.0.1', () => client.write('ping'));
    client.on('data', (data) => log(`client ${r}: data (unexpected)`, String(data)));
    client.on('end', () => log(`client ${r}: end`));
    client.on('error', (err) => log(`client ${r}: error`, err.code));
    client.on('close', (hadError) => {
      log(`client ${r}: close`, hadError);
      resolve();
    });
  });
}
server.close();
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
