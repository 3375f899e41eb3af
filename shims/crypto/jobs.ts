/**
 * crypto's thread-pool jobs: `pbkdf2`, `scrypt`, `hkdf`, `generateKeyPair`, `generateKey`,
 * `generatePrime`, `checkPrime`, `sign`/`verify` with a callback, and every `crypto.subtle`
 * operation Node runs as a job (digest, sign, encrypt, deriveBits, ...). A host's asynchronous
 * job is real work the simulation waits for (thread-pool/real-work.ts): virtual time stands
 * still until the thread pool is done, and the completion reaches the host as an 'io' event at
 * that instant, in call order with the host's other real calls. Synchronous forms (`pbkdf2Sync`,
 * ...), WebCrypto operations Node completes without a job (`importKey`, most `exportKey`
 * formats) and calls made outside the hosts are left alone. (The random functions are simulated
 * outright: random.ts.)
 *
 * Node runs each such job through the `run()` of a job class of its crypto binding (PBKDF2Job,
 * HashJob, ...). An asynchronous job either has an `ondone` callback set before `run()` (node:crypto's
 * callback functions; WebCrypto too on Node 20 and 22), which native code calls when the job is
 * done, or its `run()` returns a promise that native code settles (WebCrypto on Node 24).
 *
 * - Where `process.binding('crypto')` exists (Node 20, 22), `run()` of every job class is wrapped.
 * - Node 24 has no such binding. There the public functions that start jobs (node:crypto's
 *   callback functions and SubtleCrypto's methods) are wrapped instead: each runs under a
 *   short-lived async_hooks init hook that sees the jobs it creates. In Node 24 every job of
 *   these functions is created before they return (WebCrypto's methods are synchronous up to
 *   the job's promise), so the hook sees them all.
 */
