import path from 'node:path';

/**
 * The directory of the running dst-runtime build (dist/, also when this code sits in a shared
 * chunk under dist/chunks/); frames inside it are ours, not the user's.
 */
const OWN_DIR = ((dir: string) => (path.basename(dir) === 'chunks' ? path.dirname(dir) : dir))(path.dirname(__filename));
/** The directory of this build (dist/): its register entries, its chunks. */
export const OWN_DIST = OWN_DIR;

/**
 * Where our frames point when a stack goes through the build's source maps (node
 * --enable-source-maps; Jest and Vitest map every stack, their workers' too): the TypeScript
 * sources beside dist/, named so even where the package ships without them. Taking those frames
 * for the program's moved trace sites into dst-runtime and changed which calls are held (fs.ts,
 * wasm.ts ask whether the program is on the stack). Pinned by test/runners/source-maps.test.mjs.
 */
const PACKAGE_DIR = path.dirname(OWN_DIR);
/** Node's process.cwd, taken at load: a program may replace the global process (a crash's site is still named). */
const nodeCwd = process.cwd.bind(process);
// cli/: the dst command's own frames (it boots a scenario's hosts) are not the program's either.
const OWN_SOURCE_DIRS = ['runtime', 'shims', 'cli'].map((dir) => path.join(PACKAGE_DIR, dir) + path.sep);
const OWN_SOURCE_FILES = new Set(['index.ts', 'register.ts', 'realm.ts'].map((file) => path.join(PACKAGE_DIR, file)));

function isOwnFile(file: string): boolean {
  return file.startsWith(OWN_DIR + path.sep) || OWN_SOURCE_FILES.has(file) || OWN_SOURCE_DIRS.some((dir) => file.startsWith(dir));
}

/**
 * A stack line's location as "file:line:col" relative to the working directory, or undefined
 * when the frame is Node's own or dst-runtime's (or the line is not a frame).
 */
export function programFrame(line: string): string | undefined {
  const m = /\(?((?:file:\/\/)?[^\s()]+):(\d+):(\d+)\)?\s*$/.exec(line);
  if (!m) return undefined;
  let file = m[1]!;
  if (file.startsWith('node:')) return undefined;
  if (file.startsWith('file://')) file = decodeURIComponent(file.slice('file://'.length));
  if (isOwnFile(file)) return undefined;
  const cwd = workingDirectory();
  const rel = cwd === undefined ? '..' : path.relative(cwd, file);
  return `${rel.startsWith('..') ? file : rel}:${m[2]}:${m[3]}`;
}

/** The working directory, or undefined once it was removed (uv_cwd's ENOENT): paths stay absolute. */
function workingDirectory(): string | undefined {
  try {
    return nodeCwd();
  } catch {
    return undefined;
  }
}

/** The frames of a stack that belong to the program (not Node's, not dst-runtime's). */
export function programFrames(stack: string | undefined): string[] {
  const frames: string[] = [];
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const frame = programFrame(line);
    if (frame !== undefined) frames.push(frame);
  }
  return frames;
}

/** A captured stack: V8 records the frames at once and formats them into `stack` on first read. */
export interface CapturedStack {
  stack?: string;
}

/**
 * Captures the stack below `below` (that function's frame and those above it are left out;
 * without it, the stack from the caller on), `frames` deep whatever Error.stackTraceLimit the
 * program has set.
 */
export function captureStack(below: Function = captureStack, frames = 30): CapturedStack {
  const holder: CapturedStack = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = frames;
  try {
    Error.captureStackTrace(holder, below);
  } finally {
    Error.stackTraceLimit = limit;
  }
  return holder;
}

/** The first frame of a captured stack that belongs to the program, as "file:line:col". */
export function siteOf(captured: CapturedStack): string | undefined {
  const lines = (captured.stack ?? '').split('\n');
  for (let i = 1; i < lines.length; i++) {
    const frame = programFrame(lines[i]!);
    if (frame !== undefined) return frame;
  }
  return undefined;
}

