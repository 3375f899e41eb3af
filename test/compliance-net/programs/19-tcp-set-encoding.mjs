// setEncoding: 'data' gives strings; a multi-byte character split across two TCP writes (sent
// one round trip apart, so they arrive as two reads) is decoded whole. Also hex and base64.
import net from 'node:net';

const PORT = 21190;
const log = (...args) => console.log(...args);

const euro = Buffer.from('€', 'utf8'); // 3 bytes
let step = 0;
const server = net.createServer((socket) => {
  socket.setEncoding('utf8');
  log('server: readableEncoding', socket.readableEncoding);
  socket.on('data', (data) => {
    log('server: data', typeof data, JSON.stringify(data));
    socket.write('ack');
  });
  socket.on('end', () => {
    socket.end(Buffer.from([0xde, 0xad, 0xbe, 0xef]));
  });
  socket.on('close', () => server.close());
});

server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => {
    client.write(Buffer.concat([Buffer.from('a'), euro.subarray(0, 1)]));
  });
  client.on('data', (data) => {
    step++;
    if (step === 1) {
      log('client: ack 1', String(data));
      client.write(Buffer.concat([euro.subarray(1), Buffer.from('b')]));
    } else if (step === 2) {
      log('client: ack 2', String(data));
      client.setEncoding('hex');
      client.end();
    } else {
      log('client: data', typeof data, data);
    }
  });
  client.on('close', () => log('client: close'));
});
process.on('exit', (code) => log('exit', code));
