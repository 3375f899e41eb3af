// The bank API (api.mjs) over a real Postgres (PGlite, dst-runtime/services/postgres), with
// customers withdrawing concurrently. The invariant is the bank's: the balance is what was
// there minus every withdrawal the API accepted, and never negative.
//
//   dst explore examples/postgres/bank.mjs --seeds 20              # the fixed API: every seed passes
//   DST_BANK_BUG=1 dst explore examples/postgres/bank.mjs --seeds 20   # the lost update, found from seeds
import { fileURLToPath } from 'node:url';
import { always, defineScenario } from 'dst-runtime';
import { postgres } from 'dst-runtime/services/postgres';

const INITIAL = 100;
const AMOUNT = 30;
const CUSTOMERS = ['alice', 'bob', 'carol'];

/** A request to the API, retried while it is not up yet (it starts with the database). */
async function call(method, path) {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(`http://api:8080${path}`, { method });
      return { status: res.status, body: await res.text() };
    } catch (error) {
      if (attempt >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export function bankScenario({ bug = process.env.DST_BANK_BUG === '1' } = {}) {
  return defineScenario({
    name: bug ? 'bank (buggy: read, then write)' : 'bank',
    hosts(sim, ctx) {
      ctx.state.accepted = 0;
      ctx.state.done = 0;
      sim.host('db', postgres({ from: import.meta.url }));
      sim.host('api', { main: fileURLToPath(new URL('./api.mjs', import.meta.url)), env: { BANK_BUG: bug ? '1' : '0' } });
      for (const name of CUSTOMERS) {
        sim.client(name, async () => {
          // Each customer comes by at a moment of its own (from the seed), twice.
          for (let visit = 0; visit < 2; visit++) {
            await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 150)));
            const { status } = await call('POST', `/withdraw?account=1&amount=${AMOUNT}`);
            if (status === 200) ctx.state.accepted++;
          }
          ctx.state.done++;
        });
      }
      sim.client('auditor', async () => {
        while (ctx.state.done < CUSTOMERS.length) await new Promise((resolve) => setTimeout(resolve, 10));
        const balance = Number((await call('GET', '/balance?account=1')).body);
        const paidOut = AMOUNT * ctx.state.accepted;
        always(
          balance === INITIAL - paidOut,
          `the bank paid out ${paidOut} of ${INITIAL} in ${ctx.state.accepted} withdrawals, and the balance is ${balance}`,
        );
      });
    },
    targets: [],
    durationMs: 10_000,
    healMs: 1,
  });
}

export default bankScenario();
