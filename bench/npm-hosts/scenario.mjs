// Three hosts that boot real npm packages, under crash faults (bench figure 11): an aedes broker
// and two mqtt.js clients, a publisher and a subscriber, QoS 1. The broker and both clients crash
// and restart; every boot loads its packages again.
//
//   node cli/dst.mjs explore bench/npm-hosts/scenario.mjs --seeds 20 --jobs 1
import { fileURLToPath } from 'node:url';
import { defineScenario } from '../../dist/index.mjs';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const HOSTS = ['broker', 'pub', 'sub'];

export default defineScenario({
  name: 'mqtt: aedes broker, mqtt.js publisher and subscriber, QoS 1, crashes',
  hosts(sim, ctx) {
    ctx.state.published = new Set();
    ctx.state.received = [];
    ctx.state.receivedInHeal = 0;
    sim.host('broker', { main: here('./broker.mjs') });
    sim.host('pub', { main: here('./client.mjs'), env: { MQTT_ROLE: 'pub' } });
    sim.host('sub', { main: here('./client.mjs'), env: { MQTT_ROLE: 'sub' } });
  },
  targets: HOSTS,
  durationMs: 5_000,
  healMs: 2_500,
  faults: { crashPerSecond: 1, downMsMin: 50, downMsMax: 500 },
  invariants: {
    safety: [
      function onlyPublishedReadingsArrive(ctx) {
        const phantom = ctx.state.received.find((payload) => !ctx.state.published.has(payload));
        return phantom === undefined || `the subscriber received ${JSON.stringify(phantom)}, which was never published`;
      },
    ],
    liveness: [
      function readingsFlowAfterTheFaults(ctx) {
        return ctx.state.receivedInHeal > 0 || `the subscriber received nothing once the faults stopped (${ctx.state.received.length} readings before)`;
      },
    ],
  },
});
