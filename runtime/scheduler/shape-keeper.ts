import { envSwitch } from '../env-switch.js';

/**
 * Keeps one inert instance of each class the event path is optimized for (a Timeout, an
 * Immediate, a SimEvent: whatever registered a factory) alive for the whole process, so that the
 * hidden classes ("maps") of those objects outlive every run.
 *
 * Why: V8 holds the maps it embeds in optimized code weakly. A map made by a constructor that
 * assigns fields lives only as long as some object has it, so when a run ended and its last
 * Timeout died, the next full GC collected the map and threw away every optimized function that
 * had checked for it (`--trace-deopt`: "marking dependent code ... reason: weak objects"): 11-15
 * functions of the event path at the start of every run after the first, optimized again during
 * that run (17-50 optimization requests per run against 3-28 kept; a 10,000-event run cost
 * 2-4x the CPU per event: docs/benchmarks.md, "Short runs and the shape keeper"). A seed of
 * `dst explore` or a test's simulation is a short run, so it paid most of that every time.
 *
 * The instances are made once, after the first run of the process, through the same
 * constructors and arming code as real ones (so they take exactly the real maps, with the field
 * representations that run settled on), against a host of a World that never runs and is down:
 * nothing they hold belongs to any run, so no run's state outlives it. DST_KEEP_SHAPES=0 turns
 * the keeper off (for the bench's before/after; it never changes what a run does).
 */

/** Makes the inert instances of a module's hot classes for the keeper's host. */
export type ShapeFactory<H> = (host: H) => readonly object[];

const factories: Array<ShapeFactory<never>> = [];
const kept: object[] = [];
let keeperHost: unknown;
let setting: boolean | undefined;

/** DST_KEEP_SHAPES: '0' turns the keeper off; '1' or unset keeps shapes. Read once per process. */
export function shapesKept(): boolean {
  if (setting !== undefined) return setting;
  setting = envSwitch(process.env, 'DST_KEEP_SHAPES', true, "lets the event path's object shapes die between runs, for benchmarks");
  return setting;
}

/**
 * Registers the factory of a module's hot classes: called once the keeper has its host (at the
 * end of the first run), or at once if it has one already (a module loaded later).
 */
export function keepShapesOf<H>(factory: ShapeFactory<H>): void {
  factories.push(factory as ShapeFactory<never>);
  if (keeperHost !== undefined) kept.push(...factory(keeperHost as H));
}

/** Gives the keeper its host (a host that is down, of a World that never runs) and fills it. */
export function startShapeKeeper<H>(host: H): void {
  if (keeperHost !== undefined) return;
  keeperHost = host;
  for (const factory of factories) kept.push(...(factory as ShapeFactory<H>)(host));
}
