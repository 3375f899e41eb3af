import { activeWorld, type World } from '../world.js';

/**
 * Assertions for host code, in the style of Antithesis and TigerBeetle: they state what must
 * hold (`always`, `unreachable`) and what must be reachable across seeds (`sometimes`,
 * `reachable`). They need no test harness: outside a simulation `sometimes`/`reachable` do
 * nothing, while `always`/`unreachable` still throw, since a broken safety property is a bug
 * whether or not a simulator watches.
 */

/** A safety property failed: thrown in host code, it fails the run with kind 'safety'. */
export class SafetyViolation extends Error {
  readonly details: unknown;
  constructor(message: string, details?: unknown) {
    super(details === undefined ? message : `${message} (${safeJson(details)})`);
    this.name = 'SafetyViolation';
    this.details = details;
  }
}

/** One `sometimes`/`reachable` message and how often its condition held in a run. */
export interface CoverageEntry {
  message: string;
  /** 'sometimes' or 'reachable': which assertion declared the message. */
  kind: 'sometimes' | 'reachable';
  hits: number;
}

// Coverage is kept per world, so each run starts from zero without an explicit reset; the
// WeakMap lets finished worlds be collected.
const coverageByWorld = new WeakMap<World, Map<string, CoverageEntry>>();
let lastWorld: World | undefined;

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function record(kind: CoverageEntry['kind'], message: string, hit: boolean): void {
  const world = activeWorld();
  if (world === undefined) return;
  lastWorld = world;
  let entries = coverageByWorld.get(world);
  if (entries === undefined) {
    entries = new Map();
    coverageByWorld.set(world, entries);
  }
  const entry = entries.get(message) ?? { message, kind, hits: 0 };
  entries.set(message, entry); // a Map keeps first-declaration order: the report is deterministic
  if (hit) entry.hits++;
}

/**
 * Fails the run as a safety violation: the host whose code called it crashes (the run fails
 * with the seed and its replay), then the error is thrown so the caller stops too.
 */
function violate(error: SafetyViolation): never {
  const world = activeWorld();
  if (world !== undefined) world.hosts.failed(world.currentHost(), error, 'safety');
  throw error;
}

/** `condition` must hold every time this line runs. */
export function always(condition: unknown, message: string, details?: unknown): void {
  if (!condition) violate(new SafetyViolation(`always: ${message}`, details));
}

/** This line must never run. */
export function unreachable(message: string, details?: unknown): never {
  return violate(new SafetyViolation(`unreachable: ${message}`, details));
}

/** `condition` should hold at least once across the seeds explored: counted in coverage(). */
export function sometimes(condition: unknown, message: string): void {
  record('sometimes', message, Boolean(condition));
}

/** This line should run at least once across the seeds explored: counted in coverage(). */
export function reachable(message: string): void {
  record('reachable', message, true);
}

/**
 * The `sometimes`/`reachable` entries of a run, in the order they were first declared: of the
 * running simulation, else of the last simulation that recorded any.
 */
export function coverage(): CoverageEntry[] {
  return coverageOf(activeWorld() ?? lastWorld);
}

/** The entries of one world (internal: runScenario reads its own run's). */
export function coverageOf(world: World | undefined): CoverageEntry[] {
  const entries = world === undefined ? undefined : coverageByWorld.get(world);
  return entries === undefined ? [] : [...entries.values()].map((e) => ({ ...e }));
}
