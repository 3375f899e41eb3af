// An async hook of the program's hears of each request the program makes (fs, dns, crypto, zlib)
// as plainly: the request Node made, with its type, then before and after around its callback
// with the request's id, then its destroy. Under the simulator the callback runs later than the
// real request completes, in a scope of the runtime's that the hook never hears of by itself.
// Where a destroy falls among the callbacks of its loop turn is not printed: a timer's destroy,
// heard plainly after the I/O callbacks of its turn, is heard before those of real work (a real
// disk, crypto, zlib), whose wait lets Node's loop deliver it (docs/guide.md).
import { createHook } from 'node:async_hooks';
import crypto from 'node:crypto';
import dns from 'node:dns';
import fs from 'node:fs';
import zlib from 'node:zlib';

const names = new Map();
const counts = new Map();
const log = [];
/** What was heard destroyed while each step ran (by the step the destroy was heard in). */
const destroyed = new Map();
let step = 0;
const hook = createHook({
  init(id, type, trigger) {
    if (type === 'PROMISE') return;
    counts.set(type, (counts.get(type) ?? 0) + 1);
    names.set(id, `${type}#${counts.get(type)}`);
    log.push(`init ${names.get(id)}${names.has(trigger) ? ` (by ${names.get(trigger)})` : ''}`);
  },
  before(id) {
    if (names.has(id)) log.push(`before ${names.get(id)}`);
  },
  after(id) {
    if (names.has(id)) log.push(`after ${names.get(id)}`);
  },
  destroy(id) {
    if (!names.has(id)) return;
    if (!destroyed.has(step)) destroyed.set(step, []);
    destroyed.get(step).push(names.get(id));
  },
});
hook.enable();

const steps = [
  (next) => fs.stat(new URL(import.meta.url), next),
  (next) => fs.readFile(new URL(import.meta.url), next),
  (next) => dns.lookup('localhost', { family: 4 }, next),
  (next) => crypto.pbkdf2('secret', 'salt', 1, 16, 'sha256', next),
  (next) => crypto.randomBytes(8, next),
  (next) => zlib.gzip(Buffer.alloc(64), next),
];
function run(i) {
  if (i === steps.length) {
    // Destroys come from a native immediate: a timer later, every one of them has been heard.
    setTimeout(() => {
      step = 'end';
      setTimeout(finish, 10);
    }, 10);
    return;
  }
  step = i + 1;
  log.push(`-- step ${step}`);
  steps[i]((error) => {
    if (error) throw error;
    setTimeout(() => run(i + 1), 1);
  });
}
run(0);

function finish() {
  hook.disable();
  for (const [at, names] of destroyed) log.push(`destroyed in step ${at}: ${names.sort().join(' ')}`);
  fs.writeSync(1, log.join('\n') + '\n');
}
