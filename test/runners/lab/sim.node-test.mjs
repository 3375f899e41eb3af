import { test } from 'node:test';
import * as dst from 'dst-runtime';
import { simTest } from 'dst-runtime/node-test';
import simTestLab from './sim-test-lab.cjs';
// node:test: a plain Sim stops with its test only when given t.signal.
simTestLab(dst, { simTest, test: (name, fn, ms) => test(name, ms === undefined ? {} : { timeout: ms }, (t) => fn({ signal: t.signal })) });