/**
 * The first stack frame outside dst-runtime and Node's internals, as "file:line:col" relative to
 * the working directory. Costly (it captures a stack): called only when tracing or when a limit
 * is close and the culprit must be named.
 */
export function captureSite(): string | undefined {
  return siteOf(captureStack(captureSite));
}

/**
 * Captures the stack now, for a site that is rarely read (an interval's creation site, named
 * only if a limit trips; siteOf formats it): formatting is most of what captureSite() costs.
 */
export function captureSiteLater(): CapturedStack {
  return captureStack(captureSiteLater);
}

/**
 * Where a failure was raised, for reports and the trace: the site the raiser attached (a
 * scenario's invariant, which returned a verdict and is not on the stack), else the first frame
 * of the error's stack that belongs to the program.
 */
export const kFailureSite = Symbol.for('dst-runtime.failureSite');
export function failureSite(error: unknown): string | undefined {
  if (error === null || (typeof error !== 'object' && typeof error !== 'function')) return undefined;
  const attached = (error as Record<symbol, unknown>)[kFailureSite];
  if (typeof attached === 'string') return attached;
  let stack: unknown;
  try {
    stack = (error as { stack?: unknown }).stack;
  } catch {
    return undefined;
  }
  return typeof stack === 'string' ? programFrames(stack)[0] : undefined;
}

/** Where a function is defined (a program frame, file:line:col), from the inspector; undefined if unavailable. */
export function functionLocation(fn: unknown): string | undefined {
  const where = functionUrl(fn);
  return where === undefined ? undefined : programFrames(`\n    at ${where}`)[0];
}

/** Where a function is defined, as url:line:col, from the inspector; undefined if unavailable. */
export function functionUrl(fn: unknown): string | undefined {
  if (typeof fn !== 'function' || !process.features.inspector) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const inspector = require('node:inspector') as typeof import('node:inspector');
  const session = new inspector.Session();
  const key = '__dstFunctionProbe';
  let where: string | undefined;
  try {
    session.connect();
    const scripts = new Map<string, string>();
    session.on('Debugger.scriptParsed', (m) => scripts.set(m.params.scriptId, m.params.url));
    // Same-thread sessions answer synchronously.
    session.post('Debugger.enable', () => {});
    (globalThis as Record<string, unknown>)[key] = fn;
    session.post('Runtime.evaluate', { expression: `globalThis.${key}` }, (error, result) => {
      if (error !== null || result.result.objectId === undefined) return;
      session.post('Runtime.getProperties', { objectId: result.result.objectId, ownProperties: true }, (e, props) => {
        const loc = e === null ? props.internalProperties?.find((p) => p.name === '[[FunctionLocation]]')?.value?.value : undefined;
        if (loc === undefined) return;
        const url = scripts.get(loc.scriptId);
        if (url === undefined || url === '') return;
        where = `${url}:${loc.lineNumber + 1}:${loc.columnNumber + 1}`;
      });
    });
  } catch {
    where = undefined;
  } finally {
    delete (globalThis as Record<string, unknown>)[key];
    session.disconnect();
  }
  return where;
}

/**
 * A stack as users should read it: without dst-runtime's own frames (World.invoke, Driver.step,
 * the bundle's chunks), which say nothing about their program; DST_DEBUG=1 keeps them all.
 */
export function userStack(stack: string): string {
  if (process.env.DST_DEBUG === '1') return stack;
  return stack
    .split('\n')
    .filter((line) => {
      const m = /^\s+at .*?\(?((?:file:\/\/)?[^\s()]+):\d+:\d+\)?\s*$/.exec(line);
      if (!m) return true;
      const file = m[1]!.startsWith('file://') ? decodeURIComponent(m[1]!.slice('file://'.length)) : m[1]!;
      return !isOwnFile(file);
    })
    .join('\n');
}
