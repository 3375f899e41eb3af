// Arguments Node's C++ refuses before any call, on every call form: a descriptor that is no int32
// (2**32, Infinity, 1000.5), an access or copyFile mode that is no int32 or out of 0..7. The
// simulated disk took such descriptors for its own (EBADF) and such modes for numbers (a copy was
// made; Node's test-fs-copyfile, -fchmod, -fchown, -error-messages; a probe, 2026-12-05).
import fs from 'node:fs';
import path from 'node:path';
import { cleanUp, log, root } from './lib.mjs';

const source = path.join(root, 'source');
const copy = path.join(root, 'copy');
fs.writeFileSync(source, 'x');
const attempt = (label, call) => {
  try {
    call();
    log(label, 'ok', fs.existsSync(copy) ? 'copy made' : '');
  } catch (error) {
    log(label, error.name, error.code, error.message);
  }
  fs.rmSync(copy, { force: true });
};
attempt('fchmodSync 2**32', () => fs.fchmodSync(2 ** 32, 0o666));
attempt('fchownSync Infinity', () => fs.fchownSync(Infinity, 0, 0));
attempt('fchmodSync 1000.5', () => fs.fchmodSync(1000.5, 0o666));
attempt('fstatSync 2**31', () => fs.fstatSync(2 ** 31));
attempt('closeSync 2**32', () => fs.closeSync(2 ** 32));
attempt("copyFileSync mode 'r'", () => fs.copyFileSync(source, copy, 'r'));
attempt('copyFileSync mode -1', () => fs.copyFileSync(source, copy, -1));
attempt('copyFileSync mode 8', () => fs.copyFileSync(source, copy, 8));
attempt('copyFile mode -1 (thrown at the call)', () => fs.copyFile(source, copy, -1, () => log('callback called')));
attempt("accessSync mode 'r'", () => fs.accessSync(source, 'r'));
attempt('accessSync mode object', () => fs.accessSync(source, { [Symbol.toPrimitive]: () => 5 }));
attempt('accessSync mode 8 of a missing file', () => fs.accessSync(path.join(root, 'missing'), 8));
await fs.promises.access(source, 'r').then(() => log('promises.access r ok'), (error) => log('promises.access r', error.name, error.code, error.message));
cleanUp();
