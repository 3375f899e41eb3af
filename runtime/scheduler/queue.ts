import { kSeq, type QueueEntry } from './event.js';
import { shapesKept } from './shape-keeper.js';

/**
 * A binary min-heap of numbers (the distinct virtual times that have pending events).
 * Hand-written instead of heap-js: with ~1,000 timers pending, heap-js's comparator-based
 * push + pop cost 180-270 ns per event against 35-55 ns for this queue as a whole
 * (measured by the bench's profile, docs/benchmarks.md).
 */
class TimeHeap {
  private items: number[] = [];

  get length(): number {
    return this.items.length;
  }

  peek(): number | undefined {
    return this.items[0];
  }

  push(value: number): void {
    const items = this.items;
    let i = items.length;
    items.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent]!;
      if (p <= value) break;
      items[i] = p;
      i = parent;
    }
    items[i] = value;
  }

  pop(): number | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      const n = items.length;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        const child = right < n && items[right]! < items[left]! ? right : left;
        if (items[child]! >= last) break;
        items[i] = items[child]!;
        i = child;
      }
      items[i] = last;
    }
    return top;
  }

  clear(): void {
    this.items = [];
  }

  toArray(): number[] {
    return [...this.items];
  }
}

/**
 * Entries of one instant, in sequence order (sequences only grow, so appending keeps order),
 * each beside the sequence number it was queued with: places head..tail-1 of the two arrays.
 * Drained buckets are reused with their arrays, so a busy instant costs no array growth.
 */
class Bucket<E extends QueueEntry> {
  timeNs = 0;
  readonly entries: Array<E | undefined> = [];
  readonly seqs: number[] = [];
  head = 0;
  tail = 0;
}

/**
 * Buckets recently pushed to, by a hash of their instant (about a millisecond per slot): timers
 * re-arm into the same few instants again and again, and this saves most Map lookups.
 */
const RECENT_SLOTS = 64;
const recentSlot = (timeNs: number): number => (timeNs / 1_048_576) & (RECENT_SLOTS - 1);

/** What a dropped entry leaves in its place: stale for every sequence number (they start at 1). */
const TOMBSTONE = { [kSeq]: -1 } as unknown as QueueEntry;

/** Drained buckets kept for reuse, and the largest one worth keeping (places). */
const POOL_MAX = 64;
const POOLED_CAPACITY_MAX = 4096;

/**
 * Drained buckets, shared by every queue of the process. Besides saving allocations, the pool
 * keeps the Bucket map alive between runs: V8 holds the maps it embeds in optimized code weakly,
 * and when the last bucket of a run died, every optimized function of the event path that had
 * inlined push/peek/pop was thrown away ("weak objects" in --trace-deopt) and optimized again in
 * the next run (shape-keeper.ts). Pooled buckets hold no entries. With DST_KEEP_SHAPES=0 a run's
 * end empties the pool, as when each queue had its own.
 */
const pool: Array<Bucket<QueueEntry>> = [];

function poolBucket(bucket: Bucket<QueueEntry>): void {
  if (pool.length >= POOL_MAX || bucket.entries.length > POOLED_CAPACITY_MAX) return;
  bucket.head = 0;
  bucket.tail = 0;
  pool.push(bucket);
}

/**
 * The simulation's single event queue, totally ordered by (timeNs, seq) (but for pushFirst).
 *
 * Entries are grouped by their instant: one FIFO per distinct virtual time, and a heap of those
 * times. Every entry is pushed with a sequence number larger than any before it, so each FIFO
 * is already in sequence order and the whole queue pops in exactly (timeNs, seq) order — the
 * order of one big heap — while most pushes and pops are O(1).
 *
 * An entry is live at the place whose sequence number equals its [kSeq]. Cancelling an entry
 * (kSeq = 0) or queueing it again elsewhere (a new kSeq) leaves its old place stale; peek() drops
 * stale places as it meets them.
 *
 * `E` is the type of its entries (World's carry hosts of a World); the queue reads only [kSeq].
 */
export class EventQueue<E extends QueueEntry = QueueEntry> {
  private readonly times = new TimeHeap();
  private readonly buckets = new Map<number, Bucket<E>>();
  /** The bucket of the earliest instant, or undefined when the queue is empty. */
  private first: Bucket<E> | undefined = undefined;
  private count = 0;
  private readonly recent: Array<Bucket<E> | undefined> = new Array<Bucket<E> | undefined>(RECENT_SLOTS).fill(undefined);

  /** Places in the queue, stale ones included. */
  get size(): number {
    return this.count;
  }

