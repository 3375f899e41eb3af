#!/usr/bin/env node
// Runs files of Node's own test suite (test/parallel of a Node source tree), unmodified, once
// plainly and once under `--import dst-runtime/register`, and writes one line per file:
//
//   file  plain-exit  simulated-exit  plain-cpu-ms  simulated-cpu-ms  first-error-line
//
// A file counts for the simulator when it passes plainly (exit 0) and simulated. CPU time is
// user+sys of the whole process tree (wall time on 2 shared cores says little).
//
// usage: node scripts/node-tests.mjs --list LIST.txt --out OUT.tsv
//          [--node BIN] [--tree DIR] [--jobs 2] [--register dist/register.mjs] [--seed 1]
//          [--keep DIR]   (keep each run's output as DIR/<file>.{plain,sim}.txt)
//          [--twice 1]    (run each file that passes simulated a second time, same seed, and
//                          add a column: 1 when both runs printed the same on stdout and on
//                          stderr, byte for byte, summary line and fingerprint included; 0, the
//                          stream and the first differing line otherwise)
//
// LIST.txt: one file name of test/parallel per line. The `// Flags:` line of a test file is
// passed to node, as Node's test runner does. Plain runs stop after 30 s, simulated after 60 s
// (exit 124, from timeout(1)).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, appendFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = parseArgs(process.argv.slice(2));
const node = args.node ?? process.execPath;
const tree = resolve(args.tree ?? '/work/nodetests');
const jobs = Number(args.jobs ?? 2);
const register = resolve(args.register ?? join(repo, 'dist/register.mjs'));
const seed = args.seed ?? '1';
if (!args.list || !args.out) {
  console.error('Failed to run Node tests: --list LIST.txt and --out OUT.tsv are required');
  process.exit(2);
}
if (!Number.isInteger(jobs) || jobs < 1) {
  console.error(`Failed to run Node tests: --jobs must be a positive integer (got ${args.jobs})`);
  process.exit(2);
}
const files = readFileSync(args.list, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
const scratch = mkdtempSync(join(tmpdir(), 'dst-node-tests-'));
if (args.keep) mkdirSync(args.keep, { recursive: true });
writeFileSync(args.out, '');

const rows = new Array(files.length);
let next = 0;
let written = 0;
await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, (_, w) => worker(w)));
rmSync(scratch, { recursive: true, force: true });
const plain = rows.filter((r) => r.plain === 0).length;
const both = rows.filter((r) => r.plain === 0 && r.sim === 0).length;
const replayed = rows.filter((r) => r.same === 1).length;
console.log(`${node}: ${files.length} files, ${plain} pass plainly, ${both} of those also simulated${args.twice ? `, ${replayed} printed the same twice` : ''}`);

async function worker(w) {
  while (next < files.length) {
    const i = next++;
    rows[i] = await runFile(files[i], i, w);
    // Lines are written in list order, whatever order the runs finish in.
    while (written < rows.length && rows[written]) {
      const r = rows[written++];
      const columns = [r.file, r.plain, r.sim, r.plainCpuMs, r.simCpuMs, r.why];
      if (args.twice) columns.push(r.same ?? '');
      appendFileSync(args.out, columns.join('\t') + '\n');
    }
  }
}

async function runFile(file, i, w) {
  const path = join(tree, 'test/parallel', file);
  const flagLine = readFileSync(path, 'utf8').match(/^\/\/ Flags:(.*)$/m);
  const flags = flagLine ? flagLine[1].trim().split(/\s+/).filter(Boolean) : [];
  // Each worker its own test/.tmp.N (test/common/tmpdir.js): two files refreshing one tmpdir
  // removed each other's files.
  const env = { ...process.env, NODE_TEST_KNOWN_GLOBALS: '0', TEST_THREAD_ID: String(w) };
  const p = await run(`${i}.plain`, 30, [...flags, path], env);
  const simulated = () => run(`${i}.sim`, 60, ['--import', register, ...flags, path], { ...env, DST_SEED: seed, DST_QUIET: args.twice ? '' : '1' });
  const s = await simulated();
  // A replay: the same seed must print the same (the summary line carries the fingerprint).
  let same;
  if (args.twice && s.code === 0) {
    const again = await simulated();
    const stream = ['stdout', 'stderr'].find((name) => again[name] !== s[name]);
    same = stream === undefined ? 1 : `0 ${stream} ${firstDifference(s[stream], again[stream])}`;
  }
  if (args.keep) {
    writeFileSync(join(args.keep, `${file}.plain.txt`), p.output);
    writeFileSync(join(args.keep, `${file}.sim.txt`), s.output);
  }
  const why = (s.output.match(/^.*(Error|error|DST_|strict|exit).*$/m)?.[0] ?? '')
    .slice(0, 160).replace(/[\t\n]/g, ' ');
  return { file, plain: p.code, sim: s.code, plainCpuMs: p.cpuMs, simCpuMs: s.cpuMs, why, same };
}

function firstDifference(a, b) {
  const x = a.split('\n');
  const y = b.split('\n');
  let i = 0;
  while (i < x.length && x[i] === y[i]) i++;
  return `line ${i + 1}: ${JSON.stringify((x[i] ?? '<end>').slice(0, 100))} then ${JSON.stringify((y[i] ?? '<end>').slice(0, 100))}`.replace(/[\t\n]/g, ' ');
}

function run(name, seconds, nodeArgs, env) {
  const timeFile = join(scratch, `${name}.time`);
  return new Promise((done) => {
    // Node's tests resolve fixtures relative to the tree's test/ directory and the cwd.
    const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', timeFile,
      'timeout', String(seconds), 'nice', node, ...nodeArgs], { cwd: tree, env });
    // Both streams in arrival order (for reading), and each on its own (for comparing: how two
    // pipes interleave in this process depends on the real machine, not on the program).
    const chunks = [];
    const streams = { stdout: [], stderr: [] };
    child.stdout.on('data', (c) => chunks.push(c) && streams.stdout.push(c));
    child.stderr.on('data', (c) => chunks.push(c) && streams.stderr.push(c));
    child.on('close', (code, signal) => {
      let cpuMs = -1;
      try {
        const t = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
        cpuMs = Math.round((t[0] + t[1]) * 1000);
      } catch { /* killed before time(1) wrote it */ }
      const text = (list) => Buffer.concat(list).toString();
      done({ code: code ?? 128 + (signal ? 9 : 0), cpuMs, output: text(chunks), stdout: text(streams.stdout), stderr: text(streams.stderr) });
    });
  });
}

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) {
      console.error(`Failed to run Node tests: expected --name value pairs, got ${argv.slice(i).join(' ')}`);
      process.exit(2);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  return out;
}
