// Where the suite's time goes, per test file: with TEST_COST_LOG=<file> set, each test file
// appends one JSON line to <file> when it ends: its path, wall milliseconds, and CPU
// milliseconds of the mocha worker that ran it (`selfCpuMs`) and of the child processes it
// started and waited for (`childCpuMs`, with their own waited-for children). Read from
// /proc/self/stat (Linux; elsewhere the CPU fields are null). Without TEST_COST_LOG it does
// nothing. Under `mocha --parallel` each file is its own root suite, so the root hooks below
// run once per file; in a serial run they see the whole run as one "file".
//
//   TEST_PLAIN_CACHE=0 TEST_COST_LOG=/tmp/costs.jsonl npm test && node scripts/test-costs.mjs /tmp/costs.jsonl
'use strict';
const fs = require('node:fs');

const LOG = process.env.TEST_COST_LOG;
const TICK_MS = 10; // USER_HZ is 100 on every Linux that Node supports

/** utime, stime, cutime and cstime of this process in ms, or undefined off Linux. */
function cpu() {
  let stat;
  try {
    stat = fs.readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map((n) => Number(n) * TICK_MS);
  return { self: utime + stime, children: cutime + cstime };
}

// Captured at load: a test may patch the clocks of this process while it runs.
const now = performance.now.bind(performance);
const dateNow = Date.now;
let start;

function files(suite) {
  const found = new Set();
  const walk = (s) => {
    if (s.file) found.add(s.file);
    for (const child of s.suites) walk(child);
    for (const test of s.tests) if (test.file) found.add(test.file);
  };
  walk(suite);
  return [...found].sort();
}

exports.mochaHooks = LOG
  ? {
      beforeAll() {
        start = { wallMs: now(), cpu: cpu() };
      },
      afterAll() {
        const end = cpu();
        const root = this.test?.parent ?? this.currentTest?.parent;
        let tests = 0;
        root?.eachTest(() => tests++);
        const line = {
          file: root ? files(root).map((f) => require('node:path').relative(process.cwd(), f)).join(',') : '?',
          tests,
          wallMs: Math.round(now() - start.wallMs),
          selfCpuMs: end && start.cpu ? end.self - start.cpu.self : null,
          childCpuMs: end && start.cpu ? end.children - start.cpu.children : null,
          pid: process.pid,
          endedAt: dateNow(),
        };
        fs.appendFileSync(LOG, `${JSON.stringify(line)}\n`);
      },
    }
  : {};
