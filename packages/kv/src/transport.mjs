// A small message transport over node:net, or node:tls with mutual authentication (the `tls`
// option: this node's certificate and key, and the CA its peers' certificates must chain to):
// newline-delimited JSON frames.
//
// Outbound links connect lazily, reconnect after an error, and drop messages while the link is
// down or backed up: the protocols above (VR, the client's retries) tolerate loss. A link that
// hears nothing from its peer for `deadMs` (pings every `pingMs` are answered with pongs) is
// torn down, so a partition is noticed and a healed link comes back quickly instead of waiting
// out TCP's retransmission backoff.
import net from 'node:net';
import tls from 'node:tls';

/**
 * @typedef {{ host: string, port: number }} Address
 * @typedef {{ ca: string, cert: string, key: string }} TlsIdentity
 * @typedef {{ pingMs?: number, deadMs?: number, connectTimeoutMs?: number, reconnectMs?: number, maxBuffered?: number, tls?: TlsIdentity }} LinkOptions
 */

/** Splits a socket's data into JSON messages, one a line; bad lines are ignored. */
export function onFrames(socket, onMessage) {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line === '') continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      onMessage(message);
    }
  });
}

/** Writes one message unless the socket is gone or backed up; answers whether it was written. */
export function writeFrame(socket, message, maxBuffered = 1 << 20) {
  if (socket === undefined || socket.destroyed || !socket.writable || socket.writableLength > maxBuffered) return false;
  socket.write(`${JSON.stringify(message)}\n`);
  return true;
}

/** An outbound link to one address; `resolve()` is read at each connect (addresses may be filled in late). */
export class Link {
  /**
   * @param {() => Address} resolve
   * @param {(message: any) => void} onMessage
   * @param {LinkOptions} [options]
   */
  constructor(resolve, onMessage, options = {}) {
    this.resolve = resolve;
    this.onMessage = onMessage;
    this.pingMs = options.pingMs ?? 100;
    this.deadMs = options.deadMs ?? 1000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 1000;
    this.reconnectMs = options.reconnectMs ?? 100;
    this.maxBuffered = options.maxBuffered ?? 1 << 20;
    this.tls = options.tls;
    /** @type {net.Socket | undefined} */
    this.socket = undefined;
    this.connected = false;
    this.lastHeard = 0;
    this.lastAttempt = -Infinity;
    this.closed = false;
    this.timer = undefined;
  }

  /** Sends a message, or drops it when the link is down (starting a reconnect). */
  send(message) {
    if (this.closed) return false;
    if (this.socket === undefined) this.connect();
    if (this.socket === undefined) return false;
    return writeFrame(this.socket, message, this.maxBuffered);
  }

  connect() {
    const now = performance.now();
    if (this.closed || this.socket !== undefined || now - this.lastAttempt < this.reconnectMs) return;
    this.lastAttempt = now;
    const address = this.resolve();
    if (address === undefined || !address.port) return;
    const socket =
      this.tls === undefined
        ? net.connect({ host: address.host, port: address.port })
        : tls.connect({ host: address.host, port: address.port, servername: address.host, ...this.tls });
    this.socket = socket;
    this.connected = false;
    this.lastHeard = now;
    socket.setNoDelay(true);
    socket.on(this.tls === undefined ? 'connect' : 'secureConnect', () => {
      this.connected = true;
      this.lastHeard = performance.now();
    });
    socket.on('error', () => {}); // 'close' follows
    socket.on('close', () => this.drop(socket));
    onFrames(socket, (message) => {
      this.lastHeard = performance.now();
      if (message.type === 'pong') return;
      this.onMessage(message);
    });
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), this.pingMs);
      this.timer.unref?.();
    }
  }

  tick() {
    const socket = this.socket;
    if (socket === undefined) return;
    const silent = performance.now() - this.lastHeard;
    if (!this.connected ? silent > this.connectTimeoutMs : silent > this.deadMs) {
      socket.destroy();
      this.drop(socket);
      return;
    }
    if (this.connected) writeFrame(socket, { type: 'ping' }, this.maxBuffered);
  }

  drop(socket) {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.connected = false;
  }

  close() {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.socket?.destroy();
    this.socket = undefined;
  }
}

/**
 * A server for links: answers pings, hands every other message to `onMessage(message, reply)`,
 * where reply(m) writes back on the same connection (dropped if it is gone). With `tlsIdentity`
 * it serves TLS and accepts only peers with a certificate from its CA.
 * @param {TlsIdentity} [tlsIdentity]
 */
export function listen(port, host, onMessage, tlsIdentity) {
  const sockets = new Set();
  const onConnection = (socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    const reply = (message) => writeFrame(socket, message);
    onFrames(socket, (message) => {
      if (message.type === 'ping') writeFrame(socket, { type: 'pong' });
      else onMessage(message, reply);
    });
  };
  const server =
    tlsIdentity === undefined
      ? net.createServer(onConnection)
      : tls.createServer({ ...tlsIdentity, requestCert: true, rejectUnauthorized: true }, onConnection);
  // A peer that fails the handshake (or goes away during it) is dropped.
  server.on('tlsClientError', (_err, socket) => socket.destroy());
  const listening = new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address().port);
    });
  });
  listening.catch(() => {});
  return {
    server,
    listening,
    close() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
