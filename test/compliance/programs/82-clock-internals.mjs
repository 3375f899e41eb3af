// Node internals that stamp the current time read it through copies of Date.now taken at
// startup: `new File()` without lastModified, util.log's timestamp (Node 20 and 22), and
// readline's crlfDelay (a \r and a \n more than crlfDelay ms apart are two line ends). Inside the
// simulation each must follow the simulated clock, as they follow the real one plainly.
import { File as BufferFile } from 'node:buffer';
import readline from 'node:readline';
import { PassThrough } from 'node:stream';
import util from 'node:util';

const f = new File(['abc'], 'a.txt', { type: 'text/plain' });
console.log('global File is buffer.File:', File === BufferFile, 'constructor:', f.constructor === File);
console.log('File default lastModified is now (within 1 s):', Math.abs(f.lastModified - Date.now()) < 1000);
console.log('explicit lastModified kept:', new File([], 'b', { lastModified: 42 }).lastModified);
console.log('lastModified null is 0:', new File([], 'c', { lastModified: 'x' }).lastModified);
console.log('options read:', new File(['x'], 'd', { get type() { return 'TEXT/Plain'; } }).type);
class MyFile extends File {}
console.log('subclass:', new MyFile([], 'e') instanceof File, Math.abs(new MyFile([], 'e').lastModified - Date.now()) < 1000);
for (const bad of [() => new File([]), () => new File([], 'x', 5), () => File([], 'x')]) {
  try {
    bad();
  } catch (error) {
    console.log('error:', error.name, error.code);
  }
}

if (typeof util.log === 'function') {
  const lines = [];
  const realLog = console.log;
  console.log = (...args) => lines.push(util.format(...args));
  util.log('hello %s', 'world');
  console.log = realLog;
  const [, day, month, hh, mm, ss, rest] = /^(\d+) (\w+) (\d\d):(\d\d):(\d\d) - (.*)$/.exec(lines[0]);
  const now = new Date();
  const stamped = new Date(now);
  stamped.setHours(Number(hh), Number(mm), Number(ss), 0);
  console.log('util.log:', rest, '| day and month are today:', Number(day) === now.getDate() && month === now.toString().slice(4, 7),
    '| time is now (within 2 s):', Math.abs(stamped - now) < 2000);
} else {
  console.log('util.log: hello world | day and month are today: true | time is now (within 2 s): true');
}

// readline: '\r' then '\n' in the next immediate is one line end; 250 ms apart, two.
const input = new PassThrough();
const rl = readline.createInterface({ input, crlfDelay: 100 });
const lines = [];
rl.on('line', (line) => lines.push(JSON.stringify(line)));
rl.on('close', () => console.log('readline lines:', lines.join(' ')));
input.write('a\r');
setImmediate(() => {
  input.write('\nb\r');
  setTimeout(() => {
    input.write('\nc\r');
    setTimeout(() => input.end('\n'), 10);
  }, 250);
});
