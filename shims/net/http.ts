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
 * - A server's request parser: plainly node:http hands the socket to the native parser
 *   (`parser.consume`), which drains nextTicks and microtasks after each piece of body (and each
 *   flush of headers) but not after headers-complete or message-complete. A simulated socket is
 *   not native, so Node parses from its 'data' events, every callback of a read in a row. Inside
 *   a host, once a read's first drain point has run, the server parser's later callbacks are
 *   queued and replayed in later events at the same instant, up to and including each drain
 *   point per event, so the driver's own drain between events stands where Node's is (see
 *   deferParserCallbacks()).
 *
 * Socket idle timeouts (keepAliveTimeout, server.timeout, agent timeouts) are socket.setTimeout
 * calls, already on virtual time (net-timeouts.ts).
 */
import { createRequire } from 'node:module';
import http from 'node:http';
import type { Socket } from 'node:net';
import { NS_PER_MS } from '../../runtime/clock/units.js';
import { originals } from '../../runtime/originals.js';
import type { SimEvent } from '../../runtime/scheduler/event.js';
import type { World } from '../../runtime/world.js';
import { captureContext } from '../async-hooks/async-context.js';
import { currentHost, type Host } from '../context.js';
import { holdSocketReads, isSimulatedSocket, onSocketReleased } from './net-binding.js';
import { nodeError } from '../node-errors.js';
import { mirrorSignature, type PatchSet, privateSymbolFinder } from '../registry.js';
import type { Shim } from '../shim.js';
import { simulatedTimers } from '../timers/timers.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyRecord = Record<PropertyKey, any>;

/** node:http's private kOutHeaders symbol (set to null in the OutgoingMessage constructor). */
const outHeadersSymbol = privateSymbolFinder('kOutHeaders', () => new http.OutgoingMessage());

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
  const kOutHeaders = outHeadersSymbol(message);
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
  /** Reported once; not again until its next message begins (as expired() removes it). */
  expired: boolean;
}

interface ServerState {
  readonly host: Host;
  readonly connections: Set<Connection>;
  checker: { unref(): unknown } | undefined;
  /** Virtual time of the 'listening' that started Node's checking interval (its phase). */
  listenNs: number;
  /** server.connectionsCheckingInterval at that 'listening', as Node's interval keeps it. */
  intervalMs: number;
  server: AnyRecord;
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
    // Node's native list drops a connection when its message completes. The request is read
    // from the parser, never kept here: Node lets a finished request be collected while its
    // keep-alive connection stays open (clearIncoming), and a reference here kept it alive
    // (Node's test-http-server-keepalive-req-gc).
    if (connection.expired || (connection.headersDone && messageComplete(parser))) continue;
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
  // Nothing left to watch: the checker stops until the next connection (an idle server then has
  // nothing scheduled, and a program left with it alone gets the idle report).
  if (state.connections.size === 0) stopChecker(state);
}

/**
 * Whether the parser's current message (its headers complete) has been read to its end. Node
 * clears `parser.incoming` once a finished request's response is done (clearIncoming).
 */
