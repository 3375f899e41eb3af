import { Heap } from 'heap-js';
import type { SimEvent } from './event.js';

function compareEvents(a: SimEvent, b: SimEvent): number {
  // Total order: virtual time, then sequence. Sequences are unique, so this never ties.
  return a.timeNs - b.timeNs || a.seq - b.seq;
}

/**
 * The simulation's single event queue, totally ordered by (timeNs, seq).
 *
 * Events due at the current instant (immediates, zero-latency deliveries) are the common case
 * and arrive in sequence order, so they go to a FIFO; the heap holds future events. The next
 * event is the smaller of the two heads. This keeps the order exactly that of one heap while
 * making the hottest path O(1).
 */
export class EventQueue {
  private readonly heap = new Heap<SimEvent>(compareEvents);
  private nowQueue: SimEvent[] = [];
  private nowHead = 0;
  /** The instant of every event in nowQueue. */
  private nowTimeNs = 0;

  get size(): number {
    return this.heap.length + (this.nowQueue.length - this.nowHead);
  }

  /** Queues an event. `nowNs` is the current virtual time. */
  push(event: SimEvent, nowNs: number): void {
    if (event.timeNs === nowNs) {
      if (this.nowHead === this.nowQueue.length) {
        // Empty: reset so the array does not grow forever.
        this.nowQueue.length = 0;
        this.nowHead = 0;
        this.nowTimeNs = nowNs;
      }
      if (this.nowTimeNs === nowNs) {
        this.nowQueue.push(event);
        return;
      }
    }
    this.heap.add(event);
  }

  /** The next event without removing it (cancelled ones included). */
  peek(): SimEvent | undefined {
    const fromNow = this.nowHead < this.nowQueue.length ? this.nowQueue[this.nowHead] : undefined;
    const fromHeap = this.heap.peek();
    if (fromNow === undefined) return fromHeap;
    if (fromHeap === undefined) return fromNow;
    return compareEvents(fromNow, fromHeap) <= 0 ? fromNow : fromHeap;
  }

  /** Removes and returns the next event (cancelled ones included). */
  pop(): SimEvent | undefined {
    const fromNow = this.nowHead < this.nowQueue.length ? this.nowQueue[this.nowHead] : undefined;
    const fromHeap = this.heap.peek();
    if (fromNow !== undefined && (fromHeap === undefined || compareEvents(fromNow, fromHeap) <= 0)) {
      this.nowQueue[this.nowHead++] = undefined as unknown as SimEvent;
      return fromNow;
    }
    return this.heap.pop();
  }

  /** Drops every event (used when a run ends). */
  clear(): void {
    this.heap.clear();
    this.nowQueue = [];
    this.nowHead = 0;
  }

  /** All pending events in queue order; for diagnostics only (O(n log n)). */
  snapshot(): SimEvent[] {
    const all = [...this.heap.toArray(), ...this.nowQueue.slice(this.nowHead)];
    return all.sort(compareEvents);
  }
}
