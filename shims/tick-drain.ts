/**
 * Runs the nextTick queue and the microtasks now, as Node does when a MakeCallback that no
 * other callback encloses returns (InternalCallbackScope::Close): process._tickCallback, Node's
 * runNextTicks. The simulation runs every event inside an original immediate, so a native
 * callback that Node would run at that depth (a parser callback of a consumed stream) runs one
 * level deeper here, where Node does not drain: this is that drain.
 *
 * Under --pending-deprecation, process._tickCallback is wrapped in util.deprecate (DEP0134): the
 * warning our first call sets off is held back and given to the program's own first call, as
 * shims/node-binding.ts does for process.binding.
 */
import { originals } from '../runtime/originals.js';

type TickCallback = (this: unknown) => void;
const nodeProcess = originals.process as NodeJS.Process & { _tickCallback: TickCallback };
const tickCallback = nodeProcess._tickCallback;
let warningSettled = false;

export function drainTicks(): void {
  if (warningSettled) {
    tickCallback.call(nodeProcess);
    return;
  }
  warningSettled = true;
  const emitWarning = nodeProcess.emitWarning;
  let owed: unknown[] | undefined;
  nodeProcess.emitWarning = function holdBack(this: unknown, ...args: unknown[]): void {
    if (owed === undefined && args[1] === 'DeprecationWarning' && args[2] === 'DEP0134') owed = args.slice(0, 3);
    else Reflect.apply(emitWarning, this, args);
  } as typeof nodeProcess.emitWarning;
  try {
    tickCallback.call(nodeProcess);
  } finally {
    if (nodeProcess.emitWarning !== emitWarning) nodeProcess.emitWarning = emitWarning;
    if (owed !== undefined && nodeProcess._tickCallback === tickCallback) {
      const [message, type, code] = owed as [string, string, string];
      let pending = true;
      nodeProcess._tickCallback = function deprecated(this: unknown): void {
        if (pending) {
          pending = false;
          nodeProcess.emitWarning(message, type, code, deprecated);
        }
        Reflect.apply(tickCallback, this, []);
      };
    }
  }
}
