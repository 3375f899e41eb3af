/**
 * node:http fix-ups. Node's own http server and client already run over the simulated TCP
 * handle (net-binding.ts); what remains are the places where node:http reads the real clock or
 * shares state between what are, in the simulation, different machines:
 *
 * - The `Date:` response header comes from internal/http's utcDate(): a cache filled from the
 *   primordial Date and reset by an internal timer, out of reach of the Date shim. Inside a
 *   host, OutgoingMessage.prototype._storeHeader adds the header itself, from the host's clock,
 *   at the exact place Node puts it (after the user's headers), so Node never calls utcDate().
 * - The server's headersTimeout / requestTimeout check (an unref'd interval that asks the native
 *   ConnectionsList which requests expired, measured on real uv_hrtime) would answer 408 after
 *   real milliseconds. For a server listening inside a host, Node's checker is stopped and an
 *   equivalent one runs on virtual time: same interval, same rules as the native expired().
 * - http.globalAgent pools keep-alive sockets by "host:port": two simulated machines sharing
 *   it would send through each other's connections. Inside a host, `Agent.globalAgent` (what
 *   ClientRequest reads per request) is that host incarnation's own agent, built with the
 *   original agent's options.
 *
 * Socket idle timeouts (keepAliveTimeout, server.timeout, agent timeouts) are socket.setTimeout
 * calls, already on virtual time (net-timeouts.ts).
 */
import { createRequire } from 'node:module';
import http from 'node:http';
import type { Socket } from 'node:net';
import { NS_PER_MS } from '../runtime/clock/units.js';
import type { Host } from '../runtime/hosts/host.js';
import { originals } from '../runtime/originals.js';
import type { World } from '../runtime/world.js';
import { currentHost } from './context.js';
import { onSocketReleased } from './net-binding.js';
import { nodeError } from './node-errors.js';
import type { PatchSet } from './registry.js';
import type { Shim } from './shim.js';
import { simulatedTimers } from './timers.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyRecord = Record<PropertyKey, any>;

/** node:http's private kOutHeaders symbol (set to null in the OutgoingMessage constructor). */
const kOutHeaders: symbol | undefined = Object.getOwnPropertySymbols(new http.OutgoingMessage()).find(
  (s) => s.description === 'kOutHeaders',
);

// ---- Date: from the host's clock ----------------------------------------------------------

const realStoreHeader = (http.OutgoingMessage.prototype as AnyRecord)._storeHeader as (
  this: AnyRecord,
  firstLine: string,
  headers: unknown,
) => void;

function isDateName(name: unknown): boolean {
  return typeof name === 'string' && name.length === 4 && name.toLowerCase() === 'date';
}

/**
 * The headers argument of _storeHeader with a Date header appended, in the shape Node iterates
 * (kOutHeaders object, [[name, value], ...], flat [name, value, ...], or a plain object); or
 * undefined when the user supplied a Date header (Node then sends theirs and no other).
 * The kOutHeaders object is changed in place (Node compares it by identity) and `undo` removes
 * the entry again.
 */
function withDate(message: AnyRecord, headers: unknown, date: string): { headers: unknown; undo?: () => void } | undefined {
  // No headers at all (Node's `if (headers)` skips them): the Date header alone.
  if (!headers) return { headers: ['Date', date] };
  if (kOutHeaders !== undefined && headers === message[kOutHeaders]) {
    const table = headers as AnyRecord;
    if (Object.prototype.hasOwnProperty.call(table, 'date')) return undefined;
    table.date = ['Date', date];
    return { headers, undo: () => delete table.date };
  }
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      if (headers.some((entry) => Array.isArray(entry) && isDateName(entry[0]))) return undefined;
      return { headers: [...headers, ['Date', date]] };
    }
    // An odd-length list throws inside Node with the user's own array in the message.
    if (headers.length % 2 !== 0) return { headers };
    for (let i = 0; i < headers.length; i += 2) if (isDateName(headers[i])) return undefined;
    return { headers: [...headers, 'Date', date] };
  }
  if (typeof headers === 'object') {
    const own: AnyRecord = {};
    for (const key in headers as AnyRecord) {
      if (!Object.prototype.hasOwnProperty.call(headers, key)) continue;
      if (isDateName(key)) return undefined;
      own[key] = (headers as AnyRecord)[key];
    }
    own.Date = date;
    return { headers: own };
  }
  return { headers };
}

