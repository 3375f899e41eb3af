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
