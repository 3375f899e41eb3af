/**
 * The simulated disks of one run (world.disks): each host's Disk, made by the fs shim on first use,
 * and each host's disk faults, made when its disk is or when sim.setDiskFaults sets them. A disk
 * outlives the incarnations of its host; a machine crash (powerLoss) keeps what was synced.
 */
import type { Disk } from './disk.js';
import { HostDiskFaults, type ResolvedRule, rulesForHost } from './faults.js';
import type { RandomStream } from '../random/stream.js';

export class HostDisks {
  /** By host name (a disk outlives the incarnations of its host). */
  private readonly byName = new Map<string, Disk>();
  /** Each host's disk faults, by lower-case name. */
  private readonly faultStates = new Map<string, HostDiskFaults>();

  /** `rules`: the run's diskFaults option; `stream(name)`: a random stream of the run's seed. */
  constructor(
    private readonly rules: readonly ResolvedRule[],
    private readonly stream: (name: string) => RandomStream,
  ) {}

  /** Host `name`'s disk, made by `make` (and given the host's faults) on first use. */
  of(name: string, make: () => Disk): Disk {
    let disk = this.byName.get(name);
    if (disk === undefined) {
      disk = make();
      disk.faults = this.faults(name);
      this.byName.set(name, disk);
    }
    return disk;
  }

  /** Host `name`'s disk, if it has used one. */
  get(name: string): Disk | undefined {
    return this.byName.get(name);
  }

  /** The machine `name` lost power: its disk keeps only what was synced (torn writes aside: see Disk.powerLoss). */
  powerLoss(name: string): void {
    const disk = this.byName.get(name);
    if (disk === undefined) return;
    const faults = disk.faults;
    const sectorBytes = faults?.tornSectorBytes ?? 0;
    disk.powerLoss(sectorBytes > 0 ? { draw: (n) => faults!.random.int(0, n), sectorBytes } : undefined);
  }

  /**
   * The disk faults of host `name`: the run's rules for it, with the layer sim.setDiskFaults put on
   * top. Undefined while it has none, unless `create` (to set a layer).
   */
  faults(name: string, create = false): HostDiskFaults | undefined {
    const key = name.toLowerCase();
    let faults = this.faultStates.get(key);
    if (faults !== undefined) return faults;
    const rules = rulesForHost(this.rules, name);
    if (rules.length === 0 && !create) return undefined;
    faults = new HostDiskFaults(rules, this.stream(`disk:${key}:faults`));
    this.faultStates.set(key, faults);
    const disk = this.byName.get(name);
    if (disk !== undefined) disk.faults = faults;
    return faults;
  }

  /** Replaces the runtime layer of host `name`'s disk faults (undefined: none). */
  setFaults(name: string, layer: ResolvedRule[] | undefined): void {
    this.faults(name, true)!.setLayer(layer);
  }
}