function storeHeader(this: AnyRecord, firstLine: string, headers: unknown): void {
  const host = currentHost();
  if (host === undefined || !this.sendDate) return Reflect.apply(realStoreHeader, this, arguments);
  const date = new originals.Date(host.dateNowMs()).toUTCString();
  const replaced = withDate(this, headers, date);
  if (replaced === undefined) return Reflect.apply(realStoreHeader, this, arguments);
  // With a Date header among the headers, Node skips utcDate() (its `state.date` is set).
  try {
    Reflect.apply(realStoreHeader, this, [firstLine, replaced.headers]);
  } finally {
    replaced.undo?.();
  }
}

// ---- headersTimeout / requestTimeout on virtual time -------------------------------------

/** One connection of a server listening inside a host, as the native ConnectionsList sees it. */
interface Connection {
  readonly socket: Socket & AnyRecord;
  readonly parser: AnyRecord;
  /** Virtual time the current message began (or the connection opened), in ns. */
  startNs: number;
  headersDone: boolean;
  /** The request whose headers completed, once they have. */
  req: AnyRecord | undefined;
  /** Reported once; not again until its next message begins (as expired() removes it). */
  expired: boolean;
}

interface ServerState {
  readonly host: Host;
  readonly connections: Set<Connection>;
  checker: { unref(): unknown } | undefined;
}

const kState = Symbol('dst.httpServer');

function stateOf(server: AnyRecord): ServerState | undefined {
  return server[kState] as ServerState | undefined;
}

function nowNs(host: Host): number {
  return (host.world as World).nowNs;
}

