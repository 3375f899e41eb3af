// A DNS server whose UDP reply is truncated (TC): c-ares asks the same question again over TCP,
// to the same address and port, with a two-byte length before each message, and keeps to TCP
// for the query's later tries. Printed: each outcome, and what each server saw (no timing:
// real c-ares adjusts its timeouts to the server's latency).
// - answered over TCP (the reply split over two writes): the TCP answer;
// - nothing listens on TCP: ECONNREFUSED at once;
// - the TCP server closes or resets without answering: the next try opens a new connection;
//   after `tries` connections, ECONNREFUSED;
// - a truncated reply over TCP is taken as it is (no answer: ENODATA);
// - a silent TCP server: ETIMEOUT after the tries, all on one connection;
// - the UDP reply not truncated: no TCP at all;
// - with setLocalAddress(), the datagram and the connection come from that address.
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';

const u16 = (n) => Buffer.from([n >> 8, n & 255]);

function reply(query, truncated, withAnswer) {
  let at = 12;
  while (query[at] !== 0) at += query[at] + 1;
  const question = query.subarray(12, at + 5);
  const header = Buffer.concat([query.subarray(0, 2), u16(0x8180 | (truncated ? 0x0200 : 0)), u16(1), u16(withAnswer ? 1 : 0), u16(0), u16(0)]);
  const answer = withAnswer ? Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 9]) : Buffer.alloc(0);
  return Buffer.concat([header, question, answer]);
}

/** A UDP server on `port` (truncating when `tc`) and, unless `tcpMode` is 'none', a TCP one. */
async function servers(port, tc, tcpMode) {
  const seen = [];
  const udp = dgram.createSocket('udp4');
  udp.on('message', (query, rinfo) => {
    seen.push(`udp query from ${rinfo.address}`);
    udp.send(reply(query, tc, !tc), rinfo.port, rinfo.address);
  });
  await new Promise((resolve) => udp.bind(port, '127.0.0.1', resolve));
  const tcp = net.createServer((socket) => {
    seen.push(`tcp connection from ${socket.remoteAddress}`);
    socket.on('error', () => {});
    if (tcpMode === 'close') return socket.end();
    if (tcpMode === 'reset') return socket.resetAndDestroy();
    if (tcpMode === 'silent') return;
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const query = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + query.length);
        seen.push(`tcp query of ${query.length} bytes`);
        const message = reply(query, tcpMode === 'tc', tcpMode !== 'tc');
        const framed = Buffer.concat([u16(message.length), message]);
        socket.write(framed.subarray(0, 1));
        setTimeout(() => socket.write(framed.subarray(1)), 5);
      }
    });
    socket.on('end', () => {
      seen.push('tcp end');
      socket.end();
    });
  });
  if (tcpMode !== 'none') await new Promise((resolve) => tcp.listen(port, '127.0.0.1', resolve));
  return {
    seen,
    close: () => {
      udp.close();
      if (tcpMode !== 'none') tcp.close();
    },
  };
}

let port = 25330;
async function attempt(label, tc, tcpMode, options, localAddress) {
  const server = await servers(++port, tc, tcpMode);
  const resolver = new dns.promises.Resolver(options);
  if (localAddress !== undefined) resolver.setLocalAddress(localAddress);
  resolver.setServers([`127.0.0.1:${port}`]);
  let outcome;
  try {
    outcome = JSON.stringify(await resolver.resolve4('big.test', { ttl: true }));
  } catch (error) {
    outcome = `${error.code} ${error.syscall} ${error.hostname}`;
  }
  // The connection's end reaches the server a moment after the answer.
  await new Promise((resolve) => setTimeout(resolve, 50));
  server.close();
  console.log(label, '->', outcome, '|', server.seen.join(', '));
}

await attempt('answered over tcp', true, 'answer', { timeout: 1000, tries: 2 });
await attempt('nothing on tcp', true, 'none', { timeout: 1000, tries: 3 });
await attempt('tcp closes, 1 try', true, 'close', { timeout: 1000, tries: 1 });
await attempt('tcp closes, 3 tries', true, 'close', { timeout: 1000, tries: 3 });
await attempt('tcp resets, 2 tries', true, 'reset', { timeout: 1000, tries: 2 });
await attempt('truncated over tcp', true, 'tc', { timeout: 1000, tries: 2 });
await attempt('silent tcp, 2 tries', true, 'silent', { timeout: 100, tries: 2 });
await attempt('not truncated', false, 'answer', { timeout: 1000, tries: 2 });
// setLocalAddress(): both the datagram and the TCP connection come from that address.
await attempt('from 127.0.0.2', true, 'answer', { timeout: 1000, tries: 2 }, '127.0.0.2');
process.on('exit', (code) => console.log('exit', code));
