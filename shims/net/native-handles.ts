/**
 * What net-binding and dgram-binding share about the native handles (TCPWrap, UDPWrap) that
 * simulated sockets sit on. A native handle not closed natively is a GC root, so the world
 * holds every handle a host made (world.natives.hold) and releases it when the host goes down or
 * the run ends: first as a raw handle (made, not yet simulated), then as its simulation state.
 */
import { UV } from '../../runtime/network/errno.js';
import type { NativeResource } from '../../runtime/hosts/native-resources.js';
import type { World } from '../../runtime/world.js';
import { currentHost, forgetHost, type Host } from '../context.js';
import { realActiveRequests, realActiveResourcesInfo } from '../process/real-resources.js';

export type NativeHandle = Record<PropertyKey, any>;

/** Gives a handle its own (non-enumerable) method or value, shadowing its prototype's. */
export function own(handle: NativeHandle, name: string, value: unknown): void {
  Object.defineProperty(handle, name, { value, writable: true, configurable: true, enumerable: false });
}

/**
 * A handle as process.getActiveResourcesInfo() sees it: Node lists every handle that is alive
 * (not closed yet: a closing one counts until its loop's closing phase) and holds a ref
 * (HandleWrap::HasRef, whether active or not), under its C++ class's name, in creation order.
 */
export interface ListedHandle extends NativeResource {
  readonly handle: NativeHandle;
  /** Its name ('TCPSocketWrap', 'TCPServerWrap', 'UDPWrap') while it holds a ref, else undefined. */
  listedAs(): string | undefined;
}

/** When each handle a host made was created, across its raw and simulated lives. */
const creationOrder = new WeakMap<NativeHandle, number>();
let handlesCreated = 0;

function noteCreated(handle: NativeHandle): void {
  if (!creationOrder.has(handle)) creationOrder.set(handle, handlesCreated++);
}

function isListed(resource: NativeResource): resource is ListedHandle {
  return typeof (resource as Partial<ListedHandle>).listedAs === 'function';
}

/** Handles the program closed during an event, with the name each had (see noteClosing). */
const closingHandles = new WeakMap<World, { event: number; host: Host; handle: NativeHandle; name: string }[]>();

/**
 * The program is closing `resource`: Node goes on listing it until the closing phase of the loop
 * turn, after the callback that closed it and its ticks. Here: until the world's next event.
 * Call before the resource is dropped from the world.
 */
export function noteClosing(host: Host, resource: ListedHandle): void {
  const name = resource.listedAs();
  const world = host.world;
  const event = world.eventsRun;
  const list = (closingHandles.get(world) ?? []).filter((entry) => entry.event === event);
  if (name !== undefined) list.push({ event, host, handle: resource.handle, name });
  closingHandles.set(world, list);
}

/**
 * What Node would list for the handles of `host` (of every host when undefined) in
 * getActiveResourcesInfo(): one name per handle that is open, or closed during this event, and
 * holds a ref; in creation order.
 */
export function listedHandles(world: World, host: Host | undefined): string[] {
  const found: { order: number; name: string }[] = [];
  for (const resource of world.natives.held(host)) {
    if (!isListed(resource)) continue;
    const name = resource.listedAs();
    if (name !== undefined) found.push({ order: creationOrder.get(resource.handle) ?? -1, name });
  }
  for (const entry of closingHandles.get(world) ?? []) {
    if (entry.event !== world.eventsRun || entry.host.state !== 'running') continue;
    if (host !== undefined && entry.host !== host) continue;
    found.push({ order: creationOrder.get(entry.handle) ?? -1, name: entry.name });
  }
  found.sort((a, b) => a.order - b.order);
  return found.map((entry) => entry.name);
}

/**
 * A request Node would list: from the call until its completion callback has returned, and
 * through the ticks and promise jobs that callback queued (Node deletes a ReqWrap after its
 * callback scope, which drains them): here, until the world's next event or the next completion.
 */
interface ListedRequest {
  readonly host: Host;
  readonly name: string;
  /** The event its completion ran in; -1 while in flight. */
  doneEvent: number;
}

