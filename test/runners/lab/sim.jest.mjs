import { test } from '@jest/globals';
import * as dst from 'dst-runtime';
import { simTest } from 'dst-runtime/jest';
import simTestLab from './sim-test-lab.cjs';
simTestLab(dst, { simTest, test: (name, fn, ms) => test(name, () => fn({}), ms) });
