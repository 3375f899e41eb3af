// Node takes the completion of thread-pool work (getaddrinfo, getnameinfo, crypto's random jobs)
// and of a DNS query in a poll phase: before all the immediates queued beside the call, or after
// them, never between two (which of the two depends on real speed, so only "between" is printed).
// The simulator queued such a completion at the call, between the immediates queued before and
// after it (found by a probe, 2026-12-05; the simulated disk had the same fault,
// test/compliance-disk/programs/10).
import crypto from 'node:crypto';
import dns from 'node:dns';

function between(label, start) {
  return new Promise((resolve) => {
    const order = [];
    let left = 4;
    const note = (what) => {
      order.push(what);
      if (--left > 0) return;
      const at = order.indexOf('done');
      console.log(label, 'between immediates:', at > 0 && at < order.length - 1);
      resolve();
    };
    setImmediate(() => note('i1'));
    start(() => note('done'));
    setImmediate(() => note('i2'));
    setImmediate(() => note('i3'));
  });
}

const forms = {
  'dns.lookup': (done) => dns.lookup('localhost', () => done()),
  'dns.promises.lookup': (done) => dns.promises.lookup('localhost').then(done, done),
  'dns.lookupService': (done) => dns.lookupService('127.0.0.1', 22, () => done()),
  'dns.resolve4': (done) => dns.resolve4('localhost', () => done()),
  'crypto.randomBytes': (done) => crypto.randomBytes(8, () => done()),
  'crypto.randomFill': (done) => crypto.randomFill(Buffer.alloc(8), () => done()),
  'crypto.randomInt': (done) => crypto.randomInt(10, () => done()),
  'crypto.pbkdf2': (done) => crypto.pbkdf2('a', 'b', 1, 8, 'sha256', () => done()),
};
const from = {
  main: (run) => run(),
  timer: (run) => new Promise((resolve) => setTimeout(() => run().then(resolve), 1)),
  immediate: (run) => new Promise((resolve) => setImmediate(() => run().then(resolve))),
};
for (const [where, enter] of Object.entries(from)) {
  for (const [form, start] of Object.entries(forms)) await enter(() => between(`${form} from ${where}`, start));
}
