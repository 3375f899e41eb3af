// `npm run demo` builds only when dist/ is stale (scripts/build-if-stale.mjs): a fake checkout
// with set file times, so the decision is tested without running rollup.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { staleness } from '../../scripts/build-if-stale.mjs';

const OUTPUTS = ['index.cjs', 'index.mjs', 'index.d.ts', 'register.cjs', 'register.mjs', 'register.d.ts', 'loader-hooks.mjs'];

describe('scripts/build-if-stale.mjs (what npm run demo builds)', () => {
  let root;
  const at = (file, seconds) => utimesSync(path.join(root, file), seconds, seconds);
  const write = (file, seconds) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), '');
    at(file, seconds);
  };

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'dst-build-if-stale-'));
    write('package.json', 1000);
    writeFileSync(path.join(root, 'package.json'), JSON.stringify({ exports: { '.': {}, './register': {}, './package.json': './package.json' } }));
    at('package.json', 1000);
    for (const file of ['index.ts', 'register.ts', 'rollup.config.mjs', 'tsconfig.json', 'runtime/world.ts', 'shims/install.ts']) write(file, 1000);
    at('runtime', 1000);
    at('shims', 1000);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds a fresh clone (no dist/), and a dist/ missing one of its files', () => {
    assert.match(staleness(root), /dist\/index\.cjs is missing/);
    for (const file of OUTPUTS.slice(1)) write(`dist/${file}`, 2000);
    assert.match(staleness(root), /dist\/index\.cjs is missing/);
  });

  it('skips the build when every output is newer than every input', () => {
    for (const file of OUTPUTS) write(`dist/${file}`, 2000);
    assert.equal(staleness(root), undefined);
  });

  it('builds again when a source, a new file, or the build settings changed after the oldest output', () => {
    for (const file of OUTPUTS) write(`dist/${file}`, 2000);
    at('dist/register.d.ts', 1500);
    write('shims/clock/date.ts', 1800);
    assert.match(staleness(root), /shims changed since the last build/);
    at('shims/clock/date.ts', 1000);
    at('shims/clock', 1000);
    at('shims', 1000);
    assert.equal(staleness(root), undefined);
    at('tsconfig.json', 1600);
    assert.match(staleness(root), /tsconfig\.json changed/);
    at('tsconfig.json', 1000);
    write('entry.cjs', 1700);
    assert.match(staleness(root), /entry\.cjs changed/);
  });

  it('counts every file of dist/, chunks included, as what the build wrote', () => {
    for (const file of OUTPUTS) write(`dist/${file}`, 2000);
    write('dist/chunks/world-abc.cjs', 900);
    assert.match(staleness(root), /changed since the last build/);
  });
});
