// TLS, https and HTTP/2 over unix domain sockets: tls.connect({ path }) to a tls server listening
// on a path (the CA-signed localhost certificate verifies, TLS 1.3), https.get({ socketPath })
// with a keep-alive agent (two requests on one connection), and h2c through
// http2.connect(..., { createConnection: () => net.connect(path) }). The native layers (TLSWrap,
// Http2Session) consume the unix socket's handle; Node 20, 22 and 24 alike, stable under load.
import fs from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { ca, cert, key } from './tls/pki.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const out = [];

{
  const sock = path.join(dir, 'tls.sock');
  const server = tls.createServer({ key: key('localhost'), cert: cert('localhost') }, (socket) => {
    socket.on('data', (d) => socket.end(`tls:${d}`));
  });
  await new Promise((resolve) => server.listen(sock, resolve));
  await new Promise((resolve) => {
    const socket = tls.connect({ path: sock, servername: 'localhost', ca }, () => {
      out.push(`tls: secure, authorized ${socket.authorized}, ${socket.getProtocol()}, remoteAddress ${socket.remoteAddress}`);
      socket.write('hi');
    });
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (got += d));
    socket.on('end', () => out.push(`tls: got ${got}`));
    socket.on('close', resolve);
  });
  await new Promise((resolve) => server.close(resolve));
}

{
  const sock = path.join(dir, 'https.sock');
  const server = https.createServer({ key: key('localhost'), cert: cert('localhost') }, (req, res) => {
    res.end(`https ${req.method} ${req.url} on ${req.socket.remoteAddress}`);
  });
  await new Promise((resolve) => server.listen(sock, resolve));
  const agent = new https.Agent({ keepAlive: true, socketPath: sock });
  for (const url of ['/one', '/two']) {
    await new Promise((resolve) => {
      https.get({ socketPath: sock, path: url, agent, servername: 'localhost', ca }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => {
          out.push(`https: ${res.statusCode} ${body}, reused ${res.req.reusedSocket}`);
          resolve();
        });
      });
    });
  }
  agent.destroy();
  await new Promise((resolve) => server.close(resolve));
}

{
  const sock = path.join(dir, 'h2.sock');
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    stream.respond({ ':status': 200, 'x-path': headers[':path'] });
    stream.end('h2c over unix');
  });
  await new Promise((resolve) => server.listen(sock, resolve));
  const session = http2.connect('http://localhost', { createConnection: () => net.connect(sock) });
  await new Promise((resolve) => {
    const req = session.request({ ':path': '/h2' });
    let body = '';
    req.setEncoding('utf8');
    req.on('response', (headers) => out.push(`h2: ${headers[':status']} ${headers['x-path']}`));
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      out.push(`h2: ${body}`);
      resolve();
    });
    req.end();
  });
  session.close();
  await new Promise((resolve) => server.close(resolve));
}

fs.rmSync(dir, { recursive: true });
console.log(out.join('\n'));
