// gc() inside a host leaves the rest of Node's turn to Node (shims/process/machine.ts, gcShim;
// runtime/driver/driver.ts, yieldTurn): the async_hooks destroy callbacks of what it freed run
// before the host's next immediate, as plainly. They waited for the end of the driver's batch
// (253 immediates later in this fixture), and Node's test-net-connect-memleak failed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REGISTER = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));
const INDEX = fileURLToPath(new URL('../../dist/index.mjs', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/gc-destroy.cjs', import.meta.url));

function run(args, env = {}) {
  const result = spawnSync(process.execPath, ['--expose-gc', ...args], { encoding: 'utf8', env: { ...process.env, DST_SEED: '0x6c', ...env } });
  assert.equal(result.status, 0, result.stderr);
  return result;
}

describe('gc() in a host: what the collection set off runs before the next immediate, as in Node', function () {
  this.timeout(30_000);

  it('register mode: the same output as plain Node, and the same fingerprint twice', () => {
    assert.equal(run([FIXTURE]).stdout, 'collected true before immediate 1\n');
    const first = run(['--import', REGISTER, FIXTURE]);
    assert.equal(first.stdout, 'collected true before immediate 1\n');
    const fingerprint = (text) => /fingerprint (\w+)/.exec(text)?.[1];
    assert.ok(fingerprint(first.stderr) !== undefined, first.stderr);
    assert.equal(fingerprint(run(['--import', REGISTER, FIXTURE]).stderr), fingerprint(first.stderr));
  });

  it('library mode: a host that calls gc() sees the same', () => {
    const program = `
      import { Sim } from ${JSON.stringify(INDEX)};
      const sim = new Sim({ seed: 0x6c });
      sim.host('h', { main: ${JSON.stringify(FIXTURE)} });
      const result = await sim.run();
      console.error('stop', result.stopReason);
    `;
    const result = run(['--input-type=module', '-e', program]);
    assert.equal(result.stdout, 'collected true before immediate 1\n');
    assert.match(result.stderr, /stop (quiescent|clients-done)/);
  });
});
