'use strict';
// dist/vitest.cjs: what `require('dst-runtime/vitest')` loads. Vitest is an ES module only (its
// own `require('vitest')` throws), and so is this integration: say so, and what to write instead.
const error = new Error(
  "dst-runtime/vitest cannot be loaded with require(): Vitest is an ES module only, and so is its dst-runtime integration. " +
    "Use `import { simTest } from 'dst-runtime/vitest'` in the test file (or `await import('dst-runtime/vitest')`).",
);
error.code = 'ERR_REQUIRE_ESM';
throw error;
