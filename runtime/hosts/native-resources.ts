import type { Host } from './host.js';

/**
 * Something a host incarnation holds outside the simulation: a native libuv handle (the
 * TCPWrap or UDPWrap behind a simulated socket). Until it is closed natively it is a GC root
 * (Node keeps every open handle alive), and through its simulated model it would keep the whole
 * world alive after the run.
 */
export interface NativeResource {
  /**
   * Frees it natively and cuts it off from the simulation, running no code of its host (a
   * crashed host's callbacks never run; after the run nothing of the world may be reachable).
   */
  release(): void;
}

/**
 * The native resources of each host incarnation that its program has not closed yet: released
 * when the incarnation goes down (HostLifecycle.takeDown) and, at the latest, when the run ends
 * (World.dispose).
 */
export class NativeResources {
  private readonly byHost = new Map<Host, Set<NativeResource>>();

  /**
   * Registers a native resource of `host` (a libuv handle made for its socket), unless the
   * program closes it first (drop).
   */
  hold(host: Host, resource: NativeResource): void {
    let set = this.byHost.get(host);
    if (set === undefined) this.byHost.set(host, (set = new Set()));
    set.add(resource);
  }

  /** The program closed a resource registered with hold() itself. */
  drop(host: Host, resource: NativeResource): void {
    const set = this.byHost.get(host);
    if (set === undefined) return;
    set.delete(resource);
    if (set.size === 0) this.byHost.delete(host);
  }

  /** The native resources `host` holds (every host's when undefined), not yet closed or released. */
  *held(host: Host | undefined): IterableIterator<NativeResource> {
    if (host !== undefined) {
      yield* this.byHost.get(host) ?? [];
      return;
    }
    for (const set of this.byHost.values()) yield* set;
  }

  /** Releases the native resources of `host` (every host when undefined), in creation order. */
  release(host: Host | undefined): void {
    const sets = host === undefined ? [...this.byHost.values()] : [this.byHost.get(host)];
    if (host === undefined) this.byHost.clear();
    else this.byHost.delete(host);
    for (const set of sets) {
      if (set === undefined) continue;
      for (const resource of set) resource.release();
    }
  }
}
