import { originals } from '../originals.js';

interface DomainProcess {
  domain?: unknown;
  moduleLoadList?: string[];
}

/**
 * `process.domain` is a property of a dictionary-mode object: reading it on every setTimeout
 * cost about 40 ns per event of the timer benchmark. Until node:domain is loaded no domain can
 * be active, and Node's list of loaded internal modules says whether it is: its length is
 * cheap to watch.
 */
const moduleLoadList = (originals.process as DomainProcess).moduleLoadList;
let seenModules = -1;
let domainLoaded = moduleLoadList === undefined || !Array.isArray(moduleLoadList);

export function domainModuleLoaded(): boolean {
  return domainLoaded || domainModuleLoadedNow();
}

/** Out of line: domainModuleLoaded() is inlined into every setTimeout, and kept tiny for it. */
function domainModuleLoadedNow(): boolean {
  const list = moduleLoadList!;
  if (list.length !== seenModules) {
    seenModules = list.length;
    domainLoaded = list.includes('NativeModule domain');
  }
  return domainLoaded;
}

/**
 * Runs `fn` with no node:domain active. Node's domain module marks every async resource created
 * while a domain is active (its init hook) and enters that domain around the resource's
 * callbacks: the runtime's own immediates and ticks, made while some host code runs in a domain,
 * would otherwise run every later event inside it.
 */
export function outsideDomain<T>(fn: () => T): T {
  if (!domainModuleLoaded()) return fn();
  const process = originals.process as DomainProcess;
  const domain = process.domain;
  if (domain === null || domain === undefined) return fn();
  process.domain = null;
  try {
    return fn();
  } finally {
    process.domain = domain;
  }
}

/** The active node:domain, if any (read where a simulated handle is made). */
export function activeDomain(): DomainLike | undefined {
  if (!domainModuleLoaded()) return undefined;
  const domain = (originals.process as DomainProcess).domain;
  return domain === null || domain === undefined ? undefined : (domain as DomainLike);
}

export interface DomainLike {
  enter(): void;
  exit(): void;
}

/**
 * Runs `fn` inside `domain`, as Node's domain hooks run a callback of a resource made in it. On
 * a throw the domain stays entered, so the exception reaches that domain's error handler (which
 * exits it); an AsyncResource scope alone would not do: its runInAsyncScope exits the domain in
 * a `finally` before the exception gets there.
 */
export function runEnteredIn(domain: DomainLike, fn: () => void): void {
  domain.enter();
  fn();
  domain.exit();
}
