/**
 * The real disk, for the runtime's own files (traces, reports) and for the simulated disk's
 * reads of the files underneath it: fs calls made inside `onRealDisk()` skip every host's
 * simulated disk, whatever host context they run in (a report written at exit runs in the
 * host that exited).
 */
let depth = 0;

export function onRealDisk<T>(work: () => T): T {
  depth++;
  try {
    return work();
  } finally {
    depth--;
  }
}

/** Whether an fs call made now is the real disk's (see onRealDisk). */
export function realDiskCall(): boolean {
  return depth > 0;
}
