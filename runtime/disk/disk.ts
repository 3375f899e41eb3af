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
import buffer from 'node:buffer';
import path from 'node:path';
import type { HostDiskFaults } from './faults.js';

/** The kinds of entries a disk lists. */
export type EntryKind = 'file' | 'dir' | 'link' | 'other';

/** What the lower (real) layer reports of a path it has. */
export interface LowerStat {
  kind: EntryKind;
  stat: DiskStat;
  /** A symbolic link's target. */
  target?: string;
}

/** The real file system under the disk, read only (the shim passes reads through to Node). */
export interface LowerFs {
  /** The real entry at `abs` itself (a symbolic link is reported as one, with its target), or undefined if there is none. */
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
const S_IFLNK = 0o120000;
const S_IFSOCK = 0o140000;
const S_IFMT = 0o170000;
const BLOCK = 4096;
/** Symbolic links followed in one path resolution before ELOOP (Linux's MAXSYMLINKS). */
const LINKS_MAX = 40;
/** The device number of a simulated disk with no real root under it ("DS" in ASCII). */
const DISK_DEV = 0x4453;

/** What stat(2) shows of an entry, besides its kind's own fields (a unix socket's name on the real disk has one too). */
export interface Meta {
  /** The device: a real entry's own; a new one's is its directory's. */
  dev: number;
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
  /**
   * The writes and truncations since the last sync, in order, when the disk tears writes at a
   * crash (see tear()); undefined otherwise, so a disk without that fault keeps no copies.
   */
  journal: JournalEntry[] | undefined;
  /**
   * A unix domain socket's file (Disk.makeSocket): what a connect(2) through it reaches, opaque
   * here. It stays when its socket closes without unlinking it (a crash): a stale socket file.
   */
  socket: object | undefined;
  /**
   * Writeback errors so far (a failed fsync, a failed O_SYNC write): Linux's errseq (4.13+).
   * Each open descriptor samples it when opened, and its next fsync fails once with EIO when an
   * error came after its sample, so every descriptor open at the error learns of it once. (The
   * simulator fails writeback only inside an fsync or O_SYNC write, which reports the error, so
   * 4.16's rule for an error nobody has seen, reported to the next opener too, never applies.)
   */
  writebackErrors = 0;
  /**
   * The blocks its real file had when it was copied up (0 for a file the host made): the real
   * disk holds them already, so only what the host's writes add beyond them takes room (quota).
   */
  realBlocks = 0;

  /** A file whose `contents` are durable: a new empty one, or a real one copied up. */
  constructor(meta: Meta, contents: Buffer = Buffer.alloc(0)) {
    this.meta = meta;
    this.data = Buffer.from(contents);
    this.size = contents.length;
    this.synced = Buffer.from(contents);
    this.syncedSize = contents.length;
  }

  /** Writes `bytes` at `position` (growing the file, zero-filled, as pwrite does). */
  write(position: number, bytes: Uint8Array): void {
    if (this.journal !== undefined) this.journal.push({ at: position, bytes: Buffer.from(bytes) });
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
    if (this.journal !== undefined) this.journal.push({ at: length, bytes: undefined });
    if (length > this.data.length) this.data = grow(this.data, this.size, length);
    if (length > this.size) this.data.fill(0, this.size, length);
    this.dirtyFrom = Math.min(this.dirtyFrom, Math.min(length, this.size));
    this.size = length;
  }

  /**
   * Where the contents readers see and the synced ones begin to differ, or undefined when they
   * are the same; marks them the same, as the caller is about to make them.
   */
  private settle(): number | undefined {
    if (this.dirtyFrom === Infinity && this.syncedSize === this.size) return undefined;
    const from = Math.min(this.dirtyFrom, this.size, this.syncedSize);
    this.dirtyFrom = Infinity;
    return from;
  }

  /** fsync/fdatasync: what readers see becomes what a power loss leaves. */
  sync(): void {
    if (this.journal !== undefined) this.journal.length = 0;
    const from = this.settle();
    if (from === undefined) return;
    if (this.size > this.synced.length) this.synced = grow(this.synced, this.syncedSize, this.size);
    this.data.copy(this.synced, from, from, this.size);
    this.syncedSize = this.size;
  }

  /**
   * A power loss, or a failed fsync (the kernel dropped the dirty pages): back to the last synced
   * contents.
   */
  revert(): void {
    if (this.journal !== undefined) this.journal.length = 0;
    const from = this.settle();
    if (from === undefined) return;
    if (this.syncedSize > this.data.length) this.data = grow(this.data, this.size, this.syncedSize);
    this.synced.copy(this.data, from, from, this.syncedSize);
    this.size = this.syncedSize;
  }

