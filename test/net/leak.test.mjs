/**
 * A finished run leaves nothing behind: sockets still open when a host crashes, or when the run
 * ends, have native handles (TCPWrap, UDPWrap) that Node keeps as GC roots until they are closed
 * natively, and through their simulated state they kept the whole world (and everything the
 * hosts' code held) alive, run after run (explore workers grew to gigabytes). The fixture runs
 * a scenario several times in a child process with --expose-gc and reports which runs a full GC
 * could collect.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE = path.join(HERE, 'fixtures/leak-runs.mjs');
const RUNS = 4;

describe('memory across runs', function () {
  it('collects every finished run: sockets open at the end of the run or at a crash keep nothing alive', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', FIXTURE, String(RUNS)], { timeout: 60_000 });
    const report = JSON.parse(stdout.trim().split('\n').pop());
    // The last run may still be referenced by something of the process (nothing today).
    const collected = (list) => list.slice(0, RUNS - 1);
    const all = Array(RUNS - 1).fill(true);
    assert.deepEqual(collected(report.sims), all, `Sim objects still reachable: ${stdout}`);
    assert.deepEqual(collected(report.worlds), all, `worlds still reachable: ${stdout}`);
    assert.deepEqual(collected(report.states), all, `the hosts' state still reachable: ${stdout}`);
  });
});
