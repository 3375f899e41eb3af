const dst = require('dst-runtime');
const lab = require('./lab.cjs')(dst, { dir: __dirname });
describe('lab', function () {
  this.timeout(120000);
  it('probe', () => lab.probe());
  for (const [name, fn] of lab.subsystems) it(name, fn);
  it('module host', () => lab.moduleHost());
  it('forEachSeed', () => lab.scenarioSeeds());
  it('planted bug', () => lab.plantedBug());
  it('replay line', () => lab.replayLine());
  it('probe again', () => lab.probe());
});