import asyncHooks from 'node:async_hooks';
import { CRYPTO_BUILTINS, nodeCrypto } from './node-crypto.js';
import { types } from 'node:util';
import { UsageError } from '../../runtime/errors.js';
import { captureContextOf, thenDestroyed } from '../async-hooks/async-context.js';
import { currentHost, type Host } from '../context.js';
import { nodeBinding } from '../node-binding.js';
import { abandonRealCall, beginRealCall, completeRealCall, type RealCall, settleInEvent } from '../thread-pool/real-work.js';
import { mirrorFunction, type PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Fn = (this: unknown, ...args: unknown[]) => unknown;
interface Job {
  ondone?: Fn;
  run: Fn;
}

/** node:crypto's functions that start a job when given a callback (those this Node has). */
const CALLBACK_FUNCTIONS = [
  'argon2',
  'checkPrime',
  'decapsulate',
  'diffieHellman',
  'encapsulate',
  'generateKey',
  'generateKeyPair',
  'generatePrime',
  'hkdf',
  'pbkdf2',
  'scrypt',
  'sign',
  'verify',
] as const;

/** The binding's job classes, when Node still lets process.binding reach it (20, 22); null when not. */
let jobClassesFound: Array<Record<string, Fn>> | null | undefined;

function bindingJobClasses(): Array<Record<string, Fn>> | undefined {
  if (jobClassesFound === undefined) jobClassesFound = findBindingJobClasses() ?? null;
  return jobClassesFound ?? undefined;
}

function findBindingJobClasses(): Array<Record<string, Fn>> | undefined {
  let binding: Record<string, any>;
  try {
    binding = nodeBinding('crypto');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return undefined; // "No such module: crypto"
  }
  const out: Array<Record<string, Fn>> = [];
  for (const key of Object.keys(binding).sort()) {
    const proto = (binding[key] as { prototype?: Record<string, Fn> } | undefined)?.prototype;
    if (/Job$/.test(key) && typeof binding[key] === 'function' && typeof proto?.run === 'function') out.push(proto);
  }
  return out;
}

/** Holds the simulation for `job`, an asynchronous job with an ondone callback, until it is done. */
function holdOndone(host: Host, job: Job): RealCall {
  const ondone = job.ondone!;
  const scope = captureContextOf(job, 'CRYPTOJOB', true);
  const call = beginRealCall(host, scope);
  job.ondone = function heldOndone(this: unknown, ...results: unknown[]) {
    completeRealCall(call, thenDestroyed(scope, () => Reflect.apply(ondone, this, results)));
  };
  return call;
}

/** `run()` of a job class, held when a host runs an asynchronous job (Node 20, 22). */
function heldRun(run: Fn): Fn {
  return function run_(this: unknown, ...args: unknown[]) {
    const host = currentHost();
    const job = this as Job;
    if (host === undefined) return Reflect.apply(run, job, args);
    if (typeof job.ondone !== 'function') {
      const result = Reflect.apply(run, job, args);
      // A synchronous job returns [error, result]; a WebCrypto job of newer Nodes a promise.
      return types.isPromise(result) ? settleInEvent(beginRealCall(host, undefined), result) : result;
    }
    const ondone = job.ondone;
    const call = holdOndone(host, job);
    try {
      return Reflect.apply(run, job, args);
    } catch (error) {
      job.ondone = ondone;
      abandonRealCall(call);
      throw error;
    }
  };
}

// ---- Node 24: the public functions, watched by a short-lived init hook ----------------------

const createHook = asyncHooks.createHook;
/** Jobs created while a watched function runs (only one runs at a time: it is synchronous). */
let jobsCreated: Job[] = [];
const nativeJobClasses = new WeakMap<object, boolean>();

/** A job of Node's crypto binding: an instance of a native class named ...Job with a run(). */
function isNativeJob(resource: object): boolean {
  const proto = Object.getPrototypeOf(resource) as { constructor?: unknown; run?: unknown } | null;
  if (proto === null) return false;
  let known = nativeJobClasses.get(proto);
  if (known === undefined) {
    const ctor = proto.constructor;
    known =
      typeof ctor === 'function' &&
      /Job$/.test(ctor.name) &&
      typeof proto.run === 'function' &&
      Function.prototype.toString.call(ctor).includes('[native code]');
    nativeJobClasses.set(proto, known);
  }
  return known;
}

let jobWatch: asyncHooks.AsyncHook | undefined;
let watchDepth = 0;

function watchJobs(): asyncHooks.AsyncHook {
  jobWatch ??= createHook({
    init(_id, _type, _trigger, resource) {
      if (isNativeJob(resource)) jobsCreated.push(resource as Job);
    },
  });
  return jobWatch;
}

/**
 * A public function of node:crypto or SubtleCrypto that may start jobs, watched (Node 24). Jobs
 * with an ondone callback are held until they call it; when a job without one (a WebCrypto job,
 * settling a promise) was started, the promise the function returns is held instead.
 */
function watched(original: Fn): Fn {
  const wrapper = function (this: unknown, ...args: unknown[]): unknown {
    const host = currentHost();
    if (host === undefined) return Reflect.apply(original, this, args);
    const outer = jobsCreated;
    jobsCreated = [];
    // A watched function reached from inside another leaves the hook on for the outer one.
    if (watchDepth++ === 0) watchJobs().enable();
    let result: unknown;
    let jobs: Job[];
    try {
      result = Reflect.apply(original, this, args);
    } finally {
      if (--watchDepth === 0) watchJobs().disable();
      jobs = jobsCreated;
      jobsCreated = outer;
    }
    let promiseJob = false;
    for (const job of jobs) {
      if (typeof job.ondone === 'function') holdOndone(host, job);
      else promiseJob = true;
    }
    return promiseJob && types.isPromise(result) ? settleInEvent(beginRealCall(host, undefined), result) : result;
  };
  // generateKeyPair's util.promisify arguments (an own symbol property) and the like.
  return mirrorFunction(wrapper, original);
}

/**
 * Functions keys.ts and signatures.ts replace (each calls Node's own first, then
 * makes the result's random part from the seed). Where the public functions are watched
 * (Node 24), they watch the Node function they call through withJobsHeld(), and this shim leaves
 * the property to them.
 */
const KEYED_MODULE_FUNCTIONS = new Set(['generateKey', 'generateKeyPair', 'sign']);
const KEYED_SUBTLE_METHODS = new Set(['encrypt', 'generateKey', 'sign']);

/** `original`, its jobs held as this shim holds them (watched on Node 24; the binding does it on 20, 22). */
export function withJobsHeld(original: Fn): Fn {
  return bindingJobClasses() === undefined ? watched(original) : original;
}

export const cryptoJobsShim: Shim = {
  name: 'crypto-jobs',
  builtins: CRYPTO_BUILTINS,
  install(patches: PatchSet) {
    const jobClasses = bindingJobClasses();
    if (jobClasses !== undefined) {
      for (const proto of jobClasses) {
        const run = heldRun(proto.run!);
        Object.defineProperty(run, 'name', { value: 'run', configurable: true });
        patches.replace(proto, 'run', run);
      }
      return;
    }
    const crypto = nodeCrypto();
    const mod = crypto as unknown as Record<string, Fn>;
    for (const key of CALLBACK_FUNCTIONS) {
      if (typeof mod[key] === 'function' && !KEYED_MODULE_FUNCTIONS.has(key)) patches.replace(mod, key, watched(mod[key]));
    }
    const subtle = Object.getPrototypeOf(crypto.webcrypto.subtle) as Record<string, Fn>;
    for (const key of Object.getOwnPropertyNames(subtle).sort()) {
      const descriptor = Object.getOwnPropertyDescriptor(subtle, key)!;
      if (key !== 'constructor' && !KEYED_SUBTLE_METHODS.has(key) && typeof descriptor.value === 'function') patches.replace(subtle, key, watched(descriptor.value));
    }
  },
};
