// Where reads and writes land: positioned and current-position I/O, O_APPEND, holes, truncation.
import fs from 'node:fs';
import path from 'node:path';
import { cleanUp, log, root } from './lib.mjs';

const file = path.join(root, 'pos');
const fd = fs.openSync(file, 'w+');
log('write', fs.writeSync(fd, 'abcdef'));
log('pwrite', fs.writeSync(fd, 'XY', 1));
log('write at current', fs.writeSync(fd, 'gh'));
const buffer = Buffer.alloc(16);
log('pread', fs.readSync(fd, buffer, 0, 16, 0), buffer.toString('utf8', 0, 8));
log('read at current (end)', fs.readSync(fd, buffer, 0, 16, null));
log('pread past end', fs.readSync(fd, buffer, 0, 4, 100));
log('write past end', fs.writeSync(fd, Buffer.from('Z'), 0, 1, 12));
log('hole', fs.readFileSync(file).toString('hex'));
fs.ftruncateSync(fd, 4);
log('shrunk', fs.readFileSync(file, 'utf8'), fs.fstatSync(fd).size);
fs.ftruncateSync(fd, 6);
log('grown', fs.readFileSync(file).toString('hex'));
log('bigint position', fs.readSync(fd, buffer, 0, 2, 1n), buffer.toString('utf8', 0, 2));
log('readv', fs.readvSync(fd, [Buffer.alloc(2), Buffer.alloc(3)], 0));
log('writev', fs.writevSync(fd, [Buffer.from('1'), Buffer.from('23')], 0), fs.readFileSync(file, 'utf8').slice(0, 4));
fs.closeSync(fd);

const afd = fs.openSync(file, 'a');
log('append ignores position', fs.writeSync(afd, 'END', 0));
fs.closeSync(afd);
log('appended', fs.readFileSync(file).toString('hex'));

const rfd = fs.openSync(file, 'r');
const first = Buffer.alloc(3);
fs.readSync(rfd, first, 0, 3, null);
const second = Buffer.alloc(3);
fs.readSync(rfd, second, 0, 3, null);
log('sequential reads', first.toString('hex'), second.toString('hex'));
log('readFile from fd rest', fs.readFileSync(rfd).toString('hex'));
fs.closeSync(rfd);

const tfd = fs.openSync(file, 'r+');
fs.writeSync(tfd, 'w');
log('r+ keeps contents', fs.readFileSync(file).length);
fs.closeSync(tfd);
fs.closeSync(fs.openSync(file, 'w'));
log('w truncates', fs.readFileSync(file).length);
cleanUp();
