/**
 * Blob URLs: `URL.createObjectURL(blob)` names the blob `blob:nodedata:<UUID>`, and Node draws
 * that UUID from its internal random module (internal/url's lazyCryptoRandom), never through
 * node:crypto, so the crypto shim does not reach it: the same seed printed another URL every run.
 *
 * Node's blob store is reachable only through internalBinding('blob'), which process.binding
 * does not offer. So inside a host, createObjectURL still stores the blob through Node's own
 * function (with its argument checks and errors) under Node's random id, and hands the program
 * a URL whose id is drawn from the host's `crypto` stream, as randomUUID's are (in Node both come
 * from one batch of random UUIDs). The two are paired for the simulation's lifetime:
 * `URL.revokeObjectURL` and node:buffer's `resolveObjectURL` (which fetch() of a blob URL calls)
 * take the simulated URL to the real one. A URL is parsed as Node parses it, so anything Node
 * would find (a fragment, a query) finds the same blob, and anything it would not finds nothing.
 * Outside hosts, and for URLs not made inside one, Node's functions run untouched.
 *
 * The pairs live in Node's process-wide store, as real blob URLs do: a URL made by one host
 * resolves in another. When the simulation ends (uninstall) the real URLs still paired are
 * revoked, so an explorer's thousands of seeds in one process do not keep every seed's blobs.
 */
import buffer from 'node:buffer';
// Node's URL class, not the global slot's: it may hold another (Jest's jsdom environment puts jsdom's).
import { URL as NodeUrl } from 'node:url';
import { currentHost } from '../context.js';
import { mirrorFunction, type PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';
import { uuidV4 } from './random.js';

type Fn = (this: unknown, ...args: unknown[]) => unknown;

const PREFIX = 'blob:nodedata:';

/** Simulated id → Node's URL for it. */
const paired = new Map<string, string>();

/** The pathname of `url` parsed as a WHATWG URL, as Node parses it; undefined if it is none. */
function pathnameOf(url: string): string | undefined {
  try {
    return new NodeUrl(url).pathname;
  } catch {
    return undefined;
  }
}

/**
 * The id Node's resolveObjectURL finds in `url`: the URL's pathname split at ':' into exactly
 * `nodedata` and the id (lib/internal/blob.js); undefined when it would find none.
 */
function resolvableId(url: string): string | undefined {
  const parts = pathnameOf(url)?.split(':', 3);
  return parts?.length === 2 && parts[0] === 'nodedata' ? parts[1] : undefined;
}

/**
 * The id Node's revokeObjectURL removes for `url`: what follows the pathname's first ':' when no
 * other ':' follows, whatever precedes it (BlobBindingData::RevokeObjectURL, src/node_blob.cc).
 */
function revocableId(url: string): string | undefined {
  const pathname = pathnameOf(url);
  if (pathname === undefined) return undefined;
  const first = pathname.indexOf(':');
  if (first === -1 || first === pathname.length - 1) return undefined;
  const id = pathname.slice(first + 1);
  return id.includes(':') ? undefined : id;
}

export const objectUrlsShim: Shim = {
  name: 'object-urls',
  install(patches: PatchSet) {
    const urlStatics = NodeUrl as unknown as Record<string, Fn>;
    const realCreate = urlStatics.createObjectURL;
    const realRevoke = urlStatics.revokeObjectURL;
    const bufferModule = buffer as unknown as Record<string, Fn>;
    const realResolve = bufferModule.resolveObjectURL;
    // Node 20's URL has them (experimental); a Node without them has nothing to simulate.
    if (typeof realCreate !== 'function' || typeof realRevoke !== 'function' || typeof realResolve !== 'function') return;

    patches.replace(
      urlStatics,
      'createObjectURL',
      mirrorFunction(function createObjectURL(this: unknown) {
        const url = Reflect.apply(realCreate, this, arguments) as string;
        const host = currentHost();
        if (host === undefined) return url;
        const id = uuidV4(host);
        paired.set(id, url);
        return `${PREFIX}${id}`;
      }, realCreate),
    );
    patches.replace(
      urlStatics,
      'revokeObjectURL',
      mirrorFunction(function revokeObjectURL(this: unknown, url: unknown) {
        // No argument: Node's ERR_MISSING_ARGS. Otherwise the string Node would make, made once.
        if (arguments.length === 0) return Reflect.apply(realRevoke, this, arguments);
        const text = `${url}`;
        const id = revocableId(text);
        const real = id === undefined ? undefined : paired.get(id);
        if (real === undefined) return Reflect.apply(realRevoke, this, [text]);
        paired.delete(id!);
        return Reflect.apply(realRevoke, this, [real]);
      }, realRevoke),
    );
    patches.replace(
      bufferModule,
      'resolveObjectURL',
      mirrorFunction(function resolveObjectURL(this: unknown, url: unknown) {
        const text = `${url}`;
        const id = resolvableId(text);
        const real = id === undefined ? undefined : paired.get(id);
        return Reflect.apply(realResolve, this, [real ?? text]);
      }, realResolve),
    );
    patches.onRestore(() => {
      for (const real of paired.values()) Reflect.apply(realRevoke, NodeUrl, [real]);
      paired.clear();
    });
  },
};