/** The requests of a world that Node would list, in the order they were made, and those done. */
interface WorldRequests {
  readonly listed: Set<ListedRequest>;
  /** Completed, still listed until the event they completed in is over. */
  done: ListedRequest[];
}

const worldRequests = new WeakMap<World, WorldRequests>();
/** The requests with completed entries still listed, if any (one world runs at a time). */
let withDone: WorldRequests | undefined;

/** Forgets the completed requests of `requests`: all, or those completed before event `keep`. */
function dropDone(requests: WorldRequests, keep: number): void {
  if (requests.done.length === 0) return;
  const still: ListedRequest[] = [];
  for (const entry of requests.done) {
    if (entry.doneEvent === keep) still.push(entry);
    else requests.listed.delete(entry);
  }
  requests.done = still;
  if (still.length === 0 && withDone === requests) withDone = undefined;
}

/**
 * A request starts (a connect, a shutdown, a write waiting for the window, a name lookup, an fs
 * call the simulation answers or holds): Node lists it in getActiveResourcesInfo() under `name`
 * (its ReqWrap's class) from the call until its completion callback, and what that callback
 * queued, has run. Returns the function to call when the completion has run (once is enough;
 * more are no-ops). A crashed host's requests are not listed.
 */
export function trackRequest(host: Host, name: string): () => void {
  const world = host.world;
  let requests = worldRequests.get(world);
  if (requests === undefined) worldRequests.set(world, (requests = { listed: new Set(), done: [] }));
  const entry: ListedRequest = { host, name, doneEvent: -1 };
  requests.listed.add(entry);
  const all = requests;
  return () => {
    if (entry.doneEvent !== -1 || !all.listed.has(entry)) return;
    const event = world.eventsRun;
    // Those of earlier events are over (and must not pile up in a run that never lists).
    if (all.done.length > 0 && all.done[0]!.doneEvent !== event) dropDone(all, event);
    entry.doneEvent = event;
    all.done.push(entry);
    withDone = all;
  };
}

/**
 * Runs a request's completion; Node lists the request until it, and the ticks it queued, have
 * run (see trackRequest). Requests completed before it are no longer listed: their callback
 * scopes have ended.
 */
export function completeListed(listed: (() => void) | undefined, complete: () => void): void {
  if (withDone !== undefined) dropDone(withDone, -2);
  try {
    complete();
  } finally {
    listed?.();
  }
}

/**
 * Real requests in Node's own list that a tracked entry stands for: request objects the shims
 * answer without libuv (the simulated disk's FSReqCallbacks: never dispatched, Node lists them
 * until they are collected) or deliver later than Node completes them (held fs calls), and, by
 * count per class, the requests Node makes in C++ for held promise calls (FSReqPromise, CloseReq)
 * while they are in flight. Register mode leaves them out of Node's list (active-resources.ts).
 */
const hiddenRequests = new WeakSet<object>();
const hiddenCounts = new Map<string, number>();

export function hideRealRequest(request: object): void {
  hiddenRequests.add(request);
}

/** Runs `start`, which makes one real request of class `name` in C++, hidden until its promise settles. */
export function hideRealPromiseRequest<T>(name: string, start: () => Promise<T>): Promise<T> {
  const real = start();
  hiddenCounts.set(name, (hiddenCounts.get(name) ?? 0) + 1);
  const settled = (): void => {
    hiddenCounts.set(name, hiddenCounts.get(name)! - 1);
  };
  real.then(settled, settled);
  return real;
}

/**
 * Node's active resources now (getActiveResourcesInfo: its requests, then its handles, then its
 * timers), split where the requests end: the requests no tracked entry stands for
 * (unhiddenRequests), and the names listed after them.
 */
export function realResourcesUnhidden(): { requests: string[]; rest: string[] } {
  const objects = realActiveRequests();
  const names = realActiveResourcesInfo(objects);
  return { requests: unhiddenRequests(names.slice(0, objects.length), objects), rest: names.slice(objects.length) };
}

/**
 * Node's list of requests (names and objects, as getActiveResourcesInfo and _getActiveRequests
 * give them) without those a tracked entry stands for.
 */