  /** Starts recording the unsynced writes (see journal); what is unsynced already counts as one write. */
  startJournal(): void {
    if (this.journal !== undefined) return;
    this.journal = [];
    if (!this.dirty) return;
    if (this.size < this.syncedSize) this.journal.push({ at: this.size, bytes: undefined });
    const from = Math.min(this.dirtyFrom, this.size, this.syncedSize);
    if (from < this.size) this.journal.push({ at: from, bytes: Buffer.from(this.data.subarray(from, this.size)) });
  }

  /**
   * A power loss with torn writes: starting from the synced contents, each unsynced write (in the
   * order made) reaches the disk whole, not at all, or up to a sector boundary inside it, each
   * independently, so a later write can survive an earlier one; a truncation survives or not.
   * Where a surviving write lies past the end, the gap reads as zeros.
   *
   * A truncation is metadata, which a journaling filesystem commits in order: once one is lost,
   * every later one is too, and so is every later write's part at or past the size it cut to,
   * whose blocks were freed by it and allocated anew after it (ext4, XFS). Before, a lost
   * `O_TRUNC` under a surviving rewrite left the new head over the old tail at the old size
   * (writeFile of 'new' over a synced 'OLD-OLD-OLD' gave 'new-OLD-OLD'), which no instant held.
   */
  tear(draw: (n: number) => number, sectorBytes: number): void {
    const journal = this.journal ?? [];
    if (journal.length === 0) {
      this.revert();
      return;
    }
    let image: Buffer = Buffer.alloc(Math.max(this.syncedSize, 64));
    this.synced.copy(image, 0, 0, this.syncedSize);
    let size = this.syncedSize;
    const ensure = (end: number): void => {
      if (end > image.length) image = grow(image, size, end);
      if (end > size) image.fill(0, size, end);
    };
    // The size the first lost truncation cut to (Infinity while none is lost).
    let lostFrom = Infinity;
    for (const entry of journal) {
      if (entry.bytes === undefined) {
        // A truncation: survives or not (drawn either way, so what other entries draw stays).
        const survives = draw(2) !== 0;
        if (!survives || lostFrom !== Infinity) {
          lostFrom = Math.min(lostFrom, entry.at);
          continue;
        }
        ensure(entry.at);
        size = entry.at;
        continue;
      }
      const fate = draw(3); // 0 lost, 1 whole, 2 torn at a sector boundary inside it
      if (fate === 0) continue;
      let end = entry.at + entry.bytes.length;
      if (fate === 2) {
        const first = Math.floor(entry.at / sectorBytes) + 1;
        const last = Math.ceil(end / sectorBytes) - 1;
        if (last < first) continue; // within one sector: a torn sector is a lost one
        end = (first + draw(last - first + 1)) * sectorBytes;
      }
      if (end > lostFrom) end = Math.max(entry.at, lostFrom);
      if (end <= entry.at) continue;
      ensure(end);
      entry.bytes.copy(image, entry.at, 0, end - entry.at);
      if (end > size) size = end;
    }
    journal.length = 0;
    this.data = image;
    this.size = size;
    this.synced = Buffer.from(image);
    this.syncedSize = size;
    this.dirtyFrom = Infinity;
  }

