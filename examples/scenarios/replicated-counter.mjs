// A replicated counter over simulated UDP: n1 is the primary, n2 and n3 are backups.
// A writer host sends increments to n1; n1 applies one, replicates its value to both backups
// and acknowledges the increment once both have it. A restarted replica recovers the value
// from a ready peer before serving.
//
// The planted bug (DST_COUNTER_BUG=1, or bug: true): n1 acknowledges before replicating and
// replicates lazily every 100 ms, so a crash of n1 in that window loses acknowledged increments.
//
//   dst explore examples/scenarios/replicated-counter.mjs --seeds 300 --jobs 2
//   DST_COUNTER_BUG=1 dst explore examples/scenarios/replicated-counter.mjs --seeds 300 --jobs 2
import dgram from 'node:dgram';
import { defineScenario, sometimes } from 'dst-runtime';

const PORT = 7000;
const REPLICAS = ['n1', 'n2', 'n3'];

function send(socket, host, message) {
  socket.send(JSON.stringify(message), PORT, host);
}

/** One replica's main: it publishes { value, ready } in ctx.state.replicas for the invariants. */
function replica(name, ctx, bug) {
  return () => {
    const me = { value: 0, ready: false };
    ctx.state.replicas[name] = me;
    const peers = REPLICAS.filter((r) => r !== name);
    const socket = dgram.createSocket('udp4');
    // Primary only: pending client acks waiting for replication, and what each backup has.
    const waiting = []; // { value, from: { address, port }, id }
    const backupValue = { n2: 0, n3: 0 };

    const flushAcks = () => {
      const replicated = Math.min(backupValue.n2, backupValue.n3);
      while (waiting.length > 0 && waiting[0].value <= replicated) {
        const w = waiting.shift();
        socket.send(JSON.stringify({ type: 'ack', id: w.id }), w.from.port, w.from.address);
      }
    };
    const replicate = () => {
      for (const peer of peers) if (backupValue[peer] < me.value) send(socket, peer, { type: 'replicate', value: me.value });
    };

    socket.on('message', (buffer, from) => {
      const message = JSON.parse(String(buffer));
      switch (message.type) {
        case 'inc':
          if (name !== 'n1' || !me.ready) return; // the writer retries
          me.value++;
          if (bug) {
            socket.send(JSON.stringify({ type: 'ack', id: message.id }), from.port, from.address);
          } else {
            waiting.push({ value: me.value, from, id: message.id });
            replicate();
          }
          return;
        case 'replicate':
          if (!me.ready) return;
          me.value = Math.max(me.value, message.value);
          send(socket, 'n1', { type: 'replicated', from: name, value: me.value });
          return;
        case 'replicated':
          backupValue[message.from] = Math.max(backupValue[message.from], message.value);
          flushAcks();
          return;
        case 'recover':
          if (me.ready) socket.send(JSON.stringify({ type: 'state', value: me.value }), from.port, from.address);
          return;
        case 'state':
          if (me.ready) return;
          me.value = Math.max(me.value, message.value);
          me.ready = true;
          sometimes(true, `${name} recovered from a peer`);
          return;
      }
    });
    socket.bind(PORT, () => {
      // The first boot starts ready at zero; a restart recovers from a peer first.
      if (!ctx.state.booted.has(name)) {
        ctx.state.booted.add(name);
        me.ready = true;
      }
    });
    setInterval(() => {
      if (!me.ready) for (const peer of peers) send(socket, peer, { type: 'recover' });
      else if (name === 'n1') replicate(); // retries (UDP loses packets under partitions), and the buggy lazy path
    }, bug ? 100 : 20);
  };
}

/** The writer: one increment at a time, retried until acknowledged. */
function writer(ctx) {
  return () => {
    const socket = dgram.createSocket('udp4');
    let id = 0;
    let acked = true;
    socket.on('message', (buffer) => {
      const message = JSON.parse(String(buffer));
      if (message.type === 'ack' && message.id === id && !acked) {
        acked = true;
        ctx.state.acked++;
        if (ctx.phase === 'heal') ctx.state.ackedInHeal++;
      }
    });
    socket.bind(PORT + 1, () => {
      setInterval(() => {
        if (acked) {
          id++;
          acked = false;
        }
        send(socket, 'n1', { type: 'inc', id });
      }, 10);
    });
  };
}

export function counterScenario({ bug = process.env.DST_COUNTER_BUG === '1' } = {}) {
  return defineScenario({
    name: bug ? 'replicated-counter (buggy: ack before replicate)' : 'replicated-counter',
    hosts(sim, ctx) {
      ctx.state.replicas = {};
      ctx.state.booted = new Set();
      ctx.state.acked = 0;
      ctx.state.ackedInHeal = 0;
      for (const name of REPLICAS) sim.host(name, replica(name, ctx, bug));
      sim.host('writer', writer(ctx));
    },
    targets: REPLICAS,
    durationMs: 3_000,
    healMs: 1_000,
    faults: {
      crashPerSecond: 2,
      pausePerSecond: 0.5,
      partitionPerSecond: 0.5,
      downMsMin: 20,
      downMsMax: 300,
      // One replica down at a time, and only once every replica has caught up: with three
      // copies of each acknowledged increment, one crash must never lose it.
      crashWhen: (ctx) => REPLICAS.every((r) => ctx.sim.status(r).state === 'running' && ctx.state.replicas[r]?.ready),
    },
    invariants: {
      safety: [
        function acknowledgedIncrementsSurvive(ctx) {
          const held = REPLICAS.filter((r) => ctx.sim.status(r).state === 'running' && ctx.state.replicas[r]?.ready).map(
            (r) => ctx.state.replicas[r].value,
          );
          const best = held.length === 0 ? 0 : Math.max(...held);
          return best >= ctx.state.acked || `${ctx.state.acked} increments acknowledged but the replicas hold at most ${best}`;
        },
      ],
      liveness: [
        (ctx) => REPLICAS.every((r) => ctx.state.replicas[r]?.ready) || 'a replica never recovered',
        (ctx) => ctx.state.ackedInHeal > 0 || 'no increment was acknowledged during the heal phase',
      ],
    },
  });
}

export default counterScenario();
