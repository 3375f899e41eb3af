/**
 * The internal bindings the shims wrap (fs, tcp_wrap, udp_wrap, cares_wrap, ...), taken through
 * `process.binding` without spending its deprecation warning.
 *
 * Under `--pending-deprecation` (or NODE_PENDING_DEPRECATION=1) Node wraps `process.binding` in
 * util.deprecate (DEP0111): its first call emits a DeprecationWarning, and with
 * `--throw-deprecation` throws it. Taken plainly, our bindings would print a warning the program
 * never caused, or crash every program at startup. So the warning a fetch of ours sets off is
 * held back; since the wrapper warns only once, a wrapper of ours then gives it to the program's
 * own first `process.binding()` call, as Node would have. Without the flag nothing is emitted,
 * nothing held, and `process.binding` is left as it is. The warning Node 20 and 22 give on every
 * `process.binding('crypto')` (flag or not) is dropped for our own fetch: nothing is owed, since
 * the program's own calls warn anyway.
 */

import { UsageError } from '../runtime/errors.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Binding = (name: string) => any;

const processBinding = (process as any).binding as Binding;
/** The arguments of the DEP0111 warning held back, until the program calls process.binding. */
let owed: unknown[] | undefined;

export function nodeBinding(name: string): any {
  const emitWarning = process.emitWarning;
  process.emitWarning = function holdBack(this: unknown, ...args: unknown[]): void {
    if (args[1] !== 'DeprecationWarning' || args[2] !== 'DEP0111') Reflect.apply(emitWarning, this, args);
    // Node 20/22 also warn on every process.binding('crypto') ("Access to process.binding('crypto')
    // is deprecated.", whatever the flags): ours is swallowed, the program's own calls still warn.
    else if (!String(args[0]).startsWith('Access to process.binding(')) owed = args.slice(0, 3);
  } as typeof process.emitWarning;
  try {
    return processBinding(name);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== 'ERR_ACCESS_DENIED') throw error;
    throw new UsageError(
      `Failed to load dst-runtime: Node's permission model (--permission or --experimental-permission) ` +
        `denies process.binding('${name}'), and dst-runtime needs Node's bindings to simulate net, dgram, dns and fs. ` +
        'Run the simulation without the permission model.',
    );
  } finally {
    process.emitWarning = emitWarning;
    if (owed !== undefined && (process as any).binding === processBinding) {
      (process as any).binding = function deprecated(this: unknown, ...args: unknown[]): unknown {
        if (owed !== undefined) {
          const [message, type, code] = owed as [string, string, string];
          owed = undefined;
          process.emitWarning(message, type, code, deprecated);
        }
        return Reflect.apply(processBinding, this, args);
      };
    }
  }
}
