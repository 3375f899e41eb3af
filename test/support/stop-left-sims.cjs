// A test that ends with its simulation still running (mocha timed it out while sim.run() hung)
// used to leave that simulation installed in its mocha worker: every later test of the worker
// then failed with "another simulation (seed S) is running", and the one test that hung was lost
// among hundreds of failures (a CI run, 2026-12-06: 223 failures behind one hang on Node 20).
// After each test this stops such a simulation (Sim.running(), as the guide tells runners to) and
// says on stderr what held it, so the hang stays one failure with its cause beside it.
//
// dst-runtime is looked up, never loaded here: a worker whose tests never loaded it has no
// simulation, and some tests look at what the runtime loads.
'use strict';
const path = require('node:path');

const ENTRY = path.join(__dirname, '..', '..', 'dist', 'index.cjs');

exports.mochaHooks = {
  afterEach() {
    const entry = require.cache[ENTRY];
    if (entry === undefined) return;
    const sim = entry.exports.Sim?.running?.();
    if (sim === undefined) return;
    const world = sim.world;
    const state = world === undefined
      ? 'not started'
      : `${world.eventsRun} events run, ${world.pendingEvents} queued, ${world.realWorkHolds} real-work holds, virtual time ${Number(world.nowNs) / 1e6} ms`;
    const title = this.currentTest?.fullTitle() ?? '(a hook)';
    process.stderr.write(`test/support/stop-left-sims.cjs: "${title}" ended with its simulation (seed ${sim.seed}) still running (${state}); aborting it\n`);
    sim.abort(new Error(`the test "${title}" ended with this simulation still running`));
  },
};
