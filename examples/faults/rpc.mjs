// A small line-delimited JSON RPC over TCP, shared by the fault examples: what several "nodes" of
// one plain Node program use to talk over 127.0.0.1. Requests carry ids; a client resends what
// is unanswered when its connection breaks (a reset), on a new connection. With `dedup` a server
// answers a resent request from its memory instead of applying it again.
import net from 'node:net';

/** Starts a server on `port`; `handle(request)` returns the reply (without the id). */
export function serve(port, handle, { dedup = true } = {}) {
  const answered = new Map(); // request id -> reply
  const server = net.createServer((socket) => {
    socket.on('error', () => {}); // a reset: the client resends
    lines(socket, (request) => {
      let reply = dedup ? answered.get(request.id) : undefined;
      if (reply === undefined) {
        reply = { ...handle(request), id: request.id };
        if (dedup) answered.set(request.id, reply);
      }
      if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

/** A client of one server: call(request) resolves with the reply, whatever resets happen meanwhile. */
export class Client {
  constructor(name, port) {
    this.name = name;
    this.port = port;
    this.next = 0;
    this.pending = new Map(); // id -> { line, resolve }
    this.socket = undefined;
    this.closed = false;
  }

  call(request) {
    const id = `${this.name}#${++this.next}`;
    const line = `${JSON.stringify({ ...request, id })}\n`;
    return new Promise((resolve) => {
      this.pending.set(id, { line, resolve });
      this.connected().write(line);
    });
  }

  connected() {
    if (this.socket !== undefined) return this.socket;
    const socket = net.connect(this.port, '127.0.0.1');
    this.socket = socket;
    lines(socket, (reply) => {
      const waiter = this.pending.get(reply.id);
      if (waiter === undefined) return;
      this.pending.delete(reply.id);
      waiter.resolve(reply);
    });
    const broken = () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      socket.destroy();
      // Reconnect and resend what is unanswered (it may or may not have been applied).
      if (!this.closed && this.pending.size > 0) setTimeout(() => {
        if (this.socket !== undefined || this.closed || this.pending.size === 0) return;
        const fresh = this.connected();
        for (const { line } of this.pending.values()) fresh.write(line);
      }, 5);
    };
    socket.on('error', broken);
    socket.on('close', broken);
    return socket;
  }

  close() {
    this.closed = true;
    this.socket?.end();
  }
}

function lines(socket, onMessage) {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    buffered += chunk;
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      if (line !== '') onMessage(JSON.parse(line));
    }
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
