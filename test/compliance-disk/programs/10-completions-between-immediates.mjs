// Node runs a check phase's immediates one after another: an fs completion lands before all the
// immediates queued beside its call, or after them, never between two of them (whether before or
// after depends on the thread pool's speed, so only "between" is printed). The simulated disk
// queued its completion at the call, between the immediates queued before and after it (found
// by a probe, 2026-12-05).
import fs from 'node:fs';
import path from 'node:path';
import { cleanUp, log, root } from './lib.mjs';

const file = path.join(root, 'f.txt');
fs.writeFileSync(file, 'x');

/** Queues 3 immediates, calls `start(done)` between the first and the rest, and reports where `done` ran. */
function between(label, start) {
  return new Promise((resolve) => {
    const order = [];
    let left = 4;
    const note = (what) => {
      order.push(what);
      if (--left === 0) {
        const at = order.indexOf('fs');
        log(label, 'between immediates:', at > 0 && at < order.length - 1);
        resolve();
      }
    };
    setImmediate(() => note('i1'));
    start(() => note('fs'));
    setImmediate(() => note('i2'));
    setImmediate(() => note('i3'));
  });
}

const forms = {
  'callback stat': (done) => fs.stat(file, done),
  'callback readFile': (done) => fs.readFile(file, done),
  'promise stat': (done) => fs.promises.stat(file).then(done),
  'promise writeFile': (done) => fs.promises.writeFile(file, 'y').then(done),
  'callback open+close': (done) => fs.open(file, 'r', (_e, fd) => fs.close(fd, done)),
};
const from = {
  'main': (run) => run(),
  'timer': (run) => new Promise((resolve) => setTimeout(() => run().then(resolve), 1)),
  'immediate': (run) => new Promise((resolve) => setImmediate(() => run().then(resolve))),
  'fs callback': (run) => new Promise((resolve) => fs.stat(file, () => run().then(resolve))),
};
for (const [where, enter] of Object.entries(from)) {
  for (const [form, start] of Object.entries(forms)) await enter(() => between(`${form} from ${where}`, start));
}
cleanUp();
