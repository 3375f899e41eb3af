/**
 * A simulated host's disk: an in-memory file system laid over the real one, the way overlayfs
 * lays a writable upper layer over a read-only lower one. Files and directories of the real
 * machine are readable through it; everything a host creates, writes, renames or deletes lives
 * only here, so a simulation never writes the real disk.
 *
 * Durability follows what the page cache does to a program: a write is visible at once to every
 * reader, but survives a power loss (`powerLoss()`, what `sim.crash()` means for a machine) only
 * once an fsync/fdatasync of that file (or an O_SYNC/O_DSYNC write) has made it durable. The
 * names are journaled: a create, rename, unlink, mkdir or rmdir is durable when it returns, as on
 * ext4 or XFS after their journal commit. So the classic bug shows: a file written, renamed over
 * the old one and never fsync'd comes back from a crash empty.
 *
 * A process that dies (an uncaught exception, process.exit) loses nothing: the kernel still holds
 * its writes. Only the machine's crash loses them.
 *
 * Paths here are absolute and normalised; errors are DiskErrors with the errno code and syscall,
 * to which the fs shim adds the paths as the program wrote them.
 */
import path from 'node:path';

/** What the lower (real) layer reports of a path it has. */
export interface LowerStat {
  kind: 'file' | 'dir' | 'other';
  stat: DiskStat;
}

/** The real file system under the disk, read only (the shim passes reads through to Node). */
export interface LowerFs {
  /** The real entry at `abs` (symbolic links followed), or undefined if there is none. */
  stat(abs: string): LowerStat | undefined;
  /** The names in the real directory `abs`. */
  readdir(abs: string): string[];
  /** The contents of the real file `abs`. */
  readFile(abs: string): Buffer;
}

/** A stat result: Node's fields, times in ns. */
export interface DiskStat {
  dev: number;
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  rdev: number;
  blksize: number;
  ino: number;
  size: number;
  blocks: number;
  atimeNs: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  birthtimeNs: bigint;
}

/** An error of a disk operation, as errno would report it. */
export class DiskError extends Error {
  constructor(
    readonly code: string,
    readonly syscall: string,
  ) {
    super(`${code}: ${syscall}`);
  }
}

const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const BLOCK = 4096;
/** The device number of every simulated disk ("DS" in ASCII). */
const DISK_DEV = 0x4453;

interface Meta {
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  atimeNs: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  birthtimeNs: bigint;
}

/** A regular file of the upper layer. */
export class FileNode {
  readonly kind = 'file';
  meta: Meta;
  /** The contents every reader sees: the first `size` bytes of `data`. */
  data: Buffer;
  size: number;
  /** The contents a power loss leaves: the first `syncedSize` bytes of `synced`. */
  private synced: Buffer;
  private syncedSize: number;
  /** The lowest offset changed since the last sync (Infinity when there is nothing to sync). */
  private dirtyFrom = Infinity;
  /** Names that lead here (a file stays readable through its open fds when it has none). */
  nlink = 1;

  constructor(meta: Meta, contents: Buffer = Buffer.alloc(0), durable = true) {
    this.meta = meta;
    this.data = Buffer.from(contents);
    this.size = contents.length;
    this.synced = durable ? Buffer.from(contents) : Buffer.alloc(0);
    this.syncedSize = durable ? contents.length : 0;
    if (!durable && contents.length > 0) this.dirtyFrom = 0;
  }

  /** Writes `bytes` at `position` (growing the file, zero-filled, as pwrite does). */
  write(position: number, bytes: Uint8Array): void {
    const end = position + bytes.length;
    if (end > this.data.length) this.data = grow(this.data, this.size, end);
    if (position > this.size) this.data.fill(0, this.size, position);
    this.data.set(bytes, position);
    if (end > this.size) this.size = end;
    this.dirtyFrom = Math.min(this.dirtyFrom, Math.min(position, this.size));
  }

  /** Reads up to `length` bytes at `position` into `target` at `offset`; returns the count. */
  read(position: number, target: Uint8Array, offset: number, length: number): number {
    if (position >= this.size) return 0;
    const count = Math.min(length, this.size - position);
    target.set(this.data.subarray(position, position + count), offset);
    return count;
  }