  /** Whether it holds anything a power loss would lose. */
  get dirty(): boolean {
    return this.dirtyFrom !== Infinity || this.syncedSize !== this.size;
  }
}

/** One unsynced change: a write of `bytes` at `at`, or a truncation to `at` (bytes undefined). */
export interface JournalEntry {
  at: number;
  bytes: Buffer | undefined;
}

/** A symbolic link of the upper layer. */
export class LinkNode {
  readonly kind = 'link';
  meta: Meta;
  nlink = 1;
  constructor(
    meta: Meta,
    readonly target: string,
  ) {
    this.meta = meta;
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
  /** Its link count: 2, plus one per subdirectory (their '..'). */
  links: number;

  constructor(meta: Meta, opaque: boolean, links = 2) {
    this.meta = meta;
    this.opaque = opaque;
    this.links = links;
  }
}

export type Node = FileNode | DirNode | LinkNode;
export const WHITEOUT = Symbol('dst.whiteout');

/** What a path leads to: a node of the upper layer, or a real entry not copied up yet. */
type Found = { node: Node; lower?: undefined } | { node: undefined; lower: LowerStat };

/** Where a path led: the entry (if any), the directory holding it, its name, its real path. */
interface Walked {
  parent: DirNode | undefined;
  name: string;
  found: Found | undefined;
  /** The normalised absolute path of the entry (what the real layer is asked about). */
  real: string;
  /** The path ended in '/': it names a directory (or a directory to be made). */
  trailingSlash: boolean;
}

/** The largest file a simulated disk holds (it lives in memory, in one Buffer). */
const FILE_SIZE_MAX = buffer.constants.MAX_LENGTH;

function grow(bytes: Buffer, used: number, atLeast: number): Buffer {
  if (atLeast > FILE_SIZE_MAX) throw new DiskError('EFBIG', 'write');
  const bigger = Buffer.alloc(Math.min(FILE_SIZE_MAX, Math.max(atLeast, bytes.length * 2, 64)));
  bytes.copy(bigger, 0, 0, used);
  return bigger;
}

function kindOf(found: Found): EntryKind {
  return found.node?.kind ?? found.lower!.kind;
}

/** A symbolic link's target, upper or lower layer. */
function linkTarget(found: Found): string {
  return found.node !== undefined ? (found.node as LinkNode).target : found.lower.target!;
}

/** Blocks of 4 KiB a file of `size` bytes takes (what a quota counts). */
export function blockBytes(size: number): number {
  return Math.ceil(size / BLOCK) * BLOCK;
}

/**
 * The room `node` takes of its disk's quota at `size` bytes: its blocks beyond those of the real
 * file it was copied up from (reading a real file takes none; growing it takes what it adds).
 */
export function chargedBytes(node: FileNode, size: number): number {
  return Math.max(0, blockBytes(size) - node.realBlocks);
}

export class Disk {
  private readonly root: DirNode;
  private nextIno = 1_000_000;
  /** The faults of this disk (errors, latency, space, torn writes), or undefined when it has none: the common case costs nothing. */
  faults: HostDiskFaults | undefined;

  constructor(
    private readonly lower: LowerFs,
    /** Virtual wall time in ns, for the times files get. */
    private readonly nowNs: () => bigint,
  ) {
    const rootStat = lower.stat('/');
    this.root = new DirNode(rootStat === undefined ? this.meta(S_IFDIR | 0o755, DISK_DEV) : this.copyMeta(rootStat.stat), rootStat === undefined);
  }

  /** Metadata of a new entry: owned by this process's user and group, as the kernel would make it. */
  private meta(mode: number, dev: number): Meta {
    const now = this.nowNs();
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    return { dev, ino: this.nextIno++, mode, uid, gid, atimeNs: now, mtimeNs: now, ctimeNs: now, birthtimeNs: now };
  }

  private copyMeta(stat: DiskStat): Meta {
    const { dev, ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, birthtimeNs } = stat;
    return { dev, ino, mode, uid, gid, atimeNs, mtimeNs, ctimeNs, birthtimeNs };
  }

