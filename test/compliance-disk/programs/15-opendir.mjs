// fs.opendir, fs.opendirSync and fs.promises.opendir: Node's own fs.Dir over what they open, its
// entries, bufferSize, encodings, its queue of concurrent reads, closing, and every error as
// Node gives it (a synchronous open's names no path). Listings are sorted: a real directory lists
// in an order of its own. Also run on the real disk by test/compliance/programs/119-fs-opendir.mjs
// (found by a probe, 2026-12-05: a host's fs.opendir read the real disk behind a simulated one's
// back, and on the real disk its reads completed wherever the thread pool put them).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { attempt, attemptAsync, cleanUp, describeError, log, root } from './lib.mjs';

const dir = path.join(root, 'd');
fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
for (const name of ['a', 'b', 'c', 'é']) fs.writeFileSync(path.join(dir, name), name);
fs.symlinkSync('a', path.join(dir, 'link'));
const kind = (d) => (d.isSymbolicLink() ? 'link' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other');
const show = (d) => `${Buffer.isBuffer(d.name) ? `<${d.name.toString('hex')}>` : d.name}:${kind(d)}:${d.parentPath === dir}`;

// Synchronously, 2 entries per read of the handle.
const sync = fs.opendirSync(dir, { bufferSize: 2 });
log('path', sync.path, sync instanceof fs.Dir);
const seen = [];
for (let entry = sync.readSync(); entry !== null; entry = sync.readSync()) seen.push(show(entry));
log('sync', seen.sort());
log('after the end', sync.readSync());
sync.closeSync();
attempt('readSync after close', () => sync.readSync());
attempt('closeSync twice', () => sync.closeSync());
await attemptAsync('close() after close', () => sync.close());

// Callbacks: each read in the one before's callback; nextTicks the callback queues run after it.
const order = [];
await new Promise((resolve, reject) => {
  fs.opendir(dir, 'buffer', (error, opened) => {
    if (error) return reject(error);
    log('callback opened', opened.path);
    const names = [];
    const next = () =>
      opened.read((error, entry) => {
        if (error) return reject(error);
        if (entry === null) {
          log('callback', names.sort());
          order.push('end');
          process.nextTick(() => order.push('tick'));
          return opened.close((error) => {
            order.push(`closed ${error}`);
            resolve();
          });
        }
        names.push(show(entry));
        next();
      });
    next();
  });
});
log('order', order);

// Promises: two reads at once are queued, each gets its own entry; readSync meanwhile is refused.
const opened = await fs.promises.opendir(pathToFileURL(dir), { bufferSize: 1 });
const [first, second] = [opened.read(), opened.read()];
attempt('readSync during reads', () => opened.readSync());
const both = [await first, await second];
log('two reads', both.map(show).length, both[0].name !== both[1].name);
const rest = [];
for await (const entry of opened) rest.push(show(entry));
log('for await (closes it)', rest.length + 2);
await attemptAsync('close after for await', () => opened.close());

// Errors of the open.
attempt('sync missing', () => fs.opendirSync(path.join(root, 'missing')));
attempt('sync file', () => fs.opendirSync(path.join(dir, 'a')));
await new Promise((resolve) =>
  fs.opendir(path.join(root, 'missing'), (error, none) => {
    log('callback missing', describeError(error), none, 'frames', error.stack.split('\n').length - 1);
    resolve();
  }),
);
await attemptAsync('promise file', () => fs.promises.opendir(path.join(dir, 'a')));
await attemptAsync('promise through a link to a file', () => fs.promises.opendir(path.join(dir, 'link')));

// Argument checks, in Node's order.
attempt('sync number', () => fs.opendirSync(5));
attempt('sync null byte', () => fs.opendirSync(`${dir}\u0000x`));
attempt('sync bad encoding', () => fs.opendirSync(dir, { encoding: 'no' }));
attempt('sync options number', () => fs.opendirSync(dir, 5));
// (Not { bufferSize: 0 }: Node 20's Dir throws without closing its handle, and whether the
// collector closes it, with a warning, before the process exits varies from run to run.)
attempt('sync http URL', () => fs.opendirSync(new URL('http://example.com/')));
attempt('callback missing callback', () => fs.opendir(dir));
attempt('callback bad path first', () => fs.opendir(5, { encoding: 'no' }, () => {}));
await attemptAsync('promise number', () => fs.promises.opendir(5));
await attemptAsync('promise bad encoding', () => fs.promises.opendir(dir, { encoding: 'no' }));
cleanUp();
