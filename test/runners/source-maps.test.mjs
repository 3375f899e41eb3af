// Stacks mapped through dist's source maps (node --enable-source-maps; Jest and Vitest map every
// stack in their workers) name dst-runtime's TypeScript sources: those frames are still the
// runtime's, not the program's (runtime/trace/site.ts).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('./fixtures/trace-sites.mjs', import.meta.url));

describe('source-mapped stacks', () => {
  for (const flags of [[], ['--enable-source-maps']]) {
    it(`trace sites are the program's lines${flags.length > 0 ? ' under --enable-source-maps' : ''}`, () => {
      const sites = JSON.parse(execFileSync(process.execPath, [...flags, fixture], { encoding: 'utf8' }));
      assert.deepEqual(sites, ['test/runners/fixtures/trace-sites.mjs:13:11', 'test/runners/fixtures/trace-sites.mjs:11:34']);
    });
  }
});
