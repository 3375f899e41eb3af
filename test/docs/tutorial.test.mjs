// The tutorial's printed outputs are today's: each `$ command` of docs/tutorial.md's shell blocks
// is run from the repository root (`dst` as `node cli/dst.mjs`, as the tutorial says) and its
// stdout compared with the lines the tutorial shows. A line `...` stands for any number of
// lines, and `…` inside a line for any text (a path of this machine). A block preceded by
// `<!-- not checked: why -->` is left out (a real run, a long exploration).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TUTORIAL = path.join(ROOT, 'docs', 'tutorial.md');
/** Files the tutorial's commands write in the repository root. */
const WRITTEN = ['trace.jsonl', 'trace.html', 'shrink-0x2.json'];

/** The checked shell blocks: [{ line, steps: [{ command, expected: string[] }] }]. */
export function shellBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('```')) continue;
    const start = i;
    const shellFence = lines[i] === '```';
    const body = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]);
    if (!shellFence || !body[0]?.startsWith('$ ')) continue;
    const before = lines.slice(Math.max(0, start - 3), start).join('\n');
    if (/<!-- not checked:/.test(before)) continue;
    const steps = [];
    for (const line of body) {
      if (line.startsWith('$ ')) steps.push({ command: line.slice(2), expected: [] });
      else steps.at(-1).expected.push(line);
    }
    blocks.push({ line: start + 1, steps });
  }
  return blocks;
}

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether `actual` lines match `expected` lines (`...` any lines, `…` any text within a line). */
export function matches(expected, actual) {
  const pattern = expected.map((line) => (line === '...' ? '(?:.*\\n)*?' : `${line.split('…').map(escape).join('.*')}\\n`)).join('');
  return new RegExp(`^${pattern}$`).test(actual.map((l) => `${l}\n`).join(''));
}

function shell(command) {
  // `dst` is the package's bin; inside the repository it is node cli/dst.mjs.
  const runnable = command.replace(/^((?:[A-Z_]+=\S*\s+)*)dst /, '$1node cli/dst.mjs ');
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('DST_')) delete env[key];
  return new Promise((resolve) => {
    execFile('bash', ['-c', runnable], { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

describe('docs/tutorial.md shows today\'s output', function () {
  this.timeout(300_000);
  after(() => {
    for (const file of WRITTEN) rmSync(path.join(ROOT, file), { force: true });
  });

  it('the harness matches lines, `...` and `…` as it says', () => {
    assert.ok(matches(['a', '...', 'd'], ['a', 'b', 'c', 'd']));
    assert.ok(matches(['a', '...', 'd'], ['a', 'd']));
    assert.ok(matches(['view  file:///…/trace.html'], ['view  file:///work/x/trace.html']));
    assert.ok(!matches(['a', 'd'], ['a', 'b', 'd']));
    assert.ok(!matches(['a (b)'], ['a xb)']));
  });

  const blocks = shellBlocks(readFileSync(TUTORIAL, 'utf8'));
  it('has shell blocks to check', () => assert.ok(blocks.length >= 5, `${blocks.length} blocks`));
  for (const block of blocks) {
    it(`block at line ${block.line}: ${block.steps.map((s) => s.command).join(' && ')}`, async () => {
      for (const { command, expected } of block.steps) {
        const { stdout, stderr } = await shell(command);
        const actual = stdout.replace(/\n$/, '').split('\n');
        assert.ok(matches(expected, actual), `\`${command}\` printed:\n${stdout}\n(stderr: ${stderr.slice(-2000)})\nbut the tutorial shows:\n${expected.join('\n')}`);
      }
    });
  }
});