  truncate(length: number): void {
    if (length > this.data.length) this.data = grow(this.data, this.size, length);
    if (length > this.size) this.data.fill(0, this.size, length);
    this.dirtyFrom = Math.min(this.dirtyFrom, Math.min(length, this.size));
    this.size = length;
  }

  /** fsync/fdatasync: what readers see becomes what a power loss leaves. */
  sync(): void {
    if (this.dirtyFrom === Infinity && this.syncedSize === this.size) return;
    const from = Math.min(this.dirtyFrom, this.size, this.syncedSize);
    if (this.size > this.synced.length) this.synced = grow(this.synced, this.syncedSize, this.size);
    this.data.copy(this.synced, from, from, this.size);
    this.syncedSize = this.size;
    this.dirtyFrom = Infinity;
  }

  /** A power loss: back to the last synced contents. */
  revert(): void {
    if (this.dirtyFrom === Infinity && this.syncedSize === this.size) return;
    const from = Math.min(this.dirtyFrom, this.size, this.syncedSize);
    if (this.syncedSize > this.data.length) this.data = grow(this.data, this.size, this.syncedSize);
    this.synced.copy(this.data, from, from, this.syncedSize);
    this.size = this.syncedSize;
    this.dirtyFrom = Infinity;
  }

  /** Bytes written since the last sync (for reports). */
  get unsynced(): boolean {
    return this.dirtyFrom !== Infinity || this.syncedSize !== this.size;
  }
}

/** A directory of the upper layer; `opaque` unless it stands for a real directory underneath. */
export class DirNode {
  readonly kind = 'dir';
  meta: Meta;
  /** Entries of the upper layer, or WHITEOUT for a real entry deleted here. */
  readonly entries = new Map<string, Node | typeof WHITEOUT>();
  /** True when created here: nothing of the real directory (if any) shows through. */
  opaque: boolean;

  constructor(meta: Meta, opaque: boolean) {
    this.meta = meta;
    this.opaque = opaque;
  }
}

export type Node = FileNode | DirNode;
export const WHITEOUT = Symbol('dst.whiteout');

/** What a path leads to: a node of the upper layer, or a real entry not copied up yet. */
type Found = { node: Node; parent: DirNode | undefined; lower?: undefined } | { node: undefined; parent: DirNode | undefined; lower: LowerStat };

function grow(buffer: Buffer, used: number, atLeast: number): Buffer {
  const bigger = Buffer.alloc(Math.max(atLeast, buffer.length * 2, 64));
  buffer.copy(bigger, 0, 0, used);
  return bigger;
}

function components(abs: string): string[] {
  return abs.split('/').filter((c) => c !== '');
}

export class Disk {
  private readonly root: DirNode;
  private nextIno = 1_000_000;

  constructor(
    private readonly lower: LowerFs,
    /** Virtual wall time in ns, for the times files get. */
    private readonly nowNs: () => bigint,
  ) {
    const rootStat = lower.stat('/');
    this.root = new DirNode(rootStat === undefined ? this.meta(S_IFDIR | 0o755) : this.copyMeta(rootStat.stat), rootStat === undefined);
  }

  private meta(mode: number): Meta {
    const now = this.nowNs();
    return { ino: this.nextIno++, mode, uid: 0, gid: 0, atimeNs: now, mtimeNs: now, ctimeNs: now, birthtimeNs: now };
  }

  private copyMeta(stat: DiskStat): Meta {
    const { ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, birthtimeNs } = stat;
    return { ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, birthtimeNs };
  }

  /**
   * Walks to `abs`. Missing components, or a file where a directory is needed, throw ENOENT or
   * ENOTDIR for `syscall`; the last component may be missing (found is then undefined).
   */
  private walk(abs: string, syscall: string): { parent: DirNode | undefined; name: string; found: Found | undefined } {
    const parts = components(abs);
    if (parts.length === 0) return { parent: undefined, name: '', found: { node: this.root, parent: undefined } };
    let dir: DirNode = this.root;
    let real = '';
    for (let i = 0; i < parts.length - 1; i++) {
      real += '/' + parts[i]!;
      const next = this.child(dir, parts[i]!, real);
      if (next === undefined) throw new DiskError('ENOENT', syscall);
      if (next.node === undefined) {
        if (next.lower.kind !== 'dir') throw new DiskError('ENOTDIR', syscall);
        dir = this.materialise(dir, parts[i]!, next.lower);
      } else if (next.node.kind !== 'dir') {
        throw new DiskError('ENOTDIR', syscall);
      } else {
        dir = next.node;
      }
    }
    const name = parts[parts.length - 1]!;
    return { parent: dir, name, found: this.child(dir, name, abs) };
  }

