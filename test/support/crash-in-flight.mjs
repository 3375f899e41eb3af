import { Sim } from 'dst-runtime';

/**
 * Host n1 calls `start(seen)` at 5 ms and is crashed at once, with whatever real work it started
 * still in flight; an observer client notes the time after 20 ms. Returns what `seen` collected:
 * a killed process sees no callbacks, and the run goes on.
 */
export async function crashWithWorkInFlight(seed, start) {
  const seen = [];
  const sim = new Sim({ seed });
  sim.host('n1', () => {
    setTimeout(() => {
      start(seen);
      sim.crash('n1'); // the host dies with its calls in flight
    }, 5);
  }, { onCrash: 'keep-down' });
  sim.client('observer', async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    seen.push(`observer at ${performance.now()} ms`);
  });
  await sim.run();
  return seen;
}
