import { test } from 'vitest';
import * as dst from 'dst-runtime';
import { simTest } from 'dst-runtime/vitest';
import simTestLab from './sim-test-lab.cjs';
// Vitest: a plain Sim stops with its test without being given context.signal.
simTestLab(dst, { simTest, test: (name, fn, ms) => test(name, () => fn({}), ms) });