  /** The entry `name` of `dir` (whose real path is `abs` + name). */
  private child(dir: DirNode, name: string, abs: string): Found | undefined {
    const entry = dir.entries.get(name);
    if (entry === WHITEOUT) return undefined;
    if (entry !== undefined) return { node: entry, parent: dir };
    if (dir.opaque) return undefined;
    const lower = this.lower.stat(abs);
    return lower === undefined ? undefined : { node: undefined, parent: dir, lower };
  }

  /** Makes the upper-layer directory that stands for a real one (nothing is copied). */
  private materialise(parent: DirNode, name: string, lower: LowerStat): DirNode {
    const dir = new DirNode(this.copyMeta(lower.stat), false);
    parent.entries.set(name, dir);
    return dir;
  }

  /** Copies a real file up into the upper layer (its contents are durable: they are on disk). */
  private copyUp(parent: DirNode, name: string, abs: string, lower: LowerStat): Node {
    if (lower.kind === 'dir') return this.materialise(parent, name, lower);
    if (lower.kind !== 'file') throw new DiskError('EPERM', 'open');
    const file = new FileNode(this.copyMeta(lower.stat), this.lower.readFile(abs), true);
    parent.entries.set(name, file);
    return file;
  }

  /** The node at `abs`, copied up if it is real; throws ENOENT when there is none. */
  resolve(abs: string, syscall: string): Node {
    const { parent, name, found } = this.walk(abs, syscall);
    if (found === undefined) throw new DiskError('ENOENT', syscall);
    if (found.node !== undefined) return found.node;
    return this.copyUp(parent!, name, abs, found.lower);
  }

  stat(abs: string, syscall: string): DiskStat {
    const { found } = this.walk(abs, syscall);
    if (found === undefined) throw new DiskError('ENOENT', syscall);
    if (found.node === undefined) return found.lower.stat;
    return this.statOf(found.node);
  }

  /** Whether `abs` exists. */
  exists(abs: string): boolean {
    try {
      return this.walk(abs, 'access').found !== undefined;
    } catch {
      return false;
    }
  }

  statOf(node: Node): DiskStat {
    const { meta } = node;
    const size = node.kind === 'file' ? node.size : BLOCK;
    return {
      dev: DISK_DEV,
      mode: meta.mode,
      nlink: node.kind === 'file' ? node.nlink : 2,
      uid: meta.uid,
      gid: meta.gid,
      rdev: 0,
      blksize: BLOCK,
      ino: meta.ino,
      size,
      blocks: Math.ceil(size / BLOCK) * (BLOCK / 512),
      atimeNs: meta.atimeNs,
      mtimeNs: meta.mtimeNs,
      ctimeNs: meta.ctimeNs,
      birthtimeNs: meta.birthtimeNs,
    };
  }

  /**
   * open(2): the node `abs` names, created as a file with `mode` (the caller applies the umask)
   * when O_CREAT asks and it does not exist. A real file opened only to read is not copied up:
   * the node returned is a copy of it that belongs to no directory.
   */
  open(abs: string, flags: number, mode: number, f: OpenFlags): Node {
    const { parent, name, found } = this.walk(abs, 'open');
    if (found === undefined) {
      if ((flags & f.O_CREAT) === 0 || parent === undefined) throw new DiskError('ENOENT', 'open');
      if ((flags & f.O_DIRECTORY) !== 0) throw new DiskError('EINVAL', 'open');
      const file = new FileNode(this.meta(S_IFREG | (mode & 0o7777)), Buffer.alloc(0), true);
      parent.entries.set(name, file);
      this.touch(parent);
      return file;
    }
    if ((flags & f.O_CREAT) !== 0 && (flags & f.O_EXCL) !== 0) throw new DiskError('EEXIST', 'open');
    const kind = found.node?.kind ?? found.lower!.kind;
    const writing = (flags & 3) !== f.O_RDONLY;
    if (kind === 'dir') {
      if (writing || (flags & f.O_CREAT) !== 0) throw new DiskError('EISDIR', 'open');
    } else if ((flags & f.O_DIRECTORY) !== 0) {
      throw new DiskError('ENOTDIR', 'open');
    }
    // A real file only read stays where it is: this descriptor reads a copy of it.
    if (found.node === undefined && kind === 'file' && !writing) return new FileNode(this.copyMeta(found.lower!.stat), this.lower.readFile(abs), true);
    const node = found.node ?? this.copyUp(parent!, name, abs, found.lower!);
    if (node.kind === 'file' && (flags & f.O_TRUNC) !== 0 && writing && node.size > 0) {
      node.truncate(0);
      this.modified(node);
    }
    return node;
  }

