// Start-up cost of the Postgres service per incarnation: a database host booted, then crashed and
// restarted BOOTS - 1 times; for each boot, the real time from boot (or restart) until a client's
// first query is answered, and the virtual time it took. With the template data directory
// (the default) and without (initdb at every boot).
//
//   node examples/postgres/startup.mjs            # both modes, 3 boots each
//   BOOTS=5 MODES=template node examples/postgres/startup.mjs
import pg from 'pg';
import { Sim } from 'dst-runtime';
import { postgres } from 'dst-runtime/services/postgres';

const BOOTS = Number(process.env.BOOTS ?? 3);
const MODES = (process.env.MODES ?? 'template,initdb').split(',');
const realNow = performance.now.bind(performance);

async function measure(mode) {
  const spec = postgres({ from: import.meta.url, template: mode === 'template' });
  const sim = new Sim({ seed: 1 });
  sim.host('db', spec);
  const boots = [];
  sim.client('probe', async () => {
    for (let boot = 1; boot <= BOOTS; boot++) {
      const real0 = realNow();
      const virtual0 = performance.now();
      if (boot > 1) {
        sim.crash('db');
        sim.restart('db');
      }
      for (let attempt = 0; ; attempt++) {
        const client = new pg.Client({ host: 'db', port: 5432, user: 'postgres', database: 'postgres' });
        client.on('error', () => {});
        try {
          await client.connect();
          await client.query('SELECT 1');
          await client.end();
          break;
        } catch (error) {
          if (attempt > 100) throw error;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      boots.push({ realMs: Math.round(realNow() - real0), virtualMs: Number((performance.now() - virtual0).toFixed(3)) });
    }
  });
  const result = await sim.run();
  return { mode, boots, fingerprint: result.fingerprint };
}

for (const mode of MODES) {
  const { boots, fingerprint } = await measure(mode);
  console.log(`${mode.padEnd(8)} ${boots.map((b, i) => `boot ${i + 1}: ${b.realMs} ms real, ${b.virtualMs} ms virtual`).join('; ')}  (fingerprint ${fingerprint})`);
}
process.exit(0);
