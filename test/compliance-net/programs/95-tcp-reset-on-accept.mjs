// A server that resets each connection as it accepts it: on loopback the client's handshake is
// complete by then, so its error is ECONNRESET, never ECONNREFUSED (that is for a port nobody
// listens on). (The simulator's reset could overtake the SYN-ACK.)
import net from 'node:net';

const N = 5;
const codes = [];
const server = net.createServer((socket) => socket.resetAndDestroy());
server.listen(0, '127.0.0.1', () => {
  let closed = 0;
  for (let i = 0; i < N; i++) {
    const c = net.connect(server.address().port, '127.0.0.1');
    c.on('error', (e) => codes.push(e.code));
    c.on('close', () => {
      if (++closed === N) {
        console.log('client errors:', [...codes].sort().join(' '));
        server.close();
      }
    });
  }
});
process.on('exit', (code) => console.log('exit', code));
