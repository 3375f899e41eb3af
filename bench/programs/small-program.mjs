// Figure 6's program: a small plain Node program, as `dst explore` users write them. Two TCP
// "nodes" on 127.0.0.1 in one process: a server that answers each line with its length after a
// short timer, and a client that sends 20 lines, one after the other, then closes both.
import net from 'node:net';

const server = net.createServer((socket) => {
  let buffered = '';
  socket.on('data', (chunk) => {
    buffered += chunk;
    for (let i = buffered.indexOf('\n'); i !== -1; i = buffered.indexOf('\n')) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      setTimeout(() => socket.write(`${line.length}\n`), 1 + Math.floor(Math.random() * 5));
    }
  });
});
server.listen(7100, () => {
  const client = net.connect(7100);
  let sent = 0;
  const send = () => client.write(`request ${sent++} ${Math.random()}\n`);
  client.on('data', () => {
    if (sent < 20) send();
    else {
      client.end();
      server.close();
    }
  });
  send();
});
