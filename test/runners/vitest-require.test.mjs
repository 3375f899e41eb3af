import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

describe('dst-runtime/vitest under require()', () => {
  it('fails with ERR_REQUIRE_ESM and says to import it (Vitest is an ES module only), not "not exported"', () => {
    assert.throws(
      () => require('dst-runtime/vitest'),
      (error) => {
        assert.equal(error.code, 'ERR_REQUIRE_ESM');
        assert.match(error.message, /^dst-runtime\/vitest cannot be loaded with require\(\)/);
        assert.match(error.message, /import \{ simTest \} from 'dst-runtime\/vitest'/);
        return true;
      },
    );
  });
});
