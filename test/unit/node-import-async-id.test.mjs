/**
 * A Node fact the Node-test comparisons rest on (docs/notes/node-facts.md, "async_hooks under
 * --import"): with any `--import`, even of an empty module, plain Node runs the main script's top
 * level at executionAsyncId() 0 (1 without), so the resources it makes there have trigger id 0.
 * Node's async_hooks tests that assert the top-level ids fail under any --import, plainly too.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

describe('plain Node: the main script under --import', function () {
  this.timeout(30_000);

  it('runs its top level at executionAsyncId() 0, where without --import it is 1', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-import-id-'));
    try {
      const script = path.join(dir, 'ids.cjs');
      const empty = path.join(dir, 'empty.mjs');
      fs.writeFileSync(script, "const ah = require('node:async_hooks'); console.log(ah.executionAsyncId(), new ah.AsyncResource('X').triggerAsyncId());\n");
      fs.writeFileSync(empty, 'export {};\n');
      const run = promisify(execFile);
      const bare = await run(process.execPath, [script]);
      const imported = await run(process.execPath, ['--import', empty, script]);
      assert.equal(bare.stdout, '1 1\n');
      assert.equal(imported.stdout, '0 0\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
