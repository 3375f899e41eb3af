import path from 'node:path';

/**
 * The directory of the running dst-runtime build (dist/, also when this code sits in a shared
 * chunk under dist/chunks/); frames inside it are ours, not the user's.
 */
const OWN_DIR = ((dir: string) => (path.basename(dir) === 'chunks' ? path.dirname(dir) : dir))(path.dirname(__filename));

/**
 * The first stack frame outside dst-runtime and Node's internals, as "file:line:col" relative to
 * the working directory. Costly (it captures a stack): called only when tracing or when a limit
 * is close and the culprit must be named.
 */
export function captureSite(): string | undefined {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 30;
  Error.captureStackTrace(holder, captureSite);
  Error.stackTraceLimit = limit;
  const lines = (holder.stack ?? '').split('\n');
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const m = /\(?((?:file:\/\/)?[^\s()]+):(\d+):(\d+)\)?\s*$/.exec(line);
    if (!m) continue;
    let file = m[1]!;
    if (file.startsWith('node:')) continue;
    if (file.startsWith('file://')) file = decodeURIComponent(file.slice('file://'.length));
    if (file.startsWith(OWN_DIR + path.sep)) continue;
    const rel = path.relative(process.cwd(), file);
    return `${rel.startsWith('..') ? file : rel}:${m[2]}:${m[3]}`;
  }
  return undefined;
}
