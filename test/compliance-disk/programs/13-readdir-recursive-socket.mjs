// A recursive readdir walks into directories only: a unix socket's file beside them is listed,
// not entered. (The simulated disk took a socket for a directory in internalModuleStat, whose
// S_IFSOCK bits contain S_IFDIR's, and failed with ENOTDIR: Node's test-fs-readdir-recursive,
// found by a probe, 2026-12-05.)
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { cleanUp, log, root } from './lib.mjs';

fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
fs.writeFileSync(path.join(root, 'a', 'b', 'file'), 'x');
const server = net.createServer();
await new Promise((resolve) => server.listen(path.join(root, 'a', 's.sock'), resolve));
log('sync', fs.readdirSync(root, { recursive: true }).sort());
log('callback', await new Promise((resolve, reject) => fs.readdir(root, { recursive: true }, (error, names) => (error ? reject(error) : resolve(names.sort())))));
log('promise', (await fs.promises.readdir(root, { recursive: true })).sort());
log('with types', fs.readdirSync(root, { recursive: true, withFileTypes: true }).map((d) => `${d.name}:${d.isSocket() ? 'socket' : d.isDirectory() ? 'dir' : 'file'}`).sort());
await new Promise((resolve) => server.close(resolve));
cleanUp();