function unhiddenRequests(names: readonly string[], objects: readonly unknown[]): string[] {
  const out: string[] = [];
  let skips: Map<string, number> | undefined;
  for (let i = 0; i < objects.length; i++) {
    const name = names[i]!;
    const object = objects[i];
    if (typeof object === 'object' && object !== null && hiddenRequests.has(object)) continue;
    const hidden = hiddenCounts.get(name);
    if (hidden !== undefined && hidden > 0) {
      skips ??= new Map();
      const skipped = skips.get(name) ?? 0;
      if (skipped < hidden) {
        skips.set(name, skipped + 1);
        continue;
      }
    }
    out.push(name);
  }
  return out;
}

/** The requests Node would list for `host` (every host when undefined), in the order they were made. */
export function listedRequests(world: World, host: Host | undefined): string[] {
  const out: string[] = [];
  const requests = worldRequests.get(world);
  if (requests === undefined) return out;
  dropDone(requests, world.eventsRun);
  for (const entry of requests.listed) {
    if (entry.host.state !== 'running') {
      requests.listed.delete(entry); // its completion will never run
      continue;
    }
    if (host === undefined || entry.host === host) out.push(entry.name);
  }
  return out;
}

/**
 * A native handle a host created that has not turned simulated yet (net.connect makes it before
 * the name resolves, dgram.createSocket before any bind): closed natively if its host goes down
 * or the run ends before it does.
 */
class RawHandle implements ListedHandle {
  constructor(
    readonly handle: NativeHandle,
    readonly host: Host,
    private readonly kRaw: symbol,
    private readonly realClose: (this: NativeHandle) => unknown,
    private readonly name: (this: NativeHandle) => string | undefined,
  ) {}

  /** Native still: its own hasRef() says whether Node lists it (false once closed natively). */
  listedAs(): string | undefined {
    return this.name.call(this.handle);
  }

  release(): void {
    delete this.handle[this.kRaw];
    forgetHost(this.handle);
    this.realClose.call(this.handle);
  }
}

/**
 * The getAsyncId of a handle class's prototype, tracking new handles: Node asks every new handle
 * for its async id right after constructing it (net.js initSocketHandle, dgram's Socket
 * constructor), so one a host made is held as raw from there until it turns simulated
 * (makeSimulated) or is released.
 */
export function trackingGetAsyncId(
  HandleClass: abstract new (...args: never[]) => unknown,
  keys: { kSim: symbol; kRaw: symbol },
  real: {
    getAsyncId: (this: NativeHandle) => number;
    close: (this: NativeHandle) => unknown;
    /** What Node lists the native handle as (its name while its hasRef() is true). */
    listedAs: (this: NativeHandle) => string | undefined;
  },
): (this: NativeHandle) => number {
  return function getAsyncId(this: NativeHandle): number {
    if (this[keys.kSim] === undefined && this[keys.kRaw] === undefined && this instanceof HandleClass) {
      const host = currentHost();
      if (host !== undefined) {
        noteCreated(this);
        const raw = new RawHandle(this, host, keys.kRaw, real.close, real.listedAs);
        Object.defineProperty(this, keys.kRaw, { value: raw, configurable: true });
        host.world.natives.hold(host, raw);
      }
    }
    return real.getAsyncId.call(this);
  };
}

/**
 * A handle turns simulated: it carries `sim` under kSim, and the world holds `sim` for it instead
 * of the raw handle it held since the handle was made.
 */
export function makeSimulated(handle: NativeHandle, keys: { kSim: symbol; kRaw: symbol }, host: Host, sim: NativeResource): void {
  noteCreated(handle);
  const raw = handle[keys.kRaw] as RawHandle | undefined;
  if (raw !== undefined) {
    delete handle[keys.kRaw];
    raw.host.world.natives.drop(raw.host, raw);
  }
  host.world.natives.hold(host, sim);
  Object.defineProperty(handle, keys.kSim, { value: sim, configurable: true });
}

/** The inert methods of released handles, shared by all of them (they close over nothing). */
export const released = {
  badf(): number {
    return UV.EBADF;
  },
  nothing(): void {},
  zero(): number {
    return 0;
  },
  no(): boolean {
    return false;
  },
};
