import type { SimEvent } from './event.js';

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

/** Events of one instant, in sequence order (sequences only grow, so appending keeps order). */
class Bucket {
  readonly events: SimEvent[] = [];
  head = 0;
}

/**
 * The simulation's single event queue, totally ordered by (timeNs, seq).
 *
 * Events are grouped by their instant: one FIFO per distinct virtual time, and a heap of those
 * times. Every event is pushed with a sequence number larger than any before it, so each FIFO
 * is already in sequence order and the whole queue pops in exactly (timeNs, seq) order — the
 * order of one big heap — while most pushes and pops are O(1).
 */
export class EventQueue {
  private readonly times = new TimeHeap();
  private readonly buckets = new Map<number, Bucket>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Queues an event (its seq must exceed every seq queued before). */
  push(event: SimEvent, _nowNs?: number): void {
    let bucket = this.buckets.get(event.timeNs);
    if (bucket === undefined) {
      bucket = new Bucket();
      this.buckets.set(event.timeNs, bucket);
      this.times.push(event.timeNs);
    }
    bucket.events.push(event);
    this.count++;
  }

  /** The next event without removing it (cancelled ones included). */
  peek(): SimEvent | undefined {
    const timeNs = this.times.peek();
    if (timeNs === undefined) return undefined;
    const bucket = this.buckets.get(timeNs)!;
    return bucket.events[bucket.head];
  }

  /** Removes and returns the next event (cancelled ones included). */
  pop(): SimEvent | undefined {
    const timeNs = this.times.peek();
    if (timeNs === undefined) return undefined;
    const bucket = this.buckets.get(timeNs)!;
    const event = bucket.events[bucket.head]!;
    bucket.events[bucket.head++] = undefined as unknown as SimEvent;
    if (bucket.head === bucket.events.length) {
      this.buckets.delete(timeNs);
      this.times.pop();
    }
    this.count--;
    return event;
  }

  /** Drops every event (used when a run ends). */
  clear(): void {
    this.times.clear();
    this.buckets.clear();
    this.count = 0;
  }

  /** All pending events in queue order; for diagnostics only. */
  snapshot(): SimEvent[] {
    const out: SimEvent[] = [];
    for (const timeNs of this.times.toArray().sort((a, b) => a - b)) {
      const bucket = this.buckets.get(timeNs)!;
      out.push(...bucket.events.slice(bucket.head));
    }
    return out;
  }
}