  /** Marks a file's contents (or a directory's entries) changed now. */
  modified(node: Node): void {
    const now = this.nowNs();
    node.meta.mtimeNs = now;
    node.meta.ctimeNs = now;
  }

  private touch(dir: DirNode): void {
    this.modified(dir);
  }

  /** mkdir(2); with `recursive`, every missing parent too, returning the first one made. */
  mkdir(abs: string, mode: number, recursive: boolean): string | undefined {
    if (!recursive) {
      const { parent, name, found } = this.walk(abs, 'mkdir');
      if (found !== undefined || parent === undefined) throw new DiskError('EEXIST', 'mkdir');
      parent.entries.set(name, new DirNode(this.meta(S_IFDIR | (mode & 0o7777)), true));
      this.touch(parent);
      return undefined;
    }
    const parts = components(abs);
    let first: string | undefined;
    let current = '';
    for (const part of parts) {
      current += '/' + part;
      const { parent, name, found } = this.walk(current, 'mkdir');
      if (found !== undefined) {
        const kind = found.node?.kind ?? found.lower!.kind;
        if (kind !== 'dir') throw new DiskError(current === abs ? 'EEXIST' : 'ENOTDIR', 'mkdir');
        continue;
      }
      parent!.entries.set(name, new DirNode(this.meta(S_IFDIR | (mode & 0o7777)), true));
      this.touch(parent!);
      first ??= current;
    }
    return first;
  }

  /** The names in directory `abs`, sorted (real directories list in an order of their own). */
  readdir(abs: string): Array<{ name: string; kind: 'file' | 'dir' | 'other' }> {
    const { found } = this.walk(abs, 'scandir');
    if (found === undefined) throw new DiskError('ENOENT', 'scandir');
    const kind = found.node?.kind ?? found.lower!.kind;
    if (kind !== 'dir') throw new DiskError('ENOTDIR', 'scandir');
    const listed = new Map<string, 'file' | 'dir' | 'other'>();
    const dir = found.node as DirNode | undefined;
    if (dir === undefined || !dir.opaque) {
      for (const name of this.lower.readdir(abs)) {
        if (dir?.entries.has(name)) continue;
        const lower = this.lower.stat(path.posix.join(abs, name));
        if (lower !== undefined) listed.set(name, lower.kind);
      }
    }
    if (dir !== undefined) {
      for (const [name, entry] of dir.entries) if (entry !== WHITEOUT) listed.set(name, entry.kind);
    }
    return [...listed.keys()].sort().map((name) => ({ name, kind: listed.get(name)! }));
  }

  unlink(abs: string): void {
    const { parent, name, found } = this.walk(abs, 'unlink');
    if (found === undefined) throw new DiskError('ENOENT', 'unlink');
    const kind = found.node?.kind ?? found.lower!.kind;
    if (kind === 'dir') throw new DiskError('EISDIR', 'unlink');
    this.removeEntry(parent!, name);
    if (found.node?.kind === 'file') found.node.nlink--;
  }

  rmdir(abs: string): void {
    const { parent, name, found } = this.walk(abs, 'rmdir');
    if (found === undefined) throw new DiskError('ENOENT', 'rmdir');
    const kind = found.node?.kind ?? found.lower!.kind;
    if (kind !== 'dir') throw new DiskError('ENOTDIR', 'rmdir');
    if (parent === undefined) throw new DiskError('EBUSY', 'rmdir');
    if (this.readdir(abs).length > 0) throw new DiskError('ENOTEMPTY', 'rmdir');
    this.removeEntry(parent, name);
  }

