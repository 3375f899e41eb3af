import path from 'node:path';

/**
 * The directory of the running dst-runtime build (dist/, also when this code sits in a shared
 * chunk under dist/chunks/); frames inside it are ours, not the user's.
 */
const OWN_DIR = ((dir: string) => (path.basename(dir) === 'chunks' ? path.dirname(dir) : dir))(path.dirname(__filename));

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
  if (file.startsWith(OWN_DIR + path.sep)) return undefined;
  const rel = path.relative(process.cwd(), file);
  return `${rel.startsWith('..') ? file : rel}:${m[2]}:${m[3]}`;
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
