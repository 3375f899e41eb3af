// The stack of an error a synchronous fs call throws on the real disk: it starts at lib's frame
// (Object.readlinkSync), then the program's, as in Node; with Error.stackTraceLimit = 2 the
// program's frame is still there. (The simulator's frame stood first, a probe found, 2026-12-05.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const missing = path.join(os.tmpdir(), 'dst-compliance-118-missing', 'x');
const here = new URL(import.meta.url).pathname;
Error.stackTraceLimit = 2;
const calls = {
  readlinkSync: () => fs.readlinkSync(missing),
  statSync: () => fs.statSync(missing),
  openSync: () => fs.openSync(missing, 'r'),
  readFileSync: () => fs.readFileSync(missing),
  mkdirSync: () => fs.mkdirSync(missing),
  readdirSync: () => fs.readdirSync(missing),
};
for (const [name, call] of Object.entries(calls)) {
  try {
    call();
    console.log(name, 'no error');
  } catch (error) {
    const frames = error.stack.split('\n').slice(1).map((line) => line.trim().replace(here, 'PROGRAM').replace(/^at /, ''));
    console.log(name, error.code, frames.join(' | '));
  }
}
