import { UsageError } from '../errors.js';

/** What a user may pass as a seed: a safe integer, a bigint, or a decimal / 0x-hex string. */
export type SeedInput = number | bigint | string;

/** Seeds are unsigned 64-bit integers. */
export const SEED_MAX = (1n << 64n) - 1n;

const DECIMAL = /^[0-9]+$/;
const HEX = /^0[xX][0-9a-fA-F]+$/;

/**
 * Parses a seed from user input. `source` names where it came from ("DST_SEED", "options.seed")
 * so the error says what to change.
 */
export function parseSeed(input: SeedInput, source = 'seed'): bigint {
  let value: bigint;
  if (typeof input === 'bigint') {
    value = input;
  } else if (typeof input === 'number') {
    if (!Number.isSafeInteger(input)) {
      throw new UsageError(
        `Failed to parse ${source}: ${String(input)} is not a safe integer ` +
          `(use a bigint or a 0x-hex string for seeds above 2^53)`,
      );
    }
    value = BigInt(input);
  } else if (typeof input === 'string') {
    const text = input.trim();
    if (!DECIMAL.test(text) && !HEX.test(text)) {
      throw new UsageError(
        `Failed to parse ${source}: ${JSON.stringify(input)} is not a decimal or 0x-hex integer ` +
          `(example: ${source}=0x9f3c1a22 or ${source}=2671516194)`,
      );
    }
    value = BigInt(text);
  } else {
    throw new UsageError(`Failed to parse ${source}: expected a number, bigint or string, got ${typeof input}`);
  }
  if (value < 0n || value > SEED_MAX) {
    throw new UsageError(`Failed to parse ${source}: ${String(input)} is outside 0 .. 2^64-1`);
  }
  return value;
}

/** The canonical printed form of a seed: lower-case 0x-hex. */
export function formatSeed(seed: bigint): string {
  return `0x${seed.toString(16)}`;
}
