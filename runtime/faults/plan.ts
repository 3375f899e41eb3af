/**
 * Production-shaped faults for plain programs: which kinds a run has (DST_FAULTS, the CLI's
 * --faults and --swarm) and how hard each one hits, drawn per seed. The mix is a pure function of
 * (spec, seed), so a replay with the same DST_FAULTS and DST_SEED runs the same faults.
 */
import { UsageError } from '../errors.js';
import { type SeedInput, parseSeed } from '../random/seed.js';
import { RandomStream } from '../random/stream.js';

/** The kinds of fault, in the order they are listed and printed. */
export const FAULT_KINDS = ['latency', 'reorder', 'reset', 'loss', 'lag', 'stall', 'skew'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * The intensity of each kind, under the name (with its unit) it prints as, and its default: what
 * a kind named in DST_FAULTS runs with, and the middle of what swarm mode draws (uniform in
 * (0, 2 x default] when the kind is on).
 */
export const FAULT_RATES: Record<FaultKind, { key: string; default: number; ratio?: true }> = {
  /** Mean extra delay (ms) of a packet in a slow period of its connection (the long tail). */
  latency: { key: 'latencyTailMs', default: 20 },
  /** Per-packet jitter (ms), independent per packet: connections and datagrams overtake each other. */
  reorder: { key: 'reorderJitterMs', default: 2 },
  /** Chance that a TCP data segment finds its connection reset (a middlebox, a peer's kernel). */
  reset: { key: 'resetRatio', default: 0.005, ratio: true },
  /** Chance that a datagram is lost (half as many are duplicated). */
  loss: { key: 'lossRatio', default: 0.05, ratio: true },
  /** Fraction of 100 ms periods in which a chain's event loop lags (each event costs extra time). */
  lag: { key: 'lagRatio', default: 0.2, ratio: true },
  /** Stalls (10-500 ms: a GC pause, a descheduled VM) per second of each chain. */
  stall: { key: 'stallPerSecond', default: 0.5 },
  /** Wall-clock steps (NTP) per second, each to an offset within +-1 s. */
  skew: { key: 'skewJumpPerSecond', default: 0.2 },
};

/** What DST_FAULTS asks for: the kinds, and whether each seed draws its own mix of them. */
export interface FaultSpec {
  kinds: FaultKind[];
  swarm: boolean;
  /** Intensities given as `kind=value` (instead of the defaults of FAULT_RATES). */
  rates?: Partial<Record<FaultKind, number>>;
}

/** A run's faults: the intensity of every kind (0: off), by its rate key (FAULT_RATES). */
export type FaultMix = Record<string, number>;

/**
 * Parses DST_FAULTS: a comma-separated list of kinds, or `all`; `swarm` alone or a `swarm:`
 * prefix makes each seed draw which of them are on and how hard. `kind=value` sets a kind's
 * intensity (in the unit of its FAULT_RATES key; with swarm, the middle of the draw). Examples:
 * `all`, `lag,stall`, `swarm`, `swarm:latency,reset`, `stall=5,reset=0.05`, `all,lag=0.5` (every
 * kind, lag at 0.5).
 */
export function parseFaultSpec(text: string, name = 'DST_FAULTS'): FaultSpec {
  let rest = text.trim();
  let swarm = false;
  if (rest === 'swarm') return { kinds: [...FAULT_KINDS], swarm: true };
  if (rest.startsWith('swarm:')) {
    swarm = true;
    rest = rest.slice('swarm:'.length);
  }
  if (rest === 'all') return { kinds: [...FAULT_KINDS], swarm };
  const words = rest.split(',').map((w) => w.trim());
  const kinds: FaultKind[] = [];
  const rates: Partial<Record<FaultKind, number>> = {};
  for (let word of words) {
    const eq = word.indexOf('=');
    if (eq >= 0) {
      const kind = word.slice(0, eq);
      const value = Number(word.slice(eq + 1));
      const rate = (FAULT_KINDS as readonly string[]).includes(kind) ? FAULT_RATES[kind as FaultKind] : undefined;
      if (rate !== undefined) {
        const number = word.slice(eq + 1).trim() !== '' && Number.isFinite(value) && value >= 0;
        const wanted = !number ? 'a number >= 0' : rate.ratio === true && value > 1 ? 'a probability in [0, 1]' : undefined;
        if (wanted !== undefined) throw new UsageError(`Failed to parse ${name}: ${JSON.stringify(word)} must give ${kind} ${wanted} (its ${rate.key}), e.g. ${kind}=${rate.default}`);
      }
      rates[kind as FaultKind] = value;
      word = kind;
    }
    // `all` beside other words: every kind, the others setting rates (all,lag=0.5).
    if (word === 'all' && eq < 0) {
      for (const kind of FAULT_KINDS) if (!kinds.includes(kind)) kinds.push(kind);
      continue;
    }
    if (!(FAULT_KINDS as readonly string[]).includes(word)) {
      throw new UsageError(
        `Failed to parse ${name}: ${JSON.stringify(word)} is not a fault kind (known: ${FAULT_KINDS.join(', ')}; ` +
          `or all; prefix swarm: to draw a mix per seed, e.g. ${name}=swarm:lag,stall)`,
      );
    }
    if (!kinds.includes(word as FaultKind)) kinds.push(word as FaultKind);
  }
  // Listed in the table's order, whatever order they were given in: the same spec prints the same.
  kinds.sort((a, b) => FAULT_KINDS.indexOf(a) - FAULT_KINDS.indexOf(b));
  return Object.keys(rates).length === 0 ? { kinds, swarm } : { kinds, swarm, rates };
}

/** The spec as DST_FAULTS spells it (normalized: kinds in table order). */
export function formatFaultSpec(spec: FaultSpec): string {
  const rates = spec.rates ?? {};
  const kinds =
    spec.kinds.length === FAULT_KINDS.length && Object.keys(rates).length === 0
      ? 'all'
      : spec.kinds.map((kind) => (rates[kind] === undefined ? kind : `${kind}=${rates[kind]}`)).join(',');
  if (spec.swarm) return kinds === 'all' ? 'swarm' : `swarm:${kinds}`;
  return kinds;
}

/**
 * The seed's fault mix. Without swarm every kind of the spec runs at its default. With swarm
 * each kind is, independently, off with probability 1/2, else uniform in (0, 2 x default] (a
 * ratio at most 1); each kind draws from its own stream of (seed, kind), so adding a kind never
 * changes the others' draws. Values are rounded to 6 significant digits so the mix prints exactly.
 */
export function drawFaultMix(spec: FaultSpec, seed: SeedInput): FaultMix {
  const root = parseSeed(seed, 'seed');
  const mix: FaultMix = {};
  for (const kind of spec.kinds) {
    const key = FAULT_RATES[kind].key;
    const rate = spec.rates?.[kind] ?? FAULT_RATES[kind].default;
    if (!spec.swarm) {
      mix[key] = rate;
      continue;
    }
    const stream = new RandomStream(root, `faults/swarm/${kind}`);
    const on = stream.double() >= 0.5;
    const drawn = on ? Number(((1 - stream.double()) * 2 * rate).toPrecision(6)) : 0;
    // A probability stays one: a drawn reset, loss or lag ratio above 1 is 1.
    mix[key] = FAULT_RATES[kind].ratio ? Math.min(1, drawn) : drawn;
  }
  return mix;
}

/** The intensity of `kind` in a mix (0 when absent). */
export function rateOf(mix: FaultMix, kind: FaultKind): number {
  return mix[FAULT_RATES[kind].key] ?? 0;
}
