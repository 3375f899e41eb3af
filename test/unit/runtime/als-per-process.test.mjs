import assert from 'node:assert/strict';
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { Sim } from 'dst-runtime';

/**
 * The store slots AsyncLocalStorage put on an async resource when it was made: with async_hooks
 * (Node 20, 22) each enabled storage copies its store onto every new resource under its own
 * symbol (described 'kResourceStore'); with AsyncContextFrame (Node 24) none does.
 */
const storeSlots = (resource) => Object.getOwnPropertySymbols(resource).filter((symbol) => symbol.description === 'kResourceStore').length;

/** Whether this Node keeps stores in context frames: a store entered in a scope does not stay on its resource. */
function framedContext() {
  const probe = new AsyncLocalStorage();
  const resource = new AsyncResource('probe', { requireManualDestroy: true });
  resource.runInAsyncScope(() => probe.enterWith(1));
  const framed = resource.runInAsyncScope(() => probe.getStore()) === undefined;
  probe.disable();
  return framed;
}

describe('Node fact: every enabled AsyncLocalStorage taxes every async resource made afterwards', () => {
  it('a resource made while K storages are enabled carries K store slots on Node 20/22, none on 24', () => {
    // Arrange
    const before = storeSlots(new AsyncResource('before', { requireManualDestroy: true }));
    const storages = [];
    for (let i = 0; i < 5; i++) {
      const storage = new AsyncLocalStorage();
      storage.run(i, () => {}); // enables it
      storages.push(storage);
    }

    // Act
    const slots = storeSlots(new AsyncResource('after', { requireManualDestroy: true }));
    for (const storage of storages) storage.disable();

    // Assert
    assert.equal(slots - before, framedContext() ? 0 : 5);
  });

  it('running Sims one after another adds no storage: the runtime keeps one per process', async () => {
    const slotsInHost = async (seed) => {
      let slots;
      const sim = new Sim({ seed });
      sim.client('probe', () => {
        slots = storeSlots(new AsyncResource('in-host', { requireManualDestroy: true }));
      });
      await sim.run();
      return slots;
    };
    const first = await slotsInHost(1);
    for (let seed = 2; seed <= 4; seed++) await slotsInHost(seed);
    assert.equal(await slotsInHost(5), first);
  });
});
