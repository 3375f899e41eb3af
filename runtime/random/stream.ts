import alea from 'seedrandom/lib/alea.js';
import { formatSeed } from './seed.js';

interface AleaPrng {
  (): number;
  int32(): number;
  double(): number;
}

/**
 * A named pseudo-random stream. Every stream is derived from (root seed, name) alone, never from
 * another stream's draws, so adding a subsystem or removing a fault does not shift other streams.
 */
export class RandomStream {
  readonly name: string;
  private readonly prng: AleaPrng;
  /** How many draws were made; part of the trace when a stream's use must be compared. */
  draws = 0;

  constructor(seed: bigint, name: string) {
    this.name = name;
    this.prng = (alea as unknown as (seed: string) => AleaPrng)(`${formatSeed(seed)}/${name}`);
  }

  /** A float in [0, 1) with 32 bits of randomness (like Math.random's contract). */
  next(): number {
    this.draws++;
    return this.prng();
  }

  /** A float in [0, 1) with 53 bits of randomness. */
  double(): number {
    this.draws++;
    return this.prng.double();
  }

  /** An unsigned 32-bit integer. */
  uint32(): number {
    this.draws++;
    return this.prng.int32() >>> 0;
  }

  /** An integer in [min, max) with no modulo bias; max - min must be at most 2^48. */
  int(min: number, max: number): number {
    const range = max - min;
    if (range <= 0x1_0000_0000) {
      // Rejection sampling on 32 bits.
      const limit = 0x1_0000_0000 - (0x1_0000_0000 % range);
      let x = this.uint32();
      while (x >= limit) x = this.uint32();
      return min + (x % range);
    }
    const limit = 2 ** 48 - (2 ** 48 % range);
    let x = this.uint48();
    while (x >= limit) x = this.uint48();
    return min + (x % range);
  }

  /** Fills `bytes` with random bytes. */
  fill(bytes: Uint8Array): void {
    let i = 0;
    const n = bytes.length;
    while (i + 4 <= n) {
      const x = this.uint32();
      bytes[i] = x & 0xff;
      bytes[i + 1] = (x >>> 8) & 0xff;
      bytes[i + 2] = (x >>> 16) & 0xff;
      bytes[i + 3] = x >>> 24;
      i += 4;
    }
    if (i < n) {
      let x = this.uint32();
      while (i < n) {
        bytes[i++] = x & 0xff;
        x >>>= 8;
      }
    }
  }

  /** True with probability `ratio` (0..1). */
  chance(ratio: number): boolean {
    return ratio > 0 && this.double() < ratio;
  }

  private uint48(): number {
    return this.uint32() * 0x1_0000 + (this.uint32() & 0xffff);
  }
}
