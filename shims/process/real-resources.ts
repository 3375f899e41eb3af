/**
 * Node's own process.getActiveResourcesInfo() and process._getActiveRequests(), for the runtime's
 * counts of real work, without the crash of the first.
 *
 * Node's getActiveResourcesInfo walks the environment's list of requests (ReqWraps) and allocates
 * a string for each while it walks. A request that was never dispatched to libuv stays weak: when
 * its JavaScript object is garbage, the garbage collector deletes the C++ object, which unlinks it.
 * If that collection happens during the walk (one of those string allocations starts it) and takes
 * the request being listed, Node reads the next link out of freed memory: SIGSEGV in
 * node::GetActiveResourcesInfo (Node 20, 22 and 24; docs/notes/node-facts.md). Plain Node
 * dispatches every request it makes, but the simulation's shims answer lib's requests themselves
 * (the simulated disk's FSReqCallbacks, simulated sockets' write, connect and shutdown requests,
 * DNS lookups), so they stay in that list, weak, until collected.
 *
 * process._getActiveRequests walks the same list without allocating on the JavaScript heap and
 * returns the requests' objects. They are passed to Node's getActiveResourcesInfo as an (ignored)
 * argument: arguments of a call in progress are on the stack, roots for the collector, so none of
 * those requests can be collected during the walk. (Holding them in a variable nothing reads
 * afterwards is not enough: the bundler drops the write, and optimized code need not keep a dead
 * local alive.)
 */
import { originals } from '../../runtime/originals.js';

const nodeProcess: NodeJS.Process = originals.process;
/** Node's own, taken before the active-resources shim lists simulated resources in it. */
const nodeActiveResourcesInfo = nodeProcess.getActiveResourcesInfo;
/** Node's undocumented list of active requests: the objects behind the first names of the list. */
const nodeActiveRequests = (nodeProcess as unknown as { _getActiveRequests(): unknown[] })._getActiveRequests;

/** Node's process._getActiveRequests(): the objects of the requests in Node's list. */
export function realActiveRequests(): unknown[] {
  return Reflect.apply(nodeActiveRequests, nodeProcess, []) as unknown[];
}

/**
 * Node's process.getActiveResourcesInfo(), with every request in its list kept alive during the
 * call. `requests`: what realActiveRequests() just returned, when the caller needs it too (no
 * JavaScript runs between the two, so both list the same requests).
 */
export function realActiveResourcesInfo(requests: unknown[] = realActiveRequests()): string[] {
  return Reflect.apply(nodeActiveResourcesInfo, nodeProcess, [requests]) as string[];
}
