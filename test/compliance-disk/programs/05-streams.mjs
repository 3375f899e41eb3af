// Write and read streams, readline over a file: chunks, events and their order.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { once } from 'node:events';
import { cleanUp, log, root } from './lib.mjs';

const file = path.join(root, 'stream.txt');
const out = fs.createWriteStream(file);
const events = [];
out.on('open', () => events.push('open'));
out.on('ready', () => events.push('ready'));
out.on('finish', () => events.push('finish'));
out.on('close', () => events.push('close'));
for (let i = 0; i < 5; i++) out.write(`line ${i}\n`);
out.end('last\n');
await once(out, 'close');
log('write events', events, out.bytesWritten);

const chunks = [];
const input = fs.createReadStream(file, { highWaterMark: 7, encoding: 'utf8' });
const readEvents = [];
input.on('open', () => readEvents.push('open'));
input.on('end', () => readEvents.push('end'));
for await (const chunk of input) chunks.push(chunk);
log('chunks', chunks);
log('read events', readEvents);

const partial = fs.createReadStream(file, { start: 2, end: 9 });
let text = '';
for await (const chunk of partial) text += chunk;
log('partial', text);

const lines = [];
for await (const line of readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity })) lines.push(line);
log('lines', lines);

const appended = fs.createWriteStream(file, { flags: 'a' });
appended.end('appended\n');
await once(appended, 'close');
log('after append', fs.readFileSync(file, 'utf8').split('\n').length);

const missing = fs.createReadStream(path.join(root, 'missing'));
const [error] = await once(missing, 'error');
log('missing', error.code, error.syscall);
cleanUp();
