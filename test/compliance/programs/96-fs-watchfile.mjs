// fs.watchFile: a stat poll. A file that does not exist yet calls back once with zeroed stats;
// its creation, a change of size and its deletion call back with the new and the previous
// stats; a second watchFile of the same file shares the poll; unwatchFile without a listener
// stops it ('stop' event), and a watcher with persistent: false does not keep the process alive.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-watchfile-'));
const file = path.join(dir, 'watched.txt');
const log = [];
const describe = (curr, prev) => `${prev.size} -> ${curr.size} bytes, nlink ${prev.nlink} -> ${curr.nlink}, file ${prev.isFile()} -> ${curr.isFile()}, ino set ${curr.ino > 0}`;

const watcher = fs.watchFile(file, { interval: 50 }, (curr, prev) => log.push(`first listener: ${describe(curr, prev)}`));
fs.watchFile(file, { interval: 10 }, (curr, prev) => log.push(`second listener: ${describe(curr, prev)}`));
watcher.on('stop', () => log.push('stop'));
setTimeout(() => fs.writeFileSync(file, 'abc'), 200);
setTimeout(() => fs.appendFileSync(file, 'de'), 400);
setTimeout(() => fs.unlinkSync(file), 600);
setTimeout(() => {
  fs.unwatchFile(file);
  const big = path.join(dir, 'bigint.txt');
  fs.writeFileSync(big, 'x');
  fs.watchFile(big, { interval: 20, bigint: true }, (curr, prev) => {
    log.push(`bigint: ${typeof curr.size} ${prev.size} -> ${curr.size}, mtimeNs ${typeof curr.mtimeNs}`);
    fs.unwatchFile(big);
    // Not persistent: nothing of it keeps the process alive once the last timer has run.
    fs.watchFile(big, { interval: 20, persistent: false }, () => log.push('unexpected'));
    setTimeout(() => {
      console.log(log.join('\n'));
      fs.rmSync(dir, { recursive: true });
    }, 5);
  });
  setTimeout(() => fs.writeFileSync(big, 'xyz'), 100);
}, 800);