function messageComplete(parser: AnyRecord): boolean {
  const incoming = parser.incoming as AnyRecord | null | undefined;
  return incoming === null || incoming === undefined || incoming.complete === true;
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

/** The value a server keeps under one of node:http's private symbols, found by its description. */
function serverPrivate(server: AnyRecord, description: string): unknown {
  const symbol = Object.getOwnPropertySymbols(server).find((s) => s.description === description);
  return symbol === undefined ? undefined : server[symbol];
}

/** 'listening' of a server inside a host: replace Node's real-clock checker with ours. */
function onListening(server: AnyRecord, host: Host): void {
  const nodeChecker = serverPrivate(server, 'http.server.connectionsCheckingInterval') as { close?: () => void } | undefined;
  // Its own close(): Node's Timeout clears itself with real timers, ours with simulated ones.
  nodeChecker?.close?.();
  let state = stateOf(server);
  if (state === undefined || state.host !== host) {
    state = { host, connections: new Set(), checker: undefined, listenNs: nowNs(host), intervalMs: 0, server };
    Object.defineProperty(server, kState, { value: state, configurable: true, writable: true });
  }
  stopChecker(state);
  state.listenNs = nowNs(host);
  // Node's interval is made at 'listening' with the value then; a later change does not move it.
  state.intervalMs = server.connectionsCheckingInterval as number;
  state.server = server;
  orderConnectionsList(server);
}

/**
 * Arms the connection checker while the server has connections: Node's interval runs from
 * 'listening' for ever (unref'd); ours ticks at the same instants (listen + k x interval) but
 * only while there is something to check, so it costs no event on an idle server.
 */
function armChecker(state: ServerState): void {
  if (state.checker !== undefined) return;
  const server = state.server;
  const intervalMs = state.intervalMs;
  if (!(intervalMs > 0)) return;
  const sinceListenMs = Math.floor((nowNs(state.host) - state.listenNs) / NS_PER_MS);
  const phaseMs = intervalMs - (sinceListenMs % intervalMs);
  const timer = simulatedTimers.setTimeout(() => {
    const checker = simulatedTimers.setInterval(() => checkConnections(server, state), intervalMs) as { unref(): unknown };
    checker.unref();
    state.checker = checker;
    checkConnections(server, state);
  }, phaseMs) as { unref(): unknown };
  timer.unref();
  state.checker = timer;
}

/** 'connection': start tracking the connection the way the native parser does. */
function onConnection(state: ServerState, socket: Socket & AnyRecord): void {
  const parser = socket.parser as AnyRecord | null | undefined;
  if (parser === null || parser === undefined) return;
  acceptedOrder.set(parser, ++acceptedCount);
  const connection: Connection = {
    socket,
    parser,
    startNs: nowNs(state.host),
    headersDone: false,
    expired: false,
  };
  state.connections.add(connection);
  armChecker(state);
  // Node leaves this slot null on server parsers and resets it when the parser is freed.
  parser[kOnMessageBegin] = () => {
    connection.startNs = nowNs(state.host);
    connection.headersDone = false;
    connection.expired = false;
  };
  // Node's native parser consumes only a native stream (a socket of its own, never consumed
  // before): a connection emitted by the program with some other stream is parsed from 'data'.
  if (isSimulatedSocket(socket as AnyRecord)) {
    deferrals.set(parser, { host: state.host, socket, queue: [], replay: undefined, releaseReads: undefined, unconsumed: false });
  }
  const onIncoming = parser.onIncoming as (req: AnyRecord, keepAlive: boolean) => unknown;
  // Set per connection by Node (and reset when the parser is freed): headers are complete.
  parser.onIncoming = function (this: unknown, req: AnyRecord, keepAlive: boolean) {
    connection.headersDone = true;
    return Reflect.apply(onIncoming, this, [req, keepAlive]);
  };
}

// ---- the server parser's drain points ------------------------------------------------------

interface ParserCall {
  fn: Function;
  thisArg: unknown;
  args: unknown[];
  /** Node drains nextTicks and microtasks after it (a MakeCallback from the native parser). */
  drains: boolean;
}

/** A server parser inside a host: its connection, and callbacks still to replay. */
interface ParserDeferral {
  readonly host: Host;
  readonly socket: AnyRecord;
  readonly queue: ParserCall[];
  /** The event that replays the next group of the queue, when armed. */
  replay: SimEvent | undefined;
  /** Releases the socket's reads, held while callbacks of the last read are queued. */
  releaseReads: (() => void) | undefined;
  /** A 'data' or 'readable' listener of the program's: Node would have unconsumed the socket. */
  unconsumed: boolean;
}

const httpCommon = createRequire(__filename)('node:_http_common') as {
  HTTPParser: AnyRecord;
  freeParser: (parser: unknown, req: unknown, socket: unknown) => void;
};
const HTTPParser = httpCommon.HTTPParser;
const parserPrototype = HTTPParser.prototype as AnyRecord;
const realExecute = parserPrototype.execute as (this: AnyRecord, ...args: unknown[]) => unknown;
const realFinish = parserPrototype.finish as (this: AnyRecord, ...args: unknown[]) => unknown;
const kOnMessageBegin = (HTTPParser.kOnMessageBegin as number) | 0;
const kOnHeaders = (HTTPParser.kOnHeaders as number) | 0;
const kOnHeadersComplete = (HTTPParser.kOnHeadersComplete as number) | 0;
const kOnBody = (HTTPParser.kOnBody as number) | 0;
const kOnMessageComplete = (HTTPParser.kOnMessageComplete as number) | 0;
const kOnExecute = (HTTPParser.kOnExecute as number) | 0;
/** The `upgrade` argument of kOnHeadersComplete (versionMajor, versionMinor, headers, method, url, statusCode, statusMessage, upgrade, shouldKeepAlive). */
const HEADERS_COMPLETE_UPGRADE = 7;

/** Each parser callback slot: whether Node drains after it, whether its return value steers the parser. */
const PARSER_SLOTS: ReadonlyArray<{ slot: number; drains: boolean; steers: boolean }> = [
  { slot: kOnMessageBegin, drains: false, steers: false },
  { slot: kOnHeaders, drains: true, steers: false },
  { slot: kOnHeadersComplete, drains: false, steers: true },
  { slot: kOnBody, drains: true, steers: false },
  { slot: kOnMessageComplete, drains: false, steers: false },
];

const deferrals = new WeakMap<object, ParserDeferral>();

/** The deferral of a server parser still serving the connection it was made for. */
function deferralOf(parser: AnyRecord): ParserDeferral | undefined {
  const deferral = deferrals.get(parser);
  if (deferral === undefined) return undefined;
  if (parser.socket !== deferral.socket) {
    // Freed (and maybe reused by another connection or a client): whatever was queued belonged
    // to a parser Node has cleaned, where it would do nothing.
    deferrals.delete(parser);
    deferral.queue.length = 0;
    disarmIfIdle(deferral);
    return undefined;
  }
  return deferral;
}

/**
 * Runs queued callbacks in order: all of them, or (`oneDrain`) up to and including the next
 * drain point. A callback that throws ends the parse, as in Node: the rest is dropped.
 */
function runQueued(deferral: ParserDeferral, oneDrain: boolean): void {
  const queue = deferral.queue;
  while (queue.length > 0) {
    const call = queue.shift()!;
    try {
      Reflect.apply(call.fn, call.thisArg, call.args);
    } catch (error) {
      queue.length = 0;
      throw error;
    }
    if (oneDrain && call.drains) return;
  }
}

/** Runs everything queued (a new read or the socket's end comes after it), then disarms. */
function runAllQueued(deferral: ParserDeferral): void {
  try {
    runQueued(deferral, false);
  } finally {
    disarmIfIdle(deferral);
  }
}

/**
 * Makes sure an event at the current instant will replay the next group of queued callbacks.
 * Armed before a drain point runs, so it comes before whatever that callback schedules (plainly
 * the rest of the parse runs before any of it), and cancelled (never run, never counted) when
 * nothing was queued after all.
 */
function armReplay(deferral: ParserDeferral): void {
  if (deferral.replay !== undefined) return;
  const world = deferral.host.world as World;
  // Plainly the parse runs inside the socket's read callback: its replays continue that read, in
  // this poll, before the immediates its callbacks queue (World.continuePoll).
  deferral.replay = world.continuePoll(
    deferral.host,
    () => {
      deferral.replay = undefined;
      if (deferral.host.state !== 'running') return;
      try {
        if (deferral.queue.length > 0) {
          armReplay(deferral);
          runQueued(deferral, true);
        }
      } finally {
        disarmIfIdle(deferral);
      }
    },
    captureContext('HTTPINCOMINGMESSAGE'),
  );
}

/**
 * Once the queue is empty: cancels the armed replay, and lets the socket's next read (or EOF)
 * through. While callbacks are queued the socket's reads wait, as plainly the next read comes
 * only after the whole parse of the last one (and the drain after it).
 */
function disarmIfIdle(deferral: ParserDeferral): void {
  if (deferral.queue.length > 0) {
    deferral.releaseReads ??= holdSocketReads(deferral.socket);
    return;
  }
  if (deferral.replay !== undefined) {
    (deferral.host.world as World).cancel(deferral.replay);
    deferral.replay = undefined;
  }
  const release = deferral.releaseReads;
  deferral.releaseReads = undefined;
  release?.();
}

/** Whether Node would still have the socket consumed by its native parser. */
function consumed(deferral: ParserDeferral): boolean {
  if (deferral.unconsumed) return false;
  const socket = deferral.socket;
  // node:http's own 'data' listener is the one; Node unconsumes for good at the program's first.
  if (socket.listenerCount('data') > 1 || socket.listenerCount('readable') > 0) deferral.unconsumed = true;
  return !deferral.unconsumed;
}

/**
 * HTTPParser#execute for a server parser inside a host: runs the native parse with its callbacks
 * wrapped. Until the first drain point they run at once; after it they are queued, and
 * replayed by armReplay()'s events. A headers-complete of an upgrade request, whose return value
 * steers the parser, first runs the queue, without drains, and itself at once.
 */
function deferParserCallbacks(this: AnyRecord, ...args: unknown[]): unknown {
  const deferral = deferralOf(this);
  if (deferral === undefined) return Reflect.apply(realExecute, this, args);
  // What an earlier read left queued comes first, in order.
  runAllQueued(deferral);
  if (currentHost() !== deferral.host || !consumed(deferral)) return Reflect.apply(realExecute, this, args);
  let deferring = false;
  const saved = PARSER_SLOTS.map(({ slot }) => this[slot] as unknown);
  const wrappers = PARSER_SLOTS.map(({ drains, steers }, i) => {
    const fn = saved[i];
    if (typeof fn !== 'function') return fn;
    return function parserCallback(this: unknown, ...callArgs: unknown[]): unknown {
      if (deferring) {
        if (!steers || !callArgs[HEADERS_COMPLETE_UPGRADE]) {
          // A server's headers-complete answers 0 unless the request asks for an upgrade: it
          // waits its turn too, so the drain before it runs first, as plainly (a pipelined
          // request after a body found the first response still attached).
          deferral.queue.push({ fn, thisArg: this, args: callArgs, drains });
          return steers ? 0 : undefined;
        }
        runQueued(deferral, false);
        deferring = false;
      }
      if (drains) armReplay(deferral);
      const result = Reflect.apply(fn, this, callArgs);
      if (drains) deferring = true;
      return result;
    };
  });
  PARSER_SLOTS.forEach(({ slot }, i) => {
    this[slot] = wrappers[i];
  });
  try {
    const result = Reflect.apply(realExecute, this, args);
    if (!(result instanceof Error) || deferral.queue.length === 0) return result;
    // A parse error after a drain point: Node finds it only when the parse resumes after that
    // drain, so what the drain ran (a response finishing, say) comes before the error is
    // handled. It is queued after the callbacks it followed, and for now the read reports its
    // bytes parsed (Node's 400 answer went missing: test-http-socket-error-listeners).
    deferral.queue.push({ fn: deliverParseError, thisArg: this, args: [result, args[0]], drains: true });
    return (args[0] as { length: number }).length;
  } finally {
    // A callback may have freed the parser (Node then clears some slots): put back only ours.
    PARSER_SLOTS.forEach(({ slot }, i) => {
      if (this[slot] === wrappers[i]) this[slot] = saved[i];
    });
    disarmIfIdle(deferral);
  }
}

/**
 * A parse error held back by deferParserCallbacks, handed to the server as Node hands a natively
 * consumed socket's: through the parser's kOnExecute callback, with the read's bytes as the
 * current buffer (the error's rawPacket, as socketOnData would give it).
 */
function deliverParseError(this: AnyRecord, error: Error, chunk: unknown): void {
  const onExecute = this[kOnExecute];
  if (typeof onExecute !== 'function') return;
  Object.defineProperty(this, 'getCurrentBuffer', { value: () => chunk, configurable: true, writable: true });
  try {
    Reflect.apply(onExecute as Function, this, [error]);
  } finally {
    delete this.getCurrentBuffer;
  }
}

/** HTTPParser#finish (the socket's end): what is queued runs first. */
function finishAfterQueued(this: AnyRecord, ...args: unknown[]): unknown {
  const deferral = deferralOf(this);
  if (deferral !== undefined) runAllQueued(deferral);
  return Reflect.apply(realFinish, this, args);
}

const realEmit = http.Server.prototype.emit;

/**
 * An HTTP server's emit, tracking its connections after it emitted 'listening' or a connection
 * (its parser is set by then): an http.Server's 'connection', an https.Server's
 * 'secureConnection' (shims/net/https.ts: it is a tls.Server, whose emit is not http.Server's).
 */
export function trackingEmit(real: Function, connectionEvent: 'connection' | 'secureConnection') {
  return function emit(this: AnyRecord, event: string | symbol, ...args: unknown[]): boolean {
    const result = Reflect.apply(real, this, [event, ...args]);
    if (event === connectionEvent) {
      const state = stateOf(this);
      if (state !== undefined && state.host.alive) onConnection(state, args[0] as Socket & AnyRecord);
    } else if (event === 'listening') {
      const host = currentHost();
      if (host !== undefined) onListening(this, host);
    }
    return result;
  };
}

const serverEmit = trackingEmit(realEmit, 'connection');

// ---- sockets released by the world ----------------------------------------------------------

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

// ---- the order of the server's connections list ----------------------------------------------

/**
 * Node's native ConnectionsList keeps a server's parsers in a std::set ordered by address, so
 * all(), idle(), active() and expired() list them in an order that changes from run to run:
 * closeAllConnections() and closeIdleConnections() (which server.close() calls) ended sockets in
 * a different order each run of one seed. Inside a host each list comes back in the order the
 * connections were accepted.
 */
const acceptedOrder = new WeakMap<object, number>();
let acceptedCount = 0;
let patchesOfInstall: PatchSet | undefined;
let connectionsListPatched = false;

function orderConnectionsList(server: AnyRecord): void {
  if (connectionsListPatched || patchesOfInstall === undefined) return;
  const list = serverPrivate(server, 'http.server.connections') as object | null | undefined;
  if (list === undefined || list === null) return;
  connectionsListPatched = true;
  const prototype = Object.getPrototypeOf(list) as AnyRecord;
  for (const name of ['all', 'idle', 'active', 'expired']) {
    const real = prototype[name];
    if (typeof real !== 'function') continue;
    const ordered = function (this: unknown, ...args: unknown[]): unknown {
      const result = Reflect.apply(real as Function, this, args);
      if (currentHost() === undefined || !Array.isArray(result)) return result;
      const rank = (parser: object) => acceptedOrder.get(parser) ?? Number.MAX_SAFE_INTEGER;
      return result.sort((a: object, b: object) => rank(a) - rank(b));
    };
    mirrorSignature(ordered, real as Function);
    patchesOfInstall.replace(prototype, name, ordered);
  }
}

export const httpShim: Shim = {
  name: 'http',
  install(patches: PatchSet) {
    patchesOfInstall = patches;
    connectionsListPatched = false;
    patches.onRestore(() => {
      patchesOfInstall = undefined;
      connectionsListPatched = false;
    });
    patches.replace(http.OutgoingMessage.prototype as AnyRecord, '_storeHeader', storeHeader);
    patches.replace(http.Server.prototype, 'emit', serverEmit as typeof realEmit);
    patches.replace(parserPrototype, 'execute', deferParserCallbacks);
    patches.replace(parserPrototype, 'finish', finishAfterQueued);

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
    // https.globalAgent: shims/net/https.ts, installed when node:https first loads.
  },
};