  /**
   * Resolves `raw` (absolute, not normalised) component by component, as the kernel does: every
   * component before the last must exist and be a directory (ENOENT, ENOTDIR) or a symbolic link
   * to one, `..` goes back to the directory reached before (after a link, the target's parent),
   * and a trailing slash after anything but a directory is ENOTDIR. Symbolic links are followed
   * before the last component, and at the last when `follow` says so or a trailing slash asks for
   * a directory (unless `slashFollows` is false: mkdir does not follow even then); more than 40
   * is ELOOP. The last component may be missing (found is then undefined; through a dangling
   * link, the place its target would be). The empty path is ENOENT.
   */
  private walk(raw: string, syscall: string, follow = true, slashFollows = true): Walked {
    if (raw === '') throw new DiskError('ENOENT', syscall);
    const trailingSlash = raw.length > 1 && raw.endsWith('/');
    let parts = raw.split('/').filter((c) => c !== '');
    let at = 0;
    // The directories reached, each with its name and normalised real path.
    const stack: Array<{ dir: DirNode; name: string; real: string }> = [{ dir: this.root, name: '', real: '/' }];
    const below = (real: string, name: string): string => (real === '/' ? `/${name}` : `${real}/${name}`);
    let last: { name: string; found: Found | undefined; real: string } | undefined;
    let links = 0;
    /** Goes on from a symbolic link: its target's components come next (from the root if absolute). */
    const enterLink = (found: Found, rest: string[]): void => {
      if (++links > LINKS_MAX) throw new DiskError('ELOOP', syscall);
      const target = linkTarget(found);
      if (target.startsWith('/')) stack.length = 1;
      parts = [...target.split('/').filter((c) => c !== ''), ...rest];
      at = 0;
      last = undefined;
    };
    for (;;) {
      if (at === parts.length) {
        const end = last as { found: Found | undefined } | undefined;
        if (end?.found !== undefined && kindOf(end.found) === 'link' && (follow || (trailingSlash && slashFollows))) {
          enterLink(end.found, []);
          continue;
        }
        break;
      }
      const part = parts[at]!;
      if (last !== undefined) {
        // The previous component was looked up as a name: now it must be a directory to go on.
        const previous = last as { name: string; found: Found | undefined; real: string };
        if (previous.found === undefined) throw new DiskError('ENOENT', syscall);
        const kind = kindOf(previous.found);
        if (kind === 'link') {
          enterLink(previous.found, parts.slice(at));
          continue;
        }
        if (kind !== 'dir') throw new DiskError('ENOTDIR', syscall);
        const top = stack[stack.length - 1]!.dir;
        const dir = previous.found.node === undefined ? this.materialise(top, previous.name, previous.found.lower) : (previous.found.node as DirNode);
        stack.push({ dir, name: previous.name, real: previous.real });
        last = undefined;
      }
      at++;
      if (part === '.') continue;
      if (part === '..') {
        if (stack.length > 1) stack.pop();
        continue;
      }
      const top = stack[stack.length - 1]!;
      const real = below(top.real, part);
      last = { name: part, found: this.child(top.dir, part, real), real };
    }
    const top = stack[stack.length - 1]!;
    const end = last as { name: string; found: Found | undefined; real: string } | undefined;
    if (end === undefined) {
      // The path ends at a directory already reached ('/', 'a/..', 'a/.').
      const parent = stack.length > 1 ? stack[stack.length - 2]!.dir : undefined;
      return { parent, name: top.name, found: { node: top.dir }, real: top.real, trailingSlash };
    }
    if (trailingSlash && end.found !== undefined && kindOf(end.found) !== 'dir' && (slashFollows || kindOf(end.found) !== 'link')) {
      throw new DiskError('ENOTDIR', syscall);
    }
    return { parent: top.dir, name: end.name, found: end.found, real: end.real, trailingSlash };
  }

  /** The entry `name` of `dir`, whose real path is `real`. */
  private child(dir: DirNode, name: string, real: string): Found | undefined {
    const entry = dir.entries.get(name);
    if (entry === WHITEOUT) return undefined;
    if (entry !== undefined) return { node: entry };
    if (dir.opaque) return undefined;
    const lower = this.lower.stat(real);
    return lower === undefined ? undefined : { node: undefined, lower };
  }

  /** Makes the upper-layer directory that stands for a real one (nothing is copied). */
  private materialise(parent: DirNode, name: string, lower: LowerStat): DirNode {
    const dir = new DirNode(this.copyMeta(lower.stat), false, lower.stat.nlink);
    parent.entries.set(name, dir);
    return dir;
  }

  /** Copies a real entry up into the upper layer (a file's contents are durable: they are on disk). */
  private copyUp(walked: Walked): Node {
    const { parent, name, found, real } = walked;
    if (found?.node !== undefined) return found.node;
    const lower = found!.lower!;
    if (lower.kind === 'dir') return this.materialise(parent!, name, lower);
    if (lower.kind === 'link') {
      const link = new LinkNode(this.copyMeta(lower.stat), lower.target!);
      parent!.entries.set(name, link);
      return link;
    }
    if (lower.kind !== 'file') throw new DiskError('EPERM', 'open');
    const file = new FileNode(this.copyMeta(lower.stat), this.lower.readFile(real));
    file.realBlocks = blockBytes(file.size);
    parent!.entries.set(name, file);
    return file;
  }

  /**
   * The node at `raw`, copied up if it is real; throws ENOENT when there is none. A symbolic
   * link at the end is followed unless `follow` is false (lchown, lutimes, link).
   */
  resolve(raw: string, syscall: string, follow = true): Node {
    const walked = this.walk(raw, syscall, follow);
    if (walked.found === undefined) throw new DiskError('ENOENT', syscall);
    return this.copyUp(walked);
  }

  /** The normalised path `raw` resolves to, every symbolic link followed (realpath(3)). */
  realpath(raw: string): string {
    const walked = this.walk(raw, 'realpath');
    if (walked.found === undefined) throw new DiskError('ENOENT', 'realpath');
    return walked.real;
  }

