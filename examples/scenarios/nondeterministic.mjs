// Nondeterministic on purpose, to show `dst check` catching it. The host picks a timer delay
// from values the simulator does not control: the real clock, read through the file system
// (the mtime of a file written fresh by this process), and the process id. Two runs of the same
// seed schedule the timer at different virtual times, so their traces differ at that event.
//
//   dst check examples/scenarios/nondeterministic.mjs --seed 1     # exit 73, names the event
//
// The escape hatch is deliberate: real I/O on node:fs is not simulated, and a value read from
// it is as good as a real clock. Never let such a value steer a simulated program.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineScenario } from 'dst-runtime';

/** A number from outside the simulation: the real time (ns) a fresh file was written, and the pid. */
function realEntropy() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dst-nondet-'));
  const file = path.join(dir, 'now');
  writeFileSync(file, 'x');
  const mtimeNs = statSync(file, { bigint: true }).mtimeNs;
  rmSync(dir, { recursive: true, force: true });
  return Number((mtimeNs + BigInt(process.pid) * 7919n) % 1_000_003n);
}

export default defineScenario({
  name: 'nondeterministic (reads the real clock)',
  hosts(sim, ctx) {
    ctx.state.ticks = 0;
    sim.host('ticker', () => {
      setInterval(() => ctx.state.ticks++, 100); // deterministic: the same in every run
      setTimeout(() => {
        // Scheduled at a virtual time taken from the real world: differs between runs.
        setTimeout(() => ctx.state.ticks++, 1 + (realEntropy() % 997));
      }, 250);
    });
  },
  durationMs: 2_000,
});
