// fs calls on a listening unix socket's file: copyFile (sync, callback, promise) and opening it
// are ENXIO, truncate and appendFile too; access, utimes and chmod work; readdir lists it; unlink
// removes the name while the server still listens. (fs.cpSync is left out: the simulated disk
// refuses it.) Node 20, 22 and 24 alike; found by review 2026-12-03 (copyFile copied the socket).
import net from 'node:net';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'p23-'));
const sock = path.join(dir, 's.sock');
const server = net.createServer();
await new Promise((r) => server.listen(sock, r));
const t = async (name, f) => { try { const v = await f(); console.log(name, 'ok', v === undefined ? '' : JSON.stringify(v)); } catch (e) { console.log(name, e.code, e.syscall, String(e.message).replace(dir, 'DIR').replace(dir, 'DIR')); } };
await t('copyFileSync', () => fs.copyFileSync(sock, path.join(dir, 'c1')));
await t('copyFile cb', () => new Promise((res, rej) => fs.copyFile(sock, path.join(dir, 'c2'), (e) => e ? rej(e) : res())));
await t('fsp.copyFile', () => fsp.copyFile(sock, path.join(dir, 'c3')));
await t('truncateSync', () => fs.truncateSync(sock, 0));
await t('appendFileSync', () => fs.appendFileSync(sock, 'x'));
await t('openSync r', () => fs.openSync(sock, 'r'));
await t('accessSync', () => fs.accessSync(sock, fs.constants.R_OK | fs.constants.W_OK));
await t('utimesSync', () => fs.utimesSync(sock, 1, 1));
await t('chmodSync', () => { fs.chmodSync(sock, 0o600); return (fs.statSync(sock).mode & 0o777).toString(8); });
await t('readdir', () => fs.readdirSync(dir).sort());
await t('unlink', () => fs.unlinkSync(sock));
await new Promise((r) => server.close(r));
fs.rmSync(dir, { recursive: true });
