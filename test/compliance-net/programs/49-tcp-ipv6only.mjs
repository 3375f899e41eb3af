// listen({ ipv6Only: true }) on '::' covers IPv6 only: an IPv4 wildcard server can share the
// port, and an IPv4 client reaches the IPv4 server while an IPv6 client reaches the other.
// Without ipv6Only, '::' also covers IPv4 and the same pair conflicts.
import net from 'node:net';

const PORT = 21490;
const log = (...args) => console.log(...args);

function listen(options, name) {
  return new Promise((resolve) => {
    const server = net.createServer((socket) => socket.end(name));
    server.once('error', (err) => resolve({ err }));
    server.listen(options, () => resolve({ server }));
  });
}

function ask(host) {
  return new Promise((resolve) => {
    const client = net.connect(PORT, host);
    client.setEncoding('utf8');
    let reply = '';
    client.on('data', (data) => {
      reply += data;
    });
    client.on('error', (err) => resolve(err.code));
    client.on('close', () => resolve(reply));
  });
}

const v6 = await listen({ port: PORT, host: '::', ipv6Only: true }, 'v6-only server');
log('ipv6Only listen', v6.err?.code ?? 'ok', v6.server?.address());
const v4 = await listen({ port: PORT, host: '0.0.0.0' }, 'v4 server');
log('0.0.0.0 beside it', v4.err?.code ?? 'ok');
log('127.0.0.1 ->', await ask('127.0.0.1'));
log('::1 ->', await ask('::1'));
v6.server.close();
v4.server?.close();

const dual = await listen({ port: PORT + 1, host: '::' }, 'dual');
const clash = await listen({ port: PORT + 1, host: '0.0.0.0' }, 'v4');
log('dual-stack then 0.0.0.0', clash.err?.code ?? 'ok');
dual.server.close();
process.on('exit', (code) => log('exit', code));
