// process.getActiveResourcesInfo() lists an fs request from the call until its callback, and
// the ticks and promise jobs that callback queued, have run (Node deletes the request after its
// callback scope); in the promise API until the code after the `await` has run. Under the
// simulator the requests the simulated disk answers were never handed to libuv, so Node's own
// list kept them until they were garbage collected; those of the real disk, delivered later than
// Node completed them, were gone in their own callbacks. Also run on the real disk by
// test/compliance/programs/90-fs-active-requests.mjs.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { cleanUp, log, root } from './lib.mjs';

// Only fs requests: stdio and the program's own timers are not what this is about.
const FS_REQUESTS = new Set(['FSReqCallback', 'FSReqPromise', 'CloseReq']);
const requests = () => process.getActiveResourcesInfo().filter((name) => FS_REQUESTS.has(name));
const nextImmediate = () => new Promise((resolve) => setImmediate(resolve));
const file = path.join(root, 'r.txt');
fs.writeFileSync(file, 'hello\n');

// The module loader's own reads (a FileHandle's CloseReq) may still be in flight at first.
while (requests().length > 0) await nextImmediate();
log('before', requests());
await new Promise((resolve) => {
  fs.stat(file, () => {
    log('in stat callback', requests());
    process.nextTick(() => log('tick queued by the callback', requests()));
    Promise.resolve().then(() => log('promise job queued by the callback', requests()));
    setImmediate(() => {
      log('immediate queued by the callback', requests());
      resolve();
    });
  });
  log('stat in flight', requests());
});
// Two at once: the first callback, whichever it is, sees the other still listed.
await new Promise((resolve) => {
  let calls = 0;
  const done = () => {
    calls++;
    log(`callback ${calls} of 2`, requests());
    if (calls === 2) setImmediate(resolve);
  };
  fs.stat(file, done);
  fs.access(file, done);
});
await new Promise((resolve) => {
  fs.readFile(file, () => {
    log('in readFile callback', requests());
    setImmediate(resolve);
  });
});
log('after readFile', requests());
await fsp.stat(file);
log('after await fsp.stat', requests());
await nextImmediate();
log('an immediate later', requests());
const handle = await fsp.open(file);
log('after await fsp.open', requests());
await handle.close();
log('after await handle.close', requests());
await nextImmediate();
log('an immediate later', requests());
cleanUp();
