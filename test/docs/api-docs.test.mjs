import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderApi } from '../../scripts/api-docs.mjs';

describe('docs/api.md', () => {
  it('is generated from the current type declarations (run `npm run docs:api` if this fails)', () => {
    const committed = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    assert.equal(committed, renderApi());
  });

  it('documents the public entry points', () => {
    const api = renderApi();
    for (const name of ['Sim', 'SimOptions', 'SimResult', 'SimulationError', 'parseSeed', 'ExitCode']) {
      assert.match(api, new RegExp(`^## ${name}$`, 'm'));
    }
  });
});