  /** Queues `entry` at `timeNs` under `seq` (larger than every seq queued before). */
  push(entry: E, timeNs: number, seq: number): void {
    const slot = recentSlot(timeNs);
    let bucket = this.recent[slot];
    if (bucket === undefined || bucket.timeNs !== timeNs) {
      bucket = this.buckets.get(timeNs);
      if (bucket === undefined) {
        bucket = (pool.pop() as Bucket<E> | undefined) ?? new Bucket<E>();
        bucket.timeNs = timeNs;
        this.buckets.set(timeNs, bucket);
        this.times.push(timeNs);
        if (this.first === undefined || timeNs < this.first.timeNs) this.first = bucket;
      }
      this.recent[slot] = bucket;
    }
    const tail = bucket.tail++;
    bucket.entries[tail] = entry;
    bucket.seqs[tail] = seq;
    this.count++;
  }

  /**
   * Queues `entry` at `timeNs` under `seq`, AHEAD of everything queued for that instant: for
   * work that runs straight after the event now running (World.continuePoll). The instant's
   * order is then the order of places, no longer of sequence numbers.
   */
  pushFirst(entry: E, timeNs: number, seq: number): void {
    const bucket = this.buckets.get(timeNs);
    if (bucket === undefined) {
      this.push(entry, timeNs, seq);
      return;
    }
    if (bucket.head === 0) {
      bucket.entries.unshift(undefined);
      bucket.seqs.unshift(0);
      bucket.tail++;
    } else {
      bucket.head--;
    }
    bucket.entries[bucket.head] = entry;
    bucket.seqs[bucket.head] = seq;
    this.count++;
  }

  /** The next live entry without removing it (stale places before it are dropped). */
  peek(): E | undefined {
    for (;;) {
      const bucket = this.first;
      if (bucket === undefined) return undefined;
      const head = bucket.head;
      const entry = bucket.entries[head]!;
      if (entry[kSeq] === bucket.seqs[head]) return entry;
      this.advance(bucket);
    }
  }

  /** The instant of the entry peek() returned. */
  get firstTimeNs(): number {
    return this.first!.timeNs;
  }

  /** Removes the entry peek() returned. */
  pop(): void {
    this.advance(this.first!);
  }

  private advance(bucket: Bucket<E>): void {
    bucket.entries[bucket.head++] = undefined;
    this.count--;
    if (bucket.head === bucket.tail) {
      this.buckets.delete(bucket.timeNs);
      const slot = recentSlot(bucket.timeNs);
      if (this.recent[slot] === bucket) this.recent[slot] = undefined;
      this.times.pop();
      const next = this.times.peek();
      this.first = next === undefined ? undefined : this.buckets.get(next);
      poolBucket(bucket);
    }
  }

  /**
   * Drops every live entry `drop` picks, in place: each leaves a tombstone that peek() passes
   * over as stale, so the order and count of what remains are untouched, and the entry (with
   * the closure it would run) is no longer held by the queue. O(size).
   */
  dropWhere(drop: (entry: E) => boolean): void {
    for (const bucket of this.buckets.values()) {
      const { entries, seqs } = bucket;
      for (let i = bucket.head; i < bucket.tail; i++) {
        const entry = entries[i]!;
        if (entry !== TOMBSTONE && entry[kSeq] === seqs[i] && drop(entry)) entries[i] = TOMBSTONE as E;
      }
    }
  }

  /** Whether some live entry satisfies `test`. O(size) at worst. */
  some(test: (entry: E) => boolean): boolean {
    for (const bucket of this.buckets.values()) {
      const { entries, seqs } = bucket;
      for (let i = bucket.head; i < bucket.tail; i++) {
        const entry = entries[i]!;
        if (entry !== TOMBSTONE && entry[kSeq] === seqs[i] && test(entry)) return true;
      }
    }
    return false;
  }

  /** Drops every entry (used when a run ends); the buckets go back to the pool, emptied. */
  clear(): void {
    if (shapesKept()) {
      for (const bucket of this.buckets.values()) {
        bucket.entries.fill(undefined, bucket.head, bucket.tail);
        poolBucket(bucket as unknown as Bucket<QueueEntry>);
      }
    } else {
      pool.length = 0;
    }
    this.times.clear();
    this.buckets.clear();
    this.first = undefined;
    this.count = 0;
    this.recent.fill(undefined);
  }

  /** All live entries in queue order, with their instants; for diagnostics only. */
  snapshot(): Array<{ timeNs: number; entry: E }> {
    const out: Array<{ timeNs: number; entry: E }> = [];
    for (const timeNs of this.times.toArray().sort((a, b) => a - b)) {
      const bucket = this.buckets.get(timeNs)!;
      for (let i = bucket.head; i < bucket.tail; i++) {
        const entry = bucket.entries[i]!;
        if (entry[kSeq] === bucket.seqs[i]) out.push({ timeNs, entry });
      }
    }
    return out;
  }
}
