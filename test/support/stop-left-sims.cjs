// A test that ends with its simulation still running (mocha timed it out while sim.run() hung)
// used to leave that simulation installed in its mocha worker: every later test of the worker
// then failed with "another simulation (seed S) is running", and the one test that hung was lost
// among hundreds of failures (a CI run, 2026-12-06: 223 failures behind two hangs on Node 20).
// After each test this runs dst-runtime/mocha's own root hook, which stops such a simulation and
// prints where its run stood (seed, virtual time, event, what it waited for, replay line).
//
// Loaded lazily, and only once a test of the worker has loaded dst-runtime (no simulation can run
// before): some tests look at what the runtime loads, and `--require dst-runtime/mocha` would load
// it in every worker before any test.
'use strict';
const path = require('node:path');

const DIST = path.join(__dirname, '..', '..', 'dist');

exports.mochaHooks = {
  afterEach() {
    if (require.cache[path.join(DIST, 'index.cjs')] === undefined) return;
    require(path.join(DIST, 'mocha.cjs')).mochaHooks.afterEach.call(this);
  },
};
