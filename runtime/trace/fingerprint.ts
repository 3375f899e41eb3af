/**
 * A rolling 64-bit hash over every scheduling decision (two 32-bit lanes with different
 * multipliers). Two runs with the same fingerprint ran the same events in the same order at the
 * same virtual times on the same hosts.
 */
export class Fingerprint {
  private h1 = 0x811c9dc5 | 0;
  private h2 = 0x9e3779b9 | 0;

  mix(word: number): void {
    let h1 = Math.imul(this.h1 ^ word, 0x85ebca6b);
    h1 ^= h1 >>> 13;
    let h2 = Math.imul(this.h2 ^ word, 0xc2b2ae35);
    h2 ^= h2 >>> 16;
    this.h1 = h1 + h2;
    this.h2 = h2 ^ (h1 >>> 7);
  }

  /**
   * The five words of one event, in one call: mixInt(timeNs), mix(hostIndex), mix(incarnation),
   * mix(kind). The same hash as those calls (h1 wrapped to 32 bits as mix's next `^` and
   * toString's `>>> 0` wrap it), with the lanes kept in locals: one event's mixing was five calls
   * loading and storing both fields (World.runEvent, once per event). The time comes as its two
   * 32-bit words, taken by the caller with `| 0` (the same bits as mixInt's `>>> 0`, as `^` reads
   * them): passed as one number, a time past 2^31 ns (2.1 s) had to be boxed into a new heap
   * number for every event whenever V8 did not inline this method.
   */
  mixEvent(timeLow: number, timeHigh: number, hostIndex: number, incarnation: number, kind: number): void {
    let h1 = this.h1;
    let h2 = this.h2;
    let a: number;
    let b: number;
    // timeNs, low word
    a = Math.imul(h1 ^ timeLow, 0x85ebca6b);
    a ^= a >>> 13;
    b = Math.imul(h2 ^ timeLow, 0xc2b2ae35);
    b ^= b >>> 16;
    h1 = (a + b) | 0;
    h2 = b ^ (a >>> 7);
    // timeNs, high word
    a = Math.imul(h1 ^ timeHigh, 0x85ebca6b);
    a ^= a >>> 13;
    b = Math.imul(h2 ^ timeHigh, 0xc2b2ae35);
    b ^= b >>> 16;
    h1 = (a + b) | 0;
    h2 = b ^ (a >>> 7);
    // host index
    a = Math.imul(h1 ^ hostIndex, 0x85ebca6b);
    a ^= a >>> 13;
    b = Math.imul(h2 ^ hostIndex, 0xc2b2ae35);
    b ^= b >>> 16;
    h1 = (a + b) | 0;
    h2 = b ^ (a >>> 7);
    // incarnation
    a = Math.imul(h1 ^ incarnation, 0x85ebca6b);
    a ^= a >>> 13;
    b = Math.imul(h2 ^ incarnation, 0xc2b2ae35);
    b ^= b >>> 16;
    h1 = (a + b) | 0;
    h2 = b ^ (a >>> 7);
    // kind
    a = Math.imul(h1 ^ kind, 0x85ebca6b);
    a ^= a >>> 13;
    b = Math.imul(h2 ^ kind, 0xc2b2ae35);
    b ^= b >>> 16;
    this.h1 = (a + b) | 0;
    this.h2 = b ^ (a >>> 7);
  }

  /** Mixes a non-negative integer up to 2^53 (two words). */
  mixInt(value: number): void {
    this.mix(value >>> 0);
    this.mix((value / 0x1_0000_0000) >>> 0);
  }

  mixString(text: string): void {
    for (let i = 0; i < text.length; i++) this.mix(text.charCodeAt(i));
  }

  toString(): string {
    return (this.h1 >>> 0).toString(16).padStart(8, '0') + (this.h2 >>> 0).toString(16).padStart(8, '0');
  }
}