  /** rm -r: `abs` and, for a directory, everything under it. */
  removeTree(abs: string, syscall: string): void {
    const { parent, name, found } = this.walk(abs, syscall);
    if (found === undefined) throw new DiskError('ENOENT', syscall);
    if (parent === undefined) throw new DiskError('EBUSY', syscall);
    if ((found.node?.kind ?? found.lower!.kind) === 'dir') {
      for (const entry of this.readdir(abs)) this.removeTree(path.posix.join(abs, entry.name), syscall);
    } else if (found.node?.kind === 'file') {
      found.node.nlink--;
    }
    this.removeEntry(parent, name);
  }

  /** Removes `name` from `parent`: a whiteout hides the real entry of the same name, if any. */
  private removeEntry(parent: DirNode, name: string): void {
    if (parent.opaque) parent.entries.delete(name);
    else parent.entries.set(name, WHITEOUT);
    this.touch(parent);
  }

  rename(from: string, to: string): void {
    const source = this.walk(from, 'rename');
    if (source.found === undefined) throw new DiskError('ENOENT', 'rename');
    const target = this.walk(to, 'rename');
    if (target.parent === undefined || source.parent === undefined) throw new DiskError('EBUSY', 'rename');
    const kind = source.found.node?.kind ?? source.found.lower!.kind;
    if (kind === 'dir' && (to + '/').startsWith(from + '/') && to !== from) throw new DiskError('EINVAL', 'rename');
    if (target.found !== undefined) {
      const targetKind = target.found.node?.kind ?? target.found.lower!.kind;
      if (from === to) return;
      if (kind === 'dir' && targetKind !== 'dir') throw new DiskError('ENOTDIR', 'rename');
      if (kind !== 'dir' && targetKind === 'dir') throw new DiskError('EISDIR', 'rename');
      if (targetKind === 'dir' && this.readdir(to).length > 0) throw new DiskError('ENOTEMPTY', 'rename');
      if (target.found.node?.kind === 'file') target.found.node.nlink--;
    }
    const node = source.found.node ?? this.copyUpTree(source.parent, source.name, from, source.found.lower!);
    this.removeEntry(source.parent, source.name);
    target.parent.entries.set(target.name, node);
    this.touch(target.parent);
    node.meta.ctimeNs = this.nowNs();
  }

  /** Copies a real entry up with everything under it (a directory about to move). */
  private copyUpTree(parent: DirNode, name: string, abs: string, lower: LowerStat): Node {
    const node = this.copyUp(parent, name, abs, lower);
    if (node.kind === 'dir') {
      for (const name of this.lower.readdir(abs)) {
        if (node.entries.has(name)) continue;
        const childAbs = path.posix.join(abs, name);
        const child = this.lower.stat(childAbs);
        if (child !== undefined) this.copyUpTree(node, name, childAbs, child);
      }
      node.opaque = true;
    }
    return node;
  }

  /** A new name for a file: link(2). */
  link(from: string, to: string): void {
    const node = this.resolve(from, 'link');
    if (node.kind === 'dir') throw new DiskError('EPERM', 'link');
    const target = this.walk(to, 'link');
    if (target.found !== undefined || target.parent === undefined) throw new DiskError('EEXIST', 'link');
    target.parent.entries.set(target.name, node);
    node.nlink++;
    this.touch(target.parent);
  }

  /** mkdtemp(3): `prefix` plus six characters from `draw`, created as a directory. */
  mkdtemp(prefix: string, draw: () => string): string {
    for (let attempt = 0; attempt < 100; attempt++) {
      const candidate = prefix + draw();
      if (!this.exists(path.resolve(candidate))) {
        this.mkdir(path.resolve(candidate), 0o700, false);
        return candidate;
      }
    }
    throw new DiskError('EEXIST', 'mkdtemp');
  }

  /**
   * The machine lost power: every file goes back to what was last synced. Names stay (they are
   * journaled), so a file created and never synced comes back empty.
   */
  powerLoss(): void {
    const visit = (dir: DirNode): void => {
      for (const entry of dir.entries.values()) {
        if (entry === WHITEOUT) continue;
        if (entry.kind === 'file') entry.revert();
        else visit(entry);
      }
    };
    visit(this.root);
  }
}

/** The open(2) flag bits the disk needs (from fs.constants). */
export interface OpenFlags {
  O_RDONLY: number;
  O_CREAT: number;
  O_EXCL: number;
  O_TRUNC: number;
  O_DIRECTORY: number;
}
