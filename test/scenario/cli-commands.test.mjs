import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExitCode } from 'dst-runtime';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COUNTER = 'examples/scenarios/replicated-counter.mjs';
const NONDET = 'examples/scenarios/nondeterministic.mjs';
const QUICK = 'test/scenario/fixtures/quick.mjs';
const APP = 'test/scenario/fixtures/app-coin.mjs';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dst-cli2-'));

/** Runs the CLI; resolves { code, stdout, stderr } whatever the exit code. */
function dst(args, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['cli/dst.mjs', ...args], { cwd: ROOT, env: { ...process.env, DST_COUNTER_BUG: '', DST_TIME_LIMIT: '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

const fingerprintOf = (stdout) => /fingerprint\s+(\S+)/.exec(stdout)?.[1];
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

describe('dst check', () => {
  it('catches the nondeterministic example and names the first divergent event on each side', async () => {
    const { code, stdout } = await dst(['check', NONDET, '--seed', '1', '--trace', path.join(tmp, 'nondet')]);
    assert.equal(code, ExitCode.nondeterminism, stdout);
    assert.match(stdout, /NONDETERMINISTIC\s+seed 0x1/);
    const event = /first divergent event: trace record \d+, event (\d+) \(differs in ([^)]*)\)/.exec(stdout);
    assert.ok(event, stdout);
    assert.match(event[2], /tNs|host|kind/); // the timer moved: another event runs in its place
    // Both sides: event number, virtual time, host, kind and where it was scheduled; the
    // timer whose delay came from the real world is one of them, and the other run ran it later
    // or earlier.
    for (const side of ['run 1', 'run 2']) {
      assert.match(stdout, new RegExp(`${side}  event ${event[1]}\\s+\\d+\\.\\d{9} s \\(virtual\\)\\s+host \\w+ \\(boot 1\\)\\s+\\w+\\s+scheduled `));
    }
    assert.match(stdout, new RegExp(`run [12]  event ${event[1]} .* host ticker \\(boot 1\\)\\s+timeout\\s+scheduled at examples/scenarios/nondeterministic\\.mjs:33:\\d+`));
    assert.match(stdout, /run [12] ran that timeout \(seq \d+\) as event \d+ at \d+\.\d{9} s instead/);
    // --trace keeps both traces; their events agree up to the named event (annotations between
    // them, such as messages, follow from the events and are not compared).
    const events = (text) => text.split('\n').filter((line) => line.includes('"seq":') || /"kind":"(crashed|exited)"/.test(line));
    const [a, b] = ['1', '2'].map((i) => events(readFileSync(path.join(tmp, `nondet.${i}.jsonl`), 'utf8')));
    const n = Number(event[1]);
    assert.deepEqual(a.slice(0, n - 1), b.slice(0, n - 1));
    assert.notEqual(a[n - 1], b[n - 1]);
  });

  it('says deterministic with the fingerprint of `dst run` for a deterministic scenario (seed 0x6, buggy counter)', async () => {
    const env = { DST_COUNTER_BUG: '1' };
    const checked = await dst(['check', COUNTER, '--seed', '0x6'], env);
    assert.equal(checked.code, ExitCode.ok, checked.stdout);
    const ran = await dst(['run', COUNTER, '--seed', '0x6'], env);
    assert.match(checked.stdout, new RegExp(`^deterministic\\s+seed 0x6\\s+fingerprint ${fingerprintOf(ran.stdout)}`));
    assert.match(checked.stdout, /outcome safety: /);
  });

  it('checks plain programs too: a timer from a real file time is caught, a deterministic program passes', async () => {
    const bad = await dst(['check', 'test/scenario/fixtures/app-nondeterministic.mjs', '--seed', '1']);
    assert.equal(bad.code, ExitCode.nondeterminism, bad.stdout);
    assert.match(bad.stdout, /run 1  event 2 .* host main \(boot 1\)\s+timeout\s+scheduled at test\/scenario\/fixtures\/app-nondeterministic\.mjs:7:\d+/);
    const good = await dst(['check', APP, '--seed', '3']);
    assert.equal(good.code, ExitCode.ok, good.stdout);
    assert.match(good.stdout, /^deterministic\s+seed 0x3\s+fingerprint fail:crash:/);
    assert.match(good.stdout, /\d+ trace records? and [1-9]\d* bytes of output compared/);
  });

  it('a --trace that cannot be written is a usage error before any run (check, explore)', async () => {
    const checked = await dst(['check', APP, '--seed', '4', '--trace', path.join(tmp, 'missing-dir', 't')]);
    assert.equal(checked.code, ExitCode.usage, checked.stderr);
    assert.match(checked.stderr, /Failed to write --trace .*missing-dir\/t\.1\.jsonl: no such directory/);
    const explored = await dst(['explore', APP, '--seeds', '2', '--trace', path.join(tmp, 'missing-dir', 't')]);
    assert.equal(explored.code, ExitCode.usage, explored.stderr);
    assert.match(explored.stderr, /Failed to write --trace .*missing-dir\/t\.0x1\.jsonl: no such directory/);
    assert.doesNotMatch(explored.stdout + explored.stderr, /seeds passed/);
  });

  it('compares the output too: a value from outside the simulation that is only printed is caught', async () => {
    // The events are the same in both runs (one timer); the printed value is not.
    const { code, stdout } = await dst(['check', 'test/scenario/fixtures/app-prints-nondeterministic.mjs', '--seed', '1']);
    assert.equal(code, ExitCode.nondeterminism, stdout);
    assert.match(stdout, /NONDETERMINISTIC\s+seed 0x1/);
    assert.match(stdout, /the events agree \(1 trace record, fingerprint \w+\) but the program's output differs/);
    // Two fresh UUIDs differ from some column of the id on (the first 11 are 'request id ').
    const column = Number(/first difference: stdout line 2, column (\d+)/.exec(stdout)?.[1]);
    assert.ok(column >= 12 && column <= 47, stdout);
    const [one, two] = ['1', '2'].map((side) => new RegExp(`run ${side}  "request id ([0-9a-f-]{36})"`).exec(stdout)?.[1]);
    assert.ok(one !== undefined && two !== undefined, stdout);
    assert.notEqual(one, two);
  });
});

describe('dst with plain programs', () => {
  it('a library-mode script run as a plain program is told to run with plain node', async () => {
    const { code, stderr } = await dst(['run', 'test/scenario/fixtures/app-builds-sim.mjs', '--seed', '1']);
    assert.notEqual(code, ExitCode.ok);
    assert.match(stderr, /UsageError: Failed to start a simulation: this program already runs simulated as a whole .*run that program with plain node/);
  });

  it('run: exit code of register mode (seed 3 throws, seed 4 passes); the program output is shown', async () => {
    const failing = await dst(['run', APP, '--seed', '3']);
    assert.equal(failing.code, ExitCode.hostCrash);
    assert.match(failing.stderr, /unlucky draw/);
    assert.match(failing.stdout, /replay\s+node cli\/dst\.mjs run test\/scenario\/fixtures\/app-coin\.mjs --seed 0x3/);
    const passing = await dst(['run', APP, '--seed', '4']);
    assert.equal(passing.code, ExitCode.ok);
    assert.match(passing.stdout, /lucky draw/);
    assert.match(passing.stderr, /dst: seed 0x4 .* exit 0/);
  });

  it('a scenario whose definition is wrong is a usage error said once, for run and explore (not a program crashing on every seed)', async () => {
    for (const args of [['run', 'test/scenario/fixtures/bad-definition.mjs'], ['explore', 'test/scenario/fixtures/bad-definition.mjs', '--seeds', '3', '--jobs', '1']]) {
      const { code, stdout, stderr } = await dst(args);
      assert.equal(code, ExitCode.usage, `${args[0]}: ${stdout}${stderr}`);
      assert.match(stderr, /^dst: Failed to define scenario "bad-definition": unknown key faults\.crashesPerSecond; did you mean faults\.crashPerSecond\?$/m);
      assert.doesNotMatch(stdout + stderr, /crashed|failing seed/);
    }
  });

  it('run writes DST_REPORT as register mode does, for a program and for a scenario; an unwritable one is a usage error', async () => {
    // It was silently ignored: the CLI gives its child a report file of its own.
    const appReport = path.join(tmp, 'run-app.json');
    const app = await dst(['run', APP, '--seed', '3'], { DST_REPORT: appReport });
    assert.equal(app.code, ExitCode.hostCrash, app.stdout);
    assert.match(app.stdout, /^report +.*run-app\.json$/m);
    const written = readJson(appReport);
    assert.equal(written.seed, '0x3');
    assert.equal(written.exitCode, ExitCode.hostCrash);
    assert.match(app.stderr, new RegExp(`dst: seed 0x3 +fingerprint ${written.fingerprint} `), 'the report is this run\'s');
    const scenarioReport = path.join(tmp, 'run-scenario.json');
    const scenario = await dst(['run', QUICK, '--seed', '3'], { DST_REPORT: scenarioReport });
    assert.equal(scenario.code, ExitCode.ok, scenario.stdout);
    const result = readJson(scenarioReport);
    assert.equal(result.seed, '0x3');
    assert.equal(result.ok, true);
    assert.equal(result.fingerprint, fingerprintOf(scenario.stdout));
    const bad = await dst(['run', QUICK, '--seed', '3'], { DST_REPORT: path.join(tmp, 'no-such-dir', 'r.json') });
    assert.equal(bad.code, ExitCode.usage);
    assert.match(bad.stderr, /Failed to write DST_REPORT .*no such directory/);
  });

  it('replay lines name the Node that ran when the PATH finds another node first, and replay from a shell', async () => {
    // Event orders differ between Node versions: a run of /path/to/node24 must not print a replay
    // that a PATH finding Node 20 runs as `node ...`.
    const bin = mkdtempSync(path.join(tmp, 'other-node-'));
    writeFileSync(path.join(bin, 'node'), '#!/bin/sh\necho "not the Node that ran" >&2\nexit 99\n', { mode: 0o755 });
    const env = { PATH: `${bin}${path.delimiter}${process.env.PATH}` };
    const quote = (word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
    const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const ran = await dst(['run', APP, '--seed', '3'], env);
    assert.equal(ran.code, ExitCode.hostCrash, ran.stdout);
    const cli = path.join(ROOT, 'cli/dst.mjs');
    assert.match(ran.stdout, new RegExp(`replay +${escape(`${quote(process.execPath)} ${quote(cli)} run ${APP} --seed 0x3`)}$`, 'm'));
    const registered = await new Promise((resolve) => {
      execFile(process.execPath, ['--import', './dist/register.mjs', APP], { cwd: ROOT, env: { ...process.env, ...env, DST_SEED: '3' } }, (error, stdout, stderr) => resolve({ code: error?.code ?? 0, stdout, stderr }));
    });
    const line = /replay +(.*)$/m.exec(registered.stderr + registered.stdout)?.[1];
    assert.ok(line?.includes(`DST_SEED=0x3 ${quote(process.execPath)} --import dst-runtime/register ${APP}`), `register mode's replay line: ${line}`);
    for (const command of [/replay +(.*)$/m.exec(ran.stdout)[1], line]) {
      const replayed = await new Promise((resolve) => {
        execFile('/bin/sh', ['-c', command], { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => resolve({ code: error?.code ?? 0, stdout, stderr }));
      });
      assert.equal(replayed.code, ExitCode.hostCrash, `${command}\n${replayed.stderr}`);
      assert.match(replayed.stderr, /unlucky draw/);
    }
  });

  it('explore: finds the failing seeds, each replays in a fresh process; replay reproduces one', async () => {
    const report = path.join(tmp, 'app.json');
    const { code, stdout } = await dst(['explore', APP, '--seeds', '12', '--jobs', '2', '--report', report]);
    assert.equal(code, ExitCode.hostCrash, stdout);
    const r = readJson(report);
    assert.equal(r.target, 'app');
    assert.deepEqual(r.failing.map((f) => f.seed), ['0x3', '0xa', '0xc']);
    assert.ok(r.failing.every((f) => f.kind === 'crash' && f.replays && /unlucky draw/.test(f.message)));
    const replayed = await dst(['replay', report, '--index', '2']);
    assert.equal(replayed.code, ExitCode.hostCrash, replayed.stdout);
    assert.match(replayed.stdout, /seed 0xc .*\n[\s\S]*reproduced/);
  });

  it('explore: a failure whose message changes on the same events does not count as replaying, and says why', async () => {
    const report = path.join(tmp, 'outside.json');
    const { code, stdout } = await dst(['explore', 'test/scenario/fixtures/app-fails-on-outside-data.mjs', '--seeds', '2', '--jobs', '1', '--report', report]);
    assert.equal(code, ExitCode.nondeterminism, stdout);
    const r = readJson(report);
    assert.deepEqual(r.failing.map((f) => [f.seed, f.replays]), [['0x1', false], ['0x2', false]]);
    assert.ok(r.failing.every((f) => /^failed otherwise: crash: .*request [0-9a-f-]{36} failed/.test(f.replayedAs)), JSON.stringify(r.failing));
    assert.match(stdout, /^ {2}0x1: the fresh run had the same events but failed otherwise: .* the failure depends on data from outside the simulation/m);
    const replayed = await dst(['replay', report, '--index', '0']);
    assert.equal(replayed.code, ExitCode.nondeterminism, replayed.stdout);
    assert.match(replayed.stdout, /^NOT REPRODUCED: the same events as recorded, but it failed otherwise: the failure depends on data from outside the simulation/m);
  });

  it('the file itself decides: a scenario is never run as a program, a program never loaded in the CLI', async () => {
    // A program with a default export that is not a scenario is still a program.
    const app = path.join(tmp, 'default-export.mjs');
    writeFileSync(app, "export default { kind: 'not-a-scenario' };\nsetTimeout(() => { throw new Error('ran as a program'); }, 5);\n");
    const { code, stderr } = await dst(['run', app, '--seed', '1']);
    assert.equal(code, ExitCode.hostCrash);
    assert.match(stderr, /ran as a program/);
    assert.equal((await dst(['run', path.join(tmp, 'missing.mjs')])).code, ExitCode.usage);
  });
});

describe('dst replay, --trace, --time-limit', () => {
  let buggy;
  before(async () => {
    buggy = path.join(tmp, 'buggy.json');
    const { code, stdout } = await dst(['explore', COUNTER, '--seeds', '12', '--jobs', '2', '--report', buggy, '--trace', path.join(tmp, 'explore')], { DST_COUNTER_BUG: '1' });
    assert.equal(code, ExitCode.safety, stdout);
  });

  it('explore --trace writes <file>.<seed>.jsonl for each failing seed; the report keeps the settings', () => {
    const report = readJson(buggy);
    assert.deepEqual(report.settings, { DST_COUNTER_BUG: '1' });
    assert.ok(report.failing.length > 0);
    for (const row of report.failing) {
      const lines = readFileSync(path.join(tmp, `explore.${row.seed}.jsonl`), 'utf8').trim().split('\n');
      assert.ok(lines.length > 100);
      // The first line says what the trace is; events keep their fields.
      assert.deepEqual(JSON.parse(lines[0]), { n: 0, tNs: 0, kind: 'run', format: 'dst-trace/2', seed: row.seed, mode: 'library', latency: { minMs: 1, maxMs: 5 } });
      // A boot is the runner's doing (no program frame made it): it has no site. The program's
      // own events name theirs.
      assert.deepEqual(JSON.parse(lines[1]), { n: 1, tNs: 0, host: 'n1', boot: 1, kind: 'boot', seq: 1 });
      const records = lines.map((line) => JSON.parse(line));
      const timer = records.find((r) => r.kind === 'interval' && r.host === 'writer');
      assert.deepEqual(Object.keys(timer), ['n', 'tNs', 'host', 'boot', 'kind', 'seq', 'site']);
      assert.match(timer.site, /^examples\/scenarios\/replicated-counter\.mjs:\d+:\d+$/);
    }
    assert.equal(typeof report.seedsPerSecond, 'number');
    assert.equal(report.jobs, 2);
  });

  it('replay reruns a recorded failure with its settings, without them in the environment', async () => {
    const report = readJson(buggy);
    const trace = path.join(tmp, 'replay.jsonl');
    const { code, stdout } = await dst(['replay', buggy, '--trace', trace]);
    assert.equal(code, ExitCode.safety, stdout);
    assert.match(stdout, new RegExp(`seed ${report.failing[0].seed}`));
    assert.match(stdout, /reproduced\s+same failure, same fingerprint/);
    assert.ok(existsSync(trace));
    // From another directory: the file is found relative to where explore ran.
    const elsewhere = await new Promise((resolve) => {
      execFile(process.execPath, [path.join(ROOT, 'cli/dst.mjs'), 'replay', buggy], { cwd: tmp, env: { ...process.env, DST_COUNTER_BUG: '' } }, (error, stdout) =>
        resolve({ code: error ? error.code : 0, stdout }),
      );
    });
    assert.equal(elsewhere.code, ExitCode.safety, elsewhere.stdout);
  });

  it('replay says NOT REPRODUCED (exit 73) when the seed runs differently than recorded', async () => {
    const report = readJson(buggy);
    report.settings = {}; // the bug switch is gone: the seed now passes
    const tampered = path.join(tmp, 'tampered.json');
    writeFileSync(tampered, JSON.stringify(report));
    const { code, stdout } = await dst(['replay', tampered]);
    assert.equal(code, ExitCode.nondeterminism, stdout);
    assert.match(stdout, /NOT REPRODUCED/);
    assert.equal((await dst(['replay', tampered, '--index', '99'])).code, ExitCode.usage);
  });

  it('run --trace writes the trace; --time-limit is a virtual-time limit that travels with the replay', async () => {
    const trace = path.join(tmp, 'run.jsonl');
    const ran = await dst(['run', QUICK, '--seed', '2', '--trace', trace]);
    assert.equal(ran.code, ExitCode.ok);
    assert.match(readFileSync(trace, 'utf8'), /"host":"a"/);
    const limited = await dst(['run', COUNTER, '--seed', '1', '--time-limit', '500ms']);
    assert.equal(limited.code, ExitCode.limit, limited.stdout);
    assert.match(limited.stdout, /FAILED\s+limit: .*0\.5/);
    assert.match(limited.stdout, /replay\s+DST_TIME_LIMIT=500ms node cli\/dst\.mjs run/);
    assert.equal((await dst(['run', QUICK, '--time-limit', 'soon'])).code, ExitCode.usage);
    assert.equal((await dst(['run', QUICK, '--frobnicate', '1'])).code, ExitCode.usage);
  });
});

describe('dst merge-reports', () => {
  it('merges shard reports: seeds union, coverage summed; the same as one exploration', async () => {
    const whole = path.join(tmp, 'whole.json');
    await dst(['explore', QUICK, '--seeds', '20', '--jobs', '1', '--report', whole]);
    const shards = [];
    for (const k of [1, 2]) {
      shards.push(path.join(tmp, `quick-${k}.json`));
      await dst(['explore', QUICK, '--seeds', '20', '--jobs', '1', '--shard', `${k}/2`, '--report', shards[k - 1]]);
    }
    const out = path.join(tmp, 'merged.json');
    const { code, stdout } = await dst(['merge-reports', ...shards, '--out', out]);
    assert.equal(code, ExitCode.ok, stdout);
    assert.match(stdout, /20 of 20 seeds ran/);
    const merged = readJson(out);
    const one = readJson(whole);
    assert.deepEqual(merged.ran, one.ran);
    assert.deepEqual(merged.coverage, one.coverage);
    assert.equal(merged.passed, 20);
    const partial = await dst(['merge-reports', shards[0]]);
    assert.match(partial.stderr, /10 of 20 seeds ran \(10 missing/);
  });

  it('refuses reports of different scenarios or settings, naming the difference', async () => {
    const a = path.join(tmp, 'm-a.json');
    const b = path.join(tmp, 'm-b.json');
    await dst(['explore', QUICK, '--seeds', '4', '--jobs', '1', '--shard', '1/2', '--report', a]);
    await dst(['explore', QUICK, '--seeds', '4', '--jobs', '1', '--shard', '2/2', '--report', b], { DST_SOMETHING: 'x' });
    const settings = await dst(['merge-reports', a, b]);
    assert.equal(settings.code, ExitCode.usage);
    assert.match(settings.stderr, /Failed to merge reports: .*m-b\.json has settings .*DST_SOMETHING/);
    const c = path.join(tmp, 'm-c.json');
    await dst(['explore', 'test/scenario/fixtures/crash.mjs', '--seeds', '4', '--jobs', '1', '--report', c]);
    const scenario = await dst(['merge-reports', a, c]);
    assert.equal(scenario.code, ExitCode.usage);
    assert.match(scenario.stderr, /m-c\.json has scenario "crashing" but .*m-a\.json has scenario "quick"/);
  });
});

describe('dst --swarm and progress', () => {
  it('run --swarm prints the seed\'s fault mix, the same on every run', async () => {
    const a = await dst(['run', COUNTER, '--seed', '5', '--swarm']);
    const b = await dst(['run', COUNTER, '--seed', '5', '--swarm']);
    const mix = /swarm\s+(crashPerSecond=\S+ .*)/.exec(a.stdout)?.[1];
    assert.ok(mix, a.stdout);
    assert.equal(/swarm\s+(.*)/.exec(b.stdout)[1], mix);
    assert.equal(fingerprintOf(a.stdout), fingerprintOf(b.stdout));
    // A plain program takes --swarm too (issue 16): its faults come from DST_FAULTS, not a profile.
    const app = await dst(['run', APP, '--swarm']);
    assert.notEqual(app.code, ExitCode.usage, app.stderr);
    assert.match(app.stderr, /^dst: faults latencyTailMs=/m);
  });

  it('explore --swarm prints the mix of failing seeds and puts it in the report; progress lines when not a TTY', async () => {
    const report = path.join(tmp, 'swarm.json');
    const { code, stdout, stderr } = await dst(['explore', COUNTER, '--seeds', '16', '--jobs', '2', '--swarm', '--report', report], { DST_COUNTER_BUG: '1' });
    assert.equal(code, ExitCode.safety, stdout);
    const r = readJson(report);
    assert.equal(r.swarm, true);
    assert.ok(r.failing.every((f) => typeof f.swarm?.crashPerSecond === 'number' && / --swarm$/.test(f.replay) && f.replays));
    assert.match(stdout, /0x[0-9a-f]+ swarm: crashPerSecond=/);
    // The last line of the exploration, then the confirmation of its failures, which says how far it got.
    assert.match(stderr, /dst explore: 16\/16 seeds\s+[\d.]+ seeds\/s\s+(\d+) failing\n/);
    const failing = Number(/16\/16 seeds\s+[\d.]+ seeds\/s\s+(\d+) failing/.exec(stderr)[1]);
    assert.match(stderr, new RegExp(`dst explore: confirming failures in fresh processes: ${failing}/${failing}\\n$`));
    assert.equal(stderr.split(`confirming failures in fresh processes: ${failing}/${failing}\n`).length, 2, 'the last line once');
    assert.match(stdout, new RegExp(`^16 seeds in [\\d.]+ s \\(exploring [\\d.]+ s, confirming ${failing} failure\\(s\\) [\\d.]+ s\\): [\\d.]+ seeds/s with 2 job\\(s\\)$`, 'm'));
  });
});
