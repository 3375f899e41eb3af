// Timeouts and streams over unix sockets: net.connect({ path, timeout }) sets socket.timeout and
// fires 'timeout' once after 'connect' without destroying (readyState open); a server
// socket.setTimeout is pushed back by incoming data and destroy() from its callback gives the
// client a clean 'end'; setTimeout(0) in the connect callback disables the timeout (timeout
// property 0). A 3 MiB file piped through the socket into a file (stream/promises pipeline)
// arrives intact; socket.pipe(socket) echo with async iteration on the client.
// Timing margins (300 ms timeouts vs 5 ms gaps) are wide: with 30/40 ms timeouts loaded runs
// showed 'timeout' before 'connect' and the server timeout firing between 5 ms writes.
// Measured: Node 20, 22, 24 identical, 5 plain + 3 loaded runs each.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { pipeline } from 'node:stream/promises';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const hide = (s) => (typeof s === 'string' ? s.split(dir).join('DIR') : s);
const log = (...args) => console.log(...args.map(hide));
const sockPath = path.join(dir, 's.sock');
const sha = (buf) => crypto.createHash('sha256').update(buf).digest('hex').slice(0, 16);

let onConnection = () => {};
const server = net.createServer((socket) => onConnection(socket));
await new Promise((resolve) => server.listen(sockPath, resolve));

// 1. net.connect({ path, timeout }): the idle timeout fires once after connect when nothing
//    happens; it does not close the socket by itself.
{
  const S = [];
  onConnection = (socket) => {
    socket.on('data', () => {});
    socket.on('end', () => { S.push('server end'); socket.end(); });
  };
  await new Promise((resolve) => {
    const L = [];
    const client = net.connect({ path: sockPath, timeout: 300 });
    log('timeout property', client.timeout);
    client.on('connect', () => L.push('connect'));
    client.on('timeout', () => {
      L.push(`timeout, destroyed ${client.destroyed}, readyState ${client.readyState}`);
      client.end();
    });
    client.on('end', () => L.push('end'));
    client.on('close', (hadError) => {
      L.push(`close ${hadError}`);
      log('connect timeout:', L.join(', '));
      resolve();
    });
    client.resume();
  });
}

// 2. socket.setTimeout on the server side; data activity pushes the timeout back;
//    destroy() from the 'timeout' handler
{
  const S = [];
  let client;
  const done = new Promise((resolve) => {
    onConnection = (socket) => {
      socket.setTimeout(300, () => {
        S.push(`timeout after ${got}`);
        socket.destroy();
      });
      let got = '';
      socket.setEncoding('utf8');
      socket.on('data', (d) => (got += d));
      socket.on('close', (hadError) => {
        S.push(`server close ${hadError}`);
        resolve();
      });
    };
  });
  const C = [];
  client = net.connect(sockPath);
  client.on('end', () => C.push('end'));
  client.on('error', (err) => C.push(`error ${err.code}`));
  const clientClosed = new Promise((resolve) => client.on('close', (h) => { C.push(`close ${h}`); resolve(); }));
  for (let i = 1; i <= 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    client.write(`${i}`);
  }
  await done;
  await clientClosed;
  log('setTimeout server:', S.join(', '));
  log('setTimeout client:', C.join(', '));
}

// 3. setTimeout(0) disables a timeout set by connect({ timeout })
{
  onConnection = (socket) => {
    socket.on('data', () => {});
    setTimeout(() => socket.end(), 60);
  };
  await new Promise((resolve) => {
    const L = [];
    const client = net.connect({ path: sockPath, timeout: 300 }, () => client.setTimeout(0));
    client.on('timeout', () => L.push('timeout (unexpected)'));
    client.on('end', () => { L.push('end'); client.end(); });
    client.resume();
    client.on('close', () => {
      log('setTimeout(0):', L.join(', '), 'timeout property', client.timeout);
      resolve();
    });
  });
}

// 4. a file piped into a unix socket and written back into a file on the other side
{
  const src = path.join(dir, 'src.bin');
  const dst = path.join(dir, 'dst.bin');
  const data = Buffer.alloc(3 * 1024 * 1024 + 17);
  for (let i = 0; i < data.length; i++) data[i] = (i * 31 + (i >> 8)) & 0xff;
  fs.writeFileSync(src, data);
  const received = new Promise((resolve, reject) => {
    onConnection = (socket) => {
      pipeline(socket, fs.createWriteStream(dst)).then(() => resolve(socket), reject);
    };
  });
  const client = net.connect(sockPath);
  await pipeline(fs.createReadStream(src), client);
  const serverSocket = await received;
  const out = fs.readFileSync(dst);
  log('pipe file: size', out.length, 'same', sha(out) === sha(data), 'client bytesWritten', client.bytesWritten, 'server bytesRead', serverSocket.bytesRead);
  if (!client.closed) {
    client.resume();
    await new Promise((resolve) => client.on('close', resolve));
  }
  log('pipe file: client closed', client.closed, 'server socket destroyed', serverSocket.destroyed);
}

// 5. the server pipes its socket back to itself (echo via pipe), client uses async iteration
{
  onConnection = (socket) => socket.pipe(socket);
  const client = net.connect(sockPath);
  const chunks = [];
  client.write('a'.repeat(100000));
  client.end('b');
  for await (const chunk of client) chunks.push(chunk);
  const all = Buffer.concat(chunks).toString();
  log('echo via pipe: length', all.length, 'last', all.at(-1));
}

await new Promise((resolve) => server.close(resolve));
fs.rmSync(dir, { recursive: true });
process.on('exit', (code) => log('exit', code));
