// An async hook of the program's hears of the program's own resources, and of nothing the
// simulator makes for itself (its driver's immediates, its scopes, its timers): init when one is
// made, before and after around its callback, destroy once it ran or was cleared. A program
// counting its resources counts the same as plainly, in every run of a seed.
import { createHook } from 'node:async_hooks';
import fs from 'node:fs';

const types = new Map();
const log = [];
const hook = createHook({
  init(id, type) {
    types.set(id, type);
    log.push(`init ${type}`);
  },
  before(id) {
    log.push(`before ${types.get(id) ?? 'a resource made before the hook'}`);
  },
  after(id) {
    log.push(`after ${types.get(id) ?? 'a resource made before the hook'}`);
  },
  destroy(id) {
    // Promises, and what was made before the hook (Node's module loading), are destroyed when
    // collected, whenever that is: left out.
    const type = types.get(id);
    if (type !== undefined && type !== 'PROMISE') log.push(`destroy ${type}`);
  },
});
hook.enable();

setTimeout(() => {
  setImmediate(() => {
    process.nextTick(() => {});
    const cleared = setTimeout(() => {}, 5);
    clearTimeout(cleared);
    const clearedImmediate = setImmediate(() => {});
    clearImmediate(clearedImmediate);
    let ticks = 0;
    const interval = setInterval(() => {
      if (++ticks === 2) clearInterval(interval);
    }, 3);
    setTimeout(() => Promise.resolve().then(() => setTimeout(finish, 5)), 20);
  });
}, 1);

function finish() {
  hook.disable();
  // Runs of one line are folded ("before Timeout x2"); written without console (its stream makes resources of its own).
  const folded = [];
  for (const line of log) {
    const last = folded.at(-1);
    if (last !== undefined && last.line === line) last.count++;
    else folded.push({ line, count: 1 });
  }
  fs.writeSync(1, folded.map(({ line, count }) => (count > 1 ? `${line} x${count}` : line)).join('\n') + '\n');
  const counts = {};
  for (const line of log) counts[line.split(' ')[0]] = (counts[line.split(' ')[0]] ?? 0) + 1;
  fs.writeSync(1, `${JSON.stringify(counts)}\n`);
}
