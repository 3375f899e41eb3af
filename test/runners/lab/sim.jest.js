const dst = require('dst-runtime');
const { simTest } = require('dst-runtime/jest');
require('./sim-test-lab.cjs')(dst, { simTest, test: (name, fn, ms) => test(name, () => fn({}), ms) });
