// The package's types work for a TypeScript user without extra steps: the packed package alone
// (no @types/node, no dependency installed) compiles a consumer under strict settings.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const CONSUMER = `
import { Sim, defineScenario, runScenario, formatSeed, machineSettings, seedList, type ScheduledFault, type ScenarioResult, type SimResult } from 'dst-runtime';
import { checkLinearizable } from 'dst-runtime/check';
import 'dst-runtime/register';

const scenario = defineScenario({
  name: 'typed',
  hosts(sim) {
    sim.host('a', () => setTimeout(() => {}, 10));
  },
  durationMs: 100,
  faults: { crashPerSecond: 1 },
});
const schedule: ScheduledFault[] = [{ atMs: 10, fault: 'crash', target: 'a', downMs: 50 }];
export async function main(): Promise<string> {
  const result: ScenarioResult = await runScenario(scenario, 1, { schedule, stopAtMs: 50 });
  const sim = new Sim({ seed: 7, durationMs: 1_000 });
  const run: SimResult = await sim.run();
  const settings: Record<string, string> = machineSettings({ TZ: 'UTC' });
  // @ts-expect-error a seed is a number, bigint or string
  new Sim({ seed: {} });
  // @ts-expect-error not a fault kind
  const wrong: ScheduledFault = { atMs: 10, fault: 'meteor' };
  void wrong;
  void checkLinearizable;
  return formatSeed(1n) + result.fingerprint + run.fingerprint + JSON.stringify(settings) + seedList({ env: {} }).length;
}
`;


describe('types for TypeScript users', function () {
  this.timeout(120_000);

  it('the packed package compiles a strict consumer without @types/node or any dependency installed', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dst-types-'));
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const [{ filename }] = JSON.parse(out);
    const pkg = path.join(dir, 'node_modules', 'dst-runtime');
    mkdirSync(pkg, { recursive: true });
    execFileSync('tar', ['-xzf', path.join(dir, path.basename(filename)), '-C', pkg, '--strip-components=1']);
    assert.ok(readdirSync(path.join(pkg, 'dist')).includes('index.d.ts'));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
    writeFileSync(path.join(dir, 'consumer.ts'), CONSUMER);
    // The consumer's own setTimeout: from the DOM lib, not @types/node, which is not there.
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [], noEmit: true, skipLibCheck: false }, files: ['consumer.ts'] }),
    );
    const tsc = spawnSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    // The check is real: a mistake in the consumer is reported.
    writeFileSync(path.join(dir, 'consumer.ts'), `${CONSUMER}\nconst n: number = formatSeed(1n);\n`);
    const bad = spawnSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stdout, /Type 'string' is not assignable to type 'number'/);
  });
});
