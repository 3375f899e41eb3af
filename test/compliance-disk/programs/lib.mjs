// Shared by the disk compliance programs: a fresh directory under the machine's temp dir (a real
// one plainly, one on the simulated disk under DST_DISK=simulated), and printing that hides its
// random name so both runs print the same.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-disk-'));

/** `text` with the temp dir's name replaced by <tmp>. */
export function hide(text) {
  return String(text).split(root).join('<tmp>');
}

/** One line per fact, the temp dir hidden. */
export function log(...parts) {
  console.log(parts.map((p) => hide(typeof p === 'string' ? p : JSON.stringify(p))).join(' '));
}

/** An error as the program would see it: message, code, errno, syscall, path, dest, and its own keys. */
export function describeError(error) {
  const { message, code, errno, syscall } = error;
  return hide(JSON.stringify({ name: error.name, message, code, errno, syscall, path: error.path, dest: error.dest, keys: Object.keys(error) }));
}

/** Runs `fn`, printing what it returned or threw. */
export function attempt(label, fn) {
  try {
    log(label, 'ok', fn() ?? null);
  } catch (error) {
    log(label, 'throws', describeError(error));
  }
}

export async function attemptAsync(label, fn) {
  try {
    log(label, 'ok', (await fn()) ?? null);
  } catch (error) {
    log(label, 'rejects', describeError(error));
  }
}

export function cleanUp() {
  fs.rmSync(root, { recursive: true, force: true });
  console.log('done');
}