  /** stat(2), or lstat(2) when `follow` is false: a symbolic link at the end is then itself. */
  stat(raw: string, syscall: string, follow = true): DiskStat {
    const { found } = this.walk(raw, syscall, follow);
    if (found === undefined) throw new DiskError('ENOENT', syscall);
    if (found.node === undefined) return found.lower.stat;
    return this.statOf(found.node);
  }

  /** Whether `raw` exists (as existsSync answers: no error, just false). */
  exists(raw: string): boolean {
    try {
      return this.walk(raw, 'access').found !== undefined;
    } catch {
      return false;
    }
  }

  statOf(node: Node): DiskStat {
    const { meta } = node;
    if (node.kind === 'link') {
      // ext4 keeps a target shorter than 60 bytes in the inode itself: no block.
      const size = Buffer.byteLength(node.target);
      return { ...this.statOf({ kind: 'file', meta, size: 0, nlink: node.nlink } as FileNode), size, blocks: size < 60 ? 0 : BLOCK / 512 };
    }
    const size = node.kind === 'file' ? node.size : BLOCK;
    return {
      dev: meta.dev,
      mode: meta.mode,
      nlink: node.kind === 'file' ? node.nlink : node.links,
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
   * open(2): the node `raw` names, created as a file with `mode` (the caller applies the umask)
   * when O_CREAT asks and it does not exist. A real file opened is copied up, so every
   * descriptor of it sees the same contents.
   */
  open(raw: string, flags: number, mode: number, f: OpenFlags): Node {
    const exclusive = (flags & f.O_CREAT) !== 0 && (flags & f.O_EXCL) !== 0;
    // O_CREAT|O_EXCL does not follow a link at the end (it exists: EEXIST), O_NOFOLLOW refuses one (ELOOP).
    const walked = this.walk(raw, 'open', !exclusive && (flags & f.O_NOFOLLOW) === 0);
    const { parent, name, found } = walked;
    if (found === undefined) {
      if ((flags & f.O_CREAT) === 0 || parent === undefined) throw new DiskError('ENOENT', 'open');
      if (walked.trailingSlash) throw new DiskError('EISDIR', 'open');
      if ((flags & f.O_DIRECTORY) !== 0) throw new DiskError('EINVAL', 'open');
      const file = new FileNode(this.meta(S_IFREG | (mode & 0o7777), parent.meta.dev));
      parent.entries.set(name, file);
      this.modified(parent);
      return file;
    }
    if (exclusive) throw new DiskError('EEXIST', 'open');
    const kind = kindOf(found);
    if (kind === 'link') throw new DiskError('ELOOP', 'open');
    const writing = (flags & 3) !== f.O_RDONLY;
    if (kind === 'dir') {
      if (writing || (flags & f.O_CREAT) !== 0) throw new DiskError('EISDIR', 'open');
    } else if ((flags & f.O_DIRECTORY) !== 0) {
      throw new DiskError('ENOTDIR', 'open');
    }
    const node = this.copyUp(walked);
    // open(2) of a unix domain socket's file.
    if (node.kind === 'file' && node.socket !== undefined) throw new DiskError('ENXIO', 'open');
    // Linux truncates on O_TRUNC even for a read-only open, and an existing file's times change
    // even when it was empty already (handle_truncate, whatever the size).
    if (node.kind === 'file' && (flags & f.O_TRUNC) !== 0) {
      if (node.size > 0) {
        node.truncate(0);
        this.usedBytes = undefined;
      }
      this.modified(node);
    }
    return node;
  }

  /** Virtual wall time now, in ns. */
  now(): bigint {
    return this.nowNs();
  }

  /** Marks a file's contents (or a directory's entries) changed now. */
  modified(node: Node): void {
    const now = this.nowNs();
    node.meta.mtimeNs = now;
    node.meta.ctimeNs = now;
  }

  /**
   * bind(2) of a unix domain socket to `raw`: a socket file made with `mode` (the caller applies
   * the umask), standing for `socket`. EADDRINUSE when anything is at that name, a dangling
   * symbolic link included (bind does not follow it).
   */
  makeSocket(raw: string, mode: number, socket: object): void {
    const { parent, name, found, trailingSlash } = this.walk(raw, 'bind', false, false);
    if (found !== undefined) throw new DiskError('EADDRINUSE', 'bind');
    if (parent === undefined || trailingSlash) throw new DiskError('ENOENT', 'bind');
    const file = new FileNode(this.meta(S_IFSOCK | (mode & 0o7777), parent.meta.dev));
    file.socket = socket;
    parent.entries.set(name, file);
    this.modified(parent);
  }

  /**
   * What connect(2) to the unix domain socket file `raw` reaches (symbolic links followed):
   * ENOENT when nothing is there, ECONNREFUSED when it is not a socket's file (a real socket
   * file underneath belongs to no simulated socket).
   */
  socketAt(raw: string): object {
    const { found } = this.walk(raw, 'connect');
    if (found === undefined) throw new DiskError('ENOENT', 'connect');
    const socket = found.node?.kind === 'file' ? found.node.socket : undefined;
    if (socket === undefined) throw new DiskError('ECONNREFUSED', 'connect');
    return socket;
  }

  /** libuv's uv_pipe_chmod of a socket's file: its permissions become `bits` (`exact`), or get them added. */
  chmodSocket(raw: string, bits: number, exact: boolean): void {
    const node = this.resolve(raw, 'chmod');
    if (!exact && (node.meta.mode & bits) === bits) return;
    node.meta.mode = (node.meta.mode & S_IFMT) | ((exact ? bits : node.meta.mode | bits) & 0o7777);
    node.meta.ctimeNs = this.nowNs();
  }

  /** mkdir(2) (not recursive: the shim runs Node's mkdir -p over this). */
  mkdir(raw: string, mode: number): void {
    const { parent, name, found } = this.walk(raw, 'mkdir', false, false);
    if (found !== undefined || parent === undefined) throw new DiskError('EEXIST', 'mkdir');
    parent.entries.set(name, new DirNode(this.meta(S_IFDIR | (mode & 0o7777), parent.meta.dev), true));
    parent.links++;
    this.modified(parent);
  }

  /** The entries of directory `raw`, sorted by name (a real directory lists in an order of its own). */
  readdir(raw: string): Array<{ name: string; kind: EntryKind }> {
    return this.list(this.walk(raw, 'scandir'));
  }

  private list(walked: Walked): Array<{ name: string; kind: EntryKind }> {
    const { found, real } = walked;
    if (found === undefined) throw new DiskError('ENOENT', 'scandir');
    if (kindOf(found) !== 'dir') throw new DiskError('ENOTDIR', 'scandir');
    const listed = new Map<string, EntryKind>();
    const dir = found.node as DirNode | undefined;
    if (dir === undefined || !dir.opaque) {
      for (const name of this.lower.readdir(real)) {
        if (dir?.entries.has(name)) continue;
        const lower = this.lower.stat(path.posix.join(real, name));
        if (lower !== undefined) listed.set(name, lower.kind);
      }
    }
    if (dir !== undefined) {
      for (const [name, entry] of dir.entries) if (entry !== WHITEOUT) listed.set(name, entry.kind === 'file' && entry.socket !== undefined ? 'other' : entry.kind);
    }
    return [...listed.keys()].sort().map((name) => ({ name, kind: listed.get(name)! }));
  }

  unlink(raw: string): void {
    // Neither the last component nor a trailing slash after it is followed: 'link/' is ENOTDIR.
    const { parent, name, found, trailingSlash } = this.walk(raw, 'unlink', false, false);
    if (found === undefined) throw new DiskError('ENOENT', 'unlink');
    if (kindOf(found) === 'dir') throw new DiskError('EISDIR', 'unlink');
    if (trailingSlash) throw new DiskError('ENOTDIR', 'unlink');
    this.removeEntry(parent!, name, 'file');
    if (found.node !== undefined && found.node.kind !== 'dir') {
      found.node.nlink--;
      found.node.meta.ctimeNs = this.nowNs(); // its link count changed (seen through its other names and open descriptors)
    }
  }

  rmdir(raw: string): void {
    const walked = this.walk(raw, 'rmdir', false, false);
    const { parent, name, found } = walked;
    if (found === undefined) throw new DiskError('ENOENT', 'rmdir');
    if (kindOf(found) !== 'dir') throw new DiskError('ENOTDIR', 'rmdir');
    if (parent === undefined) throw new DiskError('EBUSY', 'rmdir');
    if (/(^|\/)\.\/*$/.test(raw)) throw new DiskError('EINVAL', 'rmdir');
    if (this.list(walked).length > 0) throw new DiskError('ENOTEMPTY', 'rmdir');
    this.removeEntry(parent, name, 'dir');
  }

  /** rm -r: `raw` and, for a directory, everything under it. */
  removeTree(raw: string, syscall: string): void {
    const walked = this.walk(raw, syscall, false, false);
    const { parent, name, found } = walked;
    if (found === undefined) throw new DiskError('ENOENT', syscall);
    if (parent === undefined) throw new DiskError('EBUSY', syscall);
    if (kindOf(found) === 'dir') {
      for (const entry of this.list(walked)) this.removeTree(path.posix.join(walked.real, entry.name), syscall);
    } else if (found.node !== undefined && found.node.kind !== 'dir') {
      found.node.nlink--;
    }
    this.removeEntry(parent, name, kindOf(found));
  }

  /** Removes `name` from `parent`: a whiteout hides the real entry of the same name, if any. */
  private removeEntry(parent: DirNode, name: string, kind: EntryKind): void {
    this.usedBytes = undefined;
    if (kind === 'dir') parent.links--;
    if (parent.opaque) parent.entries.delete(name);
    else parent.entries.set(name, WHITEOUT);
    this.modified(parent);
  }

  rename(from: string, to: string): void {
    const source = this.walk(from, 'rename', false, false);
    if (source.found === undefined) throw new DiskError('ENOENT', 'rename');
    if (source.trailingSlash && kindOf(source.found) !== 'dir') throw new DiskError('ENOTDIR', 'rename');
    const target = this.walk(to, 'rename', false, false);
    if (target.parent === undefined || source.parent === undefined) throw new DiskError('EBUSY', 'rename');
    const kind = kindOf(source.found);
    if (kind === 'dir' && (target.real + '/').startsWith(source.real + '/') && target.real !== source.real) throw new DiskError('EINVAL', 'rename');
    if (kind !== 'dir' && target.found === undefined && target.trailingSlash) throw new DiskError('ENOTDIR', 'rename');
    if (target.found !== undefined) {
      // The same entry, or two names of one file: rename does nothing.
      if (target.real === source.real || (target.found.node !== undefined && target.found.node === source.found.node)) return;
      const targetKind = kindOf(target.found);
      if (kind === 'dir' && targetKind !== 'dir') throw new DiskError('ENOTDIR', 'rename');
      if (kind !== 'dir' && targetKind === 'dir') throw new DiskError('EISDIR', 'rename');
      if (targetKind === 'dir' && this.list(target).length > 0) throw new DiskError('ENOTEMPTY', 'rename');
      if (target.found.node !== undefined && target.found.node.kind !== 'dir') target.found.node.nlink--;
      if (targetKind === 'dir') target.parent.links--;
    }
    const node = this.copyUpTree(source);
    this.removeEntry(source.parent, source.name, kind);
    if (kind === 'dir') target.parent.links++;
    target.parent.entries.set(target.name, node);
    this.modified(target.parent);
    node.meta.ctimeNs = this.nowNs();
  }

  /**
   * Copies an entry up with everything under it (a directory about to move): its real
   * entries, and those of the directories under it that stand for real ones. A directory
   * already in the upper layer because something in it was written (materialise) still reads
   * its other entries from its real path, which it is about to leave: they are copied up too.
   * Before, moving such a directory lost its other real files (its new name listed ENOENT, or
   * the real directory it replaced).
   */
  private copyUpTree(walked: Walked): Node {
    const node = this.copyUp(walked);
    if (node.kind === 'dir') this.sealDir(node, walked.real);
    return node;
  }

  /** Makes `dir`, which stands for the real directory `real`, hold all its entries itself (opaque). */
  private sealDir(dir: DirNode, real: string): void {
    if (dir.opaque) return;
    for (const name of this.lower.readdir(real)) {
      const below = path.posix.join(real, name);
      const entry = dir.entries.get(name);
      if (entry === undefined) {
        const lower = this.lower.stat(below);
        if (lower !== undefined) this.copyUpTree({ parent: dir, name, found: { node: undefined, lower }, real: below, trailingSlash: false });
      } else if (entry !== WHITEOUT && entry.kind === 'dir') {
        this.sealDir(entry, below);
      }
    }
    dir.opaque = true;
  }

  /** A new name for a file: link(2), which does not follow a symbolic link (the new name is one too). */
  link(from: string, to: string): void {
    const node = this.resolve(from, 'link', false);
    if (node.kind === 'dir') throw new DiskError('EPERM', 'link');
    const target = this.walk(to, 'link', false);
    if (target.found !== undefined || target.parent === undefined) throw new DiskError('EEXIST', 'link');
    target.parent.entries.set(target.name, node);
    node.nlink++;
    node.meta.ctimeNs = this.nowNs(); // its link count changed
    this.modified(target.parent);
  }

  /** symlink(2): a new name `path` holding `target`, which is not looked at (it may not exist). */
  symlink(target: string, path: string): void {
    if (target === '') throw new DiskError('ENOENT', 'symlink');
    const walked = this.walk(path, 'symlink', false, false);
    if (walked.found !== undefined || walked.parent === undefined) throw new DiskError('EEXIST', 'symlink');
    if (walked.trailingSlash) throw new DiskError('ENOENT', 'symlink');
    walked.parent.entries.set(walked.name, new LinkNode(this.meta(S_IFLNK | 0o777, walked.parent.meta.dev), target));
    this.modified(walked.parent);
  }

  /** readlink(2): the target of the symbolic link `path` (EINVAL for anything else). */
  readlink(path: string): string {
    const { found } = this.walk(path, 'readlink', false);
    if (found === undefined) throw new DiskError('ENOENT', 'readlink');
    if (kindOf(found) !== 'link') throw new DiskError('EINVAL', 'readlink');
    return linkTarget(found);
  }

  /** mkdtemp(3): `prefix` (absolute) plus six characters from `draw`, made as a directory. */
  mkdtemp(prefix: string, draw: () => string): string {
    for (let attempt = 0; attempt < 100; attempt++) {
      const candidate = prefix + draw();
      try {
        this.mkdir(candidate, 0o700);
        return candidate;
      } catch (error) {
        if (!(error instanceof DiskError)) throw error;
        if (error.code !== 'EEXIST') throw new DiskError(error.code, 'mkdtemp');
      }
    }
    throw new DiskError('EEXIST', 'mkdtemp');
  }

  /**
   * The machine lost power: every file goes back to what was last synced. Names stay (they are
   * journaled), so a file created and never synced comes back empty. With `tear` (torn writes,
   * see FileNode.tear) the unsynced writes of each file survive whole, partly or not at all,
   * from `draw(n)` (an integer in [0, n)).
   */
  powerLoss(tear?: { draw: (n: number) => number; sectorBytes: number }): void {
    this.usedBytes = undefined;
    const visit = (dir: DirNode): void => {
      for (const entry of dir.entries.values()) {
        if (entry === WHITEOUT || entry.kind === 'link') continue;
        if (entry.kind === 'file') {
          if (tear !== undefined && entry.dirty) entry.tear(tear.draw, tear.sectorBytes);
          else entry.revert();
        } else visit(entry);
      }
    };
    visit(this.root);
  }

  /**
   * Bytes the host's files take (each file in 4 KiB blocks, a file with several names once):
   * what a quota counts. Files of the real disk count once the host has opened them for
   * writing (copied up). Counted when asked after a change of names, kept up by noteGrowth()
   * while only contents change.
   */
  usedBytes: number | undefined;

  /**
   * The nodes the disk's host holds open now (its descriptors; set by the fs shim): a file
   * unlinked while open keeps its blocks until its last descriptor closes, as on Linux (the
   * deleted log a process still writes that fills the disk).
   */
  openNodes: (() => Iterable<Node>) | undefined;

  used(): number {
    let orphans = 0;
    if (this.openNodes !== undefined) {
      const counted = new Set<FileNode>();
      for (const node of this.openNodes()) {
        if (node.kind !== 'file' || node.nlink > 0 || counted.has(node)) continue;
        counted.add(node);
        orphans += chargedBytes(node, node.size);
      }
    }
    return this.namedBytes() + orphans;
  }

  /** The blocks of the files that have a name. */
  private namedBytes(): number {
    if (this.usedBytes !== undefined) return this.usedBytes;
    const seen = new Set<FileNode>();
    let total = 0;
    const visit = (dir: DirNode): void => {
      for (const entry of dir.entries.values()) {
        if (entry === WHITEOUT || entry.kind === 'link') continue;
        if (entry.kind === 'dir') visit(entry);
        else if (!seen.has(entry)) {
          seen.add(entry);
          total += chargedBytes(entry, entry.size);
        }
      }
    };
    visit(this.root);
    return (this.usedBytes = total);
  }

  /** `node`'s size went from `before` bytes to its size now (a write, a truncation): the use follows. */
  noteGrowth(node: FileNode, before: number): void {
    // A file without a name is counted afresh from its size while it is open (used()).
    if (this.usedBytes !== undefined && node.nlink > 0) this.usedBytes += chargedBytes(node, node.size) - chargedBytes(node, before);
  }
}

/** The open(2) flag bits the disk needs (from fs.constants). */
export interface OpenFlags {
  O_RDONLY: number;
  O_CREAT: number;
  O_EXCL: number;
  O_TRUNC: number;
  O_DIRECTORY: number;
  O_NOFOLLOW: number;
}
