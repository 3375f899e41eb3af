/**
 * node:http's server parser on simulated sockets. Node's server hands the socket's stream to its
 * native parser (`parser.consume(socket._handle)`): each read goes straight to the parser, and
 * its body callbacks (and the `kOnExecute` that follows a read) are MakeCallbacks of their own,
 * after which nextTicks and microtasks run. So what a handler queues (`req.pause()` in a tick,
 * the rest of an async handler after `await`) runs after the first piece of body and before
 * the next, and before the message completes.
 * Without this, the parser ran from the socket's 'data' events, all callbacks of one read in a
 * row: a paused request was dumped, `req.complete` was true after the handler's first `await`.
 *
 * Here `consume` on a simulated handle makes its reads go to the parser (net-binding's SimTcp
 * asks `consumerOf`), run as Node's Parser::OnStreamRead runs them, with a drain after each
 * callback; EOF and errors still reach the socket (Node passes them to the previous listener).
 * `unconsume` (a 'data' listener on the socket) gives the reads back to the socket.
 */
import { createRequire } from 'node:module';
import { drainTicks } from './tick-drain.js';
import type { NativeHandle } from './native-handles.js';
import type { PatchSet } from './registry.js';
import type { Shim } from './shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
// node:_http_common exports the binding's class on 20, 22 and 24 (process.binding('http_parser')
// is gone on 24).
const { HTTPParser } = createRequire(__filename)('node:_http_common') as { HTTPParser: any };
const proto = HTTPParser.prototype as Record<string, (this: any, ...args: any[]) => any>;
const real = { consume: proto.consume!, unconsume: proto.unconsume!, getCurrentBuffer: proto.getCurrentBuffer! };
const kOnExecute: number = HTTPParser.kOnExecute | 0;
/**
 * The callbacks Node's parser runs through MakeCallback while it executes (on_body, and Flush for
 * headers that did not fit in one call): nextTicks and microtasks run after each. Message begin,
 * headers complete and message complete run in a scope that skips the queues (kSkipTaskQueues in
 * src/node_http_parser.cc): nothing runs between them and what follows.
 */
const PARSER_CALLBACKS: number[] = ['kOnHeaders', 'kOnBody']
  .map((name) => HTTPParser[name])
  .filter((k): k is number => typeof k === 'number');

const kConsumer = Symbol('dst.httpParserConsumer');
const consumedHandles = new WeakMap<object, NativeHandle>();
/** The buffer of the read being executed, for getCurrentBuffer() from kOnExecute (upgrades). */
const currentBuffers = new WeakMap<object, Buffer>();

/** Whether `handle` is one net-binding simulates (set there, see isSimulatedTcp). */
let isSimulated: (handle: NativeHandle) => boolean = () => false;

export function setSimulatedTcpTest(test: (handle: NativeHandle) => boolean): void {
  isSimulated = test;
}

/** The parser that consumes `handle`'s reads, if any. */
export function consumerOf(handle: NativeHandle): object | undefined {
  return handle[kConsumer] as object | undefined;
}

/**
 * `handle` is closed or released: its parser lets go of it (Node's parsers live on in a free
 * list, and the handle leads to its socket, host and world).
 */
export function releaseConsumer(handle: NativeHandle): void {
  const parser = handle[kConsumer] as object | undefined;
  if (parser === undefined) return;
  delete handle[kConsumer];
  if (consumedHandles.get(parser) === handle) consumedHandles.delete(parser);
}

function consume(this: any, handle: NativeHandle): unknown {
  if (handle === null || typeof handle !== 'object' || !isSimulated(handle)) return Reflect.apply(real.consume, this, [handle]);
  Object.defineProperty(handle, kConsumer, { value: this, configurable: true, writable: true });
  consumedHandles.set(this, handle);
  return undefined;
}

function unconsume(this: any): unknown {
  const handle = consumedHandles.get(this);
  if (handle === undefined) return Reflect.apply(real.unconsume, this, []);
  consumedHandles.delete(this);
  if (handle[kConsumer] === this) delete handle[kConsumer];
  return undefined;
}

function getCurrentBuffer(this: any): unknown {
  const current = currentBuffers.get(this);
  if (current !== undefined) return Buffer.from(current);
  return Reflect.apply(real.getCurrentBuffer, this, []);
}

/** One read of a consumed simulated socket, as Node's Parser::OnStreamRead runs it. */
export function feedParser(parser: any, chunk: Buffer): void {
  if (chunk.length === 0) return; // an empty read means nothing to the parser
  const wrapped: [number, Function][] = [];
  for (const k of PARSER_CALLBACKS) {
    const callback = parser[k];
    if (typeof callback !== 'function') continue;
    wrapped.push([k, callback]);
    parser[k] = function madeCallback(this: unknown, ...args: unknown[]): unknown {
      try {
        return Reflect.apply(callback, this, args);
      } finally {
        drainTicks();
      }
    };
  }
  let ret: unknown;
  try {
    ret = parser.execute(chunk);
  } finally {
    for (const [k, callback] of wrapped) if (typeof parser[k] === 'function' && parser[k].name === 'madeCallback') parser[k] = callback;
  }
  const onExecute = parser[kOnExecute];
  if (typeof onExecute !== 'function') return;
  currentBuffers.set(parser, chunk);
  try {
    onExecute.call(parser, ret);
  } finally {
    currentBuffers.delete(parser);
  }
}

export const httpParserShim: Shim = {
  name: 'http-parser',
  install(patches: PatchSet) {
    patches.replace(proto, 'consume', consume);
    patches.replace(proto, 'unconsume', unconsume);
    patches.replace(proto, 'getCurrentBuffer', getCurrentBuffer);
  },
};
