/**
 * Real file descriptors a host opened on the real disk (the default; a simulated disk numbers
 * its own, per incarnation). The kernel closes a process's descriptors when it dies, so a host
 * incarnation's are closed when it goes down (a crash, a kill, an exit) and, at the latest, when
 * the run ends (world.natives), as the rest of what it holds outside the simulation.
 *
 * Without this a program that never closed a file kept its descriptors open across the seeds of
 * one explorer worker: a later seed got other numbers than alone, and enough seeds ran out of
 * descriptors (EMFILE) in a failure that did not replay.
 *
 * A descriptor is known by its number while it is open: whoever closes that number (the
 * program, a stream, a FileHandle) closes this one, since no other can have it meanwhile.
 */
import fs from 'node:fs';
import type { NativeResource } from '../../runtime/hosts/native-resources.js';
import { onRealDisk } from '../../runtime/disk/real.js';
import type { Host } from '../context.js';

/** A FileHandle of the fs binding (what fs.promises.open wraps). */
interface BindingFileHandle {
  readonly fd: number;
  releaseFD(): void;
}

class RealDescriptor implements NativeResource {
  /**
   * A FileHandle's, held weakly: a program that drops one sees Node close it when it is
   * collected (with its warnings), as plainly. Collected, its number is no longer this one's.
   */
  readonly handle: WeakRef<BindingFileHandle> | undefined;

  constructor(
    readonly host: Host,
    readonly fd: number,
    handle: BindingFileHandle | undefined,
  ) {
    if (handle !== undefined) {
      this.handle = new WeakRef(handle);
      collected.register(handle, this, this);
    }
  }

  release(): void {
    if (open.get(this.fd) === this) open.delete(this.fd);
    if (this.handle !== undefined) {
      const handle = this.handle.deref();
      // Collected: Node closed the descriptor then, and the number may be another's now.
      if (handle === undefined) return;
      // It gives its descriptor up first (returning nothing), so it never closes the number again.
      collected.unregister(this);
      handle.releaseFD();
    }
    onRealDisk(() => {
      try {
        fs.closeSync(this.fd);
      } catch {
        // Closed already some way this module does not see: nothing is lost.
      }
    });
  }
}

/** The open ones, by number. */
const open = new Map<number, RealDescriptor>();

/** A FileHandle collected with its descriptor open: Node closed it, so it is no longer the host's. */
const collected = new FinalizationRegistry<RealDescriptor>((descriptor) => {
  // (Its number may be another descriptor's by now.)
  if (open.get(descriptor.fd) === descriptor) open.delete(descriptor.fd);
  descriptor.host.world.natives.drop(descriptor.host, descriptor);
});

/** `host` opened real descriptor `fd` (a number open() returned, or a FileHandle's). */
export function openedReal(host: Host, opened: unknown): void {
  const handle = typeof opened === 'object' && opened !== null && typeof (opened as BindingFileHandle).releaseFD === 'function' ? (opened as BindingFileHandle) : undefined;
  const fd = handle === undefined ? opened : handle.fd;
  if (typeof fd !== 'number' || !Number.isInteger(fd) || fd < 0) return;
  const descriptor = new RealDescriptor(host, fd, handle);
  // Its host went down while the open was in flight: the open's completion never reaches it.
  if (!host.alive) return descriptor.release();
  open.set(fd, descriptor);
  host.world.natives.hold(host, descriptor);
}

/** Descriptor `fd` is being closed (by anyone): it is no longer the host's to give back. */
export function closingReal(fd: unknown): void {
  if (typeof fd !== 'number') return;
  const descriptor = open.get(fd);
  if (descriptor === undefined) return;
  open.delete(fd);
  if (descriptor.handle !== undefined) collected.unregister(descriptor);
  descriptor.host.world.natives.drop(descriptor.host, descriptor);
}