/** A timeout value as Node 24's checkConnections sanitises it (20/22 pass it through). */
function timeoutMs(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** Node's checkConnections with the native expired() rules, on the host's virtual clock. */
function checkConnections(server: AnyRecord, state: ServerState): void {
  if (!server.listening) {
    // server.close() stopped Node's checker at once; ours notices here.
    stopChecker(state);
    return;
  }
  let headersMs = timeoutMs(server.headersTimeout);
  let requestMs = timeoutMs(server.requestTimeout);
  if (headersMs === 0 && requestMs === 0) return;
  if (requestMs > 0 && headersMs > requestMs) [headersMs, requestMs] = [requestMs, headersMs];
  const now = nowNs(state.host);
  const expired: Connection[] = [];
  for (const connection of state.connections) {
    const { socket, parser } = connection;
    if (socket.destroyed || socket.parser !== parser) {
      state.connections.delete(connection);
      continue;
    }
    if (connection.expired || connection.req?.complete === true) continue;
    const elapsedNs = now - connection.startNs;
    if (
      (!connection.headersDone && headersMs > 0 && elapsedNs > headersMs * NS_PER_MS) ||
      (requestMs > 0 && elapsedNs > requestMs * NS_PER_MS)
    ) {
      connection.expired = true;
      expired.push(connection);
    }
  }
  for (const { socket } of expired) onRequestTimeout(socket);
}

/** Node's onRequestTimeout: its socket 'error' listener answers 408 and destroys the socket. */
function onRequestTimeout(socket: Socket & AnyRecord): void {
  const socketOnError = socket.listeners('error').find((listener) => listener.name === 'socketOnError');
  if (socketOnError === undefined) return; // already failing: Node ignores further errors too
  Reflect.apply(socketOnError, socket, [nodeError(Error, 'ERR_HTTP_REQUEST_TIMEOUT', 'Request timeout')]);
}

function stopChecker(state: ServerState): void {
  if (state.checker !== undefined) simulatedTimers.clearInterval(state.checker);
  state.checker = undefined;
}

/** 'listening' of a server inside a host: replace Node's real-clock checker with ours. */
function onListening(server: AnyRecord, host: Host): void {
  const nodeChecker = Object.getOwnPropertySymbols(server)
    .filter((s) => s.description === 'http.server.connectionsCheckingInterval')
    .map((s) => server[s])[0] as { close?: () => void } | undefined;
  // Its own close(): Node's Timeout clears itself with real timers, ours with simulated ones.
  nodeChecker?.close?.();
  let state = stateOf(server);
  if (state === undefined || state.host !== host) {
    state = { host, connections: new Set(), checker: undefined };
    Object.defineProperty(server, kState, { value: state, configurable: true, writable: true });
  }
  stopChecker(state);
  const intervalMs = server.connectionsCheckingInterval as number;
  const current = state;
  const checker = simulatedTimers.setInterval(() => checkConnections(server, current), intervalMs) as { unref(): unknown };
  checker.unref();
  state.checker = checker;
}

/** 'connection': start tracking the connection the way the native parser does. */
function onConnection(state: ServerState, socket: Socket & AnyRecord): void {
  const parser = socket.parser as AnyRecord | null | undefined;
  if (parser === null || parser === undefined) return;
  const connection: Connection = {
    socket,
    parser,
    startNs: nowNs(state.host),
    headersDone: false,
    req: undefined,
    expired: false,
  };
  state.connections.add(connection);
  const kOnMessageBegin = (parser.constructor as AnyRecord).kOnMessageBegin as number;
  // Node leaves this slot null on server parsers and resets it when the parser is freed.
  parser[kOnMessageBegin] = () => {
    connection.startNs = nowNs(state.host);
    connection.headersDone = false;
    connection.req = undefined;
    connection.expired = false;
  };
  const onIncoming = parser.onIncoming as (req: AnyRecord, keepAlive: boolean) => unknown;
  // Set per connection by Node (and reset when the parser is freed): headers are complete.
  parser.onIncoming = function (this: unknown, req: AnyRecord, keepAlive: boolean) {
    connection.headersDone = true;
    connection.req = req;
    return Reflect.apply(onIncoming, this, [req, keepAlive]);
  };
}

const realEmit = http.Server.prototype.emit;

function serverEmit(this: AnyRecord, event: string | symbol, ...args: unknown[]): boolean {
  const result = Reflect.apply(realEmit, this, [event, ...args]);
  if (event === 'connection') {
    const state = stateOf(this);
    if (state !== undefined && state.host.alive) onConnection(state, args[0] as Socket & AnyRecord);
  } else if (event === 'listening') {
    const host = currentHost();
    if (host !== undefined) onListening(this, host);
  }
  return result;
}

// ---- sockets released by the world ----------------------------------------------------------

const httpCommon = createRequire(__filename)('node:_http_common') as {
  freeParser: (parser: unknown, req: unknown, socket: unknown) => void;
};

/**
 * A socket whose host went down, or still open when the run ended, was released by the world
 * (net-binding's SimTcp.release) without Node ever hearing of a close. Its HTTP parser is a
 * native object Node holds strongly until the socket closes (freeParser, from the 'close'
 * handlers of the server and the client), and it holds the socket and through it the
 * program's state: free it as that close would, without emitting anything.
 */
onSocketReleased((socket) => {
  const parser = socket.parser;
  if (parser === null || parser === undefined) return;
  const req = socket._httpMessage as AnyRecord | null | undefined;
  httpCommon.freeParser(parser, req?.parser === parser ? req : null, socket);
});

// ---- one http.globalAgent per host incarnation --------------------------------------------

const httpAgentModule = createRequire(__filename)('node:_http_agent') as { globalAgent: http.Agent };

const hostAgents = new WeakMap<Host, http.Agent>();

function globalAgentFor(host: Host, original: http.Agent): http.Agent {
  let agent = hostAgents.get(host);
  if (agent === undefined) {
    agent = new http.Agent({ ...(original as AnyRecord).options });
    hostAgents.set(host, agent);
  }
  return agent;
}

export const httpShim: Shim = {
  name: 'http',
  install(patches: PatchSet) {
    patches.replace(http.OutgoingMessage.prototype as AnyRecord, '_storeHeader', storeHeader);
    patches.replace(http.Server.prototype, 'emit', serverEmit as typeof realEmit);

    let original = httpAgentModule.globalAgent;
    patches.defineGetter(httpAgentModule, 'globalAgent', () => {
      const host = currentHost();
      return host === undefined ? original : globalAgentFor(host, original);
    });
    // `http.globalAgent = agent` assigns through to this slot: per host inside a host.
    Object.defineProperty(httpAgentModule, 'globalAgent', {
      set(value: http.Agent) {
        const host = currentHost();
        if (host === undefined) original = value;
        else hostAgents.set(host, value);
      },
    });
  },
};
