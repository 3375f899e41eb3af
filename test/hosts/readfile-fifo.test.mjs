/**
 * fs.readFile of a FIFO by a host (shims/fs/disk.ts serveReadFile) in a process whose plain code
 * called fs.readFile before any simulation: lib's ReadFileContext then holds Node's own read and
 * close, and the shim serves a host's readFile at its open, with a readFileSync on the main
 * thread. For a FIFO that blocked the process in open(2) until a writer came; the writer being
 * this process, for ever (a mocha worker on Node 24 hung in test/hosts/abort.test.mjs when an
 * earlier file of the same worker had called fs.readFile).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));

describe('fs.readFile of a FIFO by a host, after plain code loaded fs.readFile (seed 0x2e)', function () {
  this.timeout(60_000);
  it('reaches the thread pool and reads what this process writes, instead of blocking the main thread', async function () {
    if (process.platform === 'win32') this.skip();
    const program = path.join(HERE, 'fixtures/readfile-fifo.mjs');
    const { stdout } = await promisify(execFile)(process.execPath, [program], { timeout: 20_000 }).catch((error) => {
      throw new Error(`the program did not finish (${error.killed ? 'killed after 20 s: the main thread blocked in open(2)' : error.message})`);
    });
    assert.equal(stdout, 'through the fifo\n');
  });
});
