const dst = require('dst-runtime');
const { simTest } = require('dst-runtime/mocha'); // also registers its root afterEach hook
require('./sim-test-lab.cjs')(dst, {
  simTest,
  test(name, fn, ms) {
    const t = it(name, function () {
      return fn({});
    });
    if (ms !== undefined) t.timeout(ms);
  },
});
