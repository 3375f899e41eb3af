// The layering of the sources (docs/architecture.md, "Layers and layout"), at the type level:
// the lower layers of runtime/ declare what they ask of the World (HostWorld, LifecycleLoop,
// NetworkWorld) instead of importing it, runtime/ never imports shims/, and no files import each
// other around a circle except where ALLOWED_CIRCLES says why.
import assert from 'node:assert/strict';
import { ALLOWED_CIRCLES, circles, importGraph } from '../../../scripts/import-cycles.mjs';

const LOWER = ['runtime/clock/', 'runtime/random/', 'runtime/hosts/', 'runtime/scheduler/', 'runtime/network/', 'runtime/disk/', 'runtime/trace/', 'runtime/driver/'];
const ABOVE_THEM = ['runtime/world.ts', 'runtime/sim.ts', 'runtime/interposer.ts', 'runtime/options.ts', 'runtime/scenario/', 'runtime/testing/', 'shims/'];

describe('layers of the sources (scripts/import-cycles.mjs)', () => {
  const graph = importGraph();

  it('has no circle of imports but the allowed ones', () => {
    const allowed = ALLOWED_CIRCLES.map((c) => [...c].sort().join(' '));
    assert.deepEqual(circles(graph).map((c) => c.join(' ')).filter((c) => !allowed.includes(c)), []);
  });

  it('lets no lower layer of runtime/ import the World, the Sim or anything above them', () => {
    const upward = [];
    for (const [file, targets] of graph) {
      if (!LOWER.some((dir) => file.startsWith(dir))) continue;
      for (const target of targets) if (ABOVE_THEM.some((above) => target.startsWith(above))) upward.push(`${file} -> ${target}`);
    }
    assert.deepEqual(upward, []);
  });

  it('keeps runtime/ free of shims/', () => {
    const fromRuntime = [...graph].flatMap(([file, targets]) => (file.startsWith('runtime/') ? targets.filter((t) => t.startsWith('shims/')).map((t) => `${file} -> ${t}`) : []));
    assert.deepEqual(fromRuntime, []);
  });
});
