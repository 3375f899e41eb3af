// A socket's first read returns data with the peer's FIN behind it: libuv's partial read ends
// that socket's reads of the poll, and the EOF is read in the next poll. An end() made before
// then (from the 'data' callback, its ticks, or an immediate of this turn) completes its
// shutdown through libuv's pending queue, which the next turn runs before its poll: 'finish'
// comes before 'end'. destroySoon() from an immediate finishes, and the socket is destroyed
// before the EOF is read. Node 20, 22 and 24 alike, stable on a loaded machine.
import net from 'node:net';

const out = [];
async function trial(name, onFirstData, serverSends = (socket) => socket.end('hi')) {
  const log = [];
  const L = (line) => log.push(line);
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('data', () => {});
    socket.on('error', () => {});
    setTimeout(() => serverSends(socket), 5);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise((resolve) => {
    const client = net.connect({ port: server.address().port, host: '127.0.0.1', allowHalfOpen: true });
    let first = true;
    client.on('data', (data) => {
      L(`data ${data}`);
      if (first) {
        first = false;
        onFirstData(client, L);
      }
    });
    client.on('end', () => L('end'));
    client.on('finish', () => L('finish'));
    client.on('error', (error) => L(`error ${error.code}`));
    client.on('close', () => {
      out.push(`${name}: ${log.join(', ')}`);
      server.close(resolve);
    });
  });
}

const fromImmediate = (call) => (client, L) =>
  setImmediate(() => {
    L('immediate');
    call(client);
  });
await trial('end() from an immediate', fromImmediate((client) => client.end()));
await trial('end() in the data callback', (client) => client.end());
await trial('end() from a tick', (client) => process.nextTick(() => client.end()));
await trial('end("x") from an immediate', fromImmediate((client) => client.end('x')));
await trial(
  'end() from an immediate, the FIN later',
  fromImmediate((client) => client.end()),
  (socket) => {
    socket.write('hi');
    setTimeout(() => socket.end(), 3);
  },
);
await trial('destroySoon() from an immediate', fromImmediate((client) => client.destroySoon()));
console.log(out.join('\n'));
