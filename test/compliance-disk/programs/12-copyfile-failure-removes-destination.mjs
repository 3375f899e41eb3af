// copyFile fails after libuv opened (created, truncated) the destination, and libuv then removes
// it: copying a directory leaves no destination, an existing one or a new one; every callform.
// A failure before that open (a missing source, an existing destination with COPYFILE_EXCL, a
// destination that is a directory) leaves it as it was. The simulated disk failed a directory
// source before touching the destination (found by a probe, 2026-12-05).
import fs from 'node:fs';
import path from 'node:path';
import { cleanUp, describeError, log, root } from './lib.mjs';

const dir = path.join(root, 'dir');
fs.mkdirSync(dir);
const existing = path.join(root, 'existing');
const state = (file) => (!fs.existsSync(file) ? 'gone' : fs.statSync(file).isDirectory() ? 'a directory' : JSON.stringify(fs.readFileSync(file, 'utf8')));

async function copy(label, from, to, mode = 0) {
  if (to === existing) fs.writeFileSync(existing, 'old destination');
  let outcome;
  try {
    if (label.startsWith('callback')) await new Promise((resolve, reject) => fs.copyFile(from, to, mode, (error) => (error ? reject(error) : resolve())));
    else if (label.startsWith('promise')) await fs.promises.copyFile(from, to, mode);
    else fs.copyFileSync(from, to, mode);
    outcome = 'ok';
  } catch (error) {
    outcome = describeError(error);
  }
  log(label, outcome, 'destination after:', state(to));
}

for (const form of ['sync', 'callback', 'promise']) {
  await copy(`${form}: a directory onto an existing file`, dir, existing);
  await copy(`${form}: a directory onto a new name`, dir, path.join(root, `new-${form}`));
  await copy(`${form}: a missing source onto an existing file`, path.join(root, 'missing'), existing);
  await copy(`${form}: COPYFILE_EXCL onto an existing file`, path.join(root, 'existing'), existing, fs.constants.COPYFILE_EXCL);
  await copy(`${form}: a file onto a directory`, existing, dir);
}
cleanUp();
