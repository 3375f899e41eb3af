// A one-node durable log on a simulated disk: a writer sends records over UDP, the store appends
// each to data/log and acknowledges it; a restarted store reads the log back before serving.
// The machine crashes now and then (a power loss: what was not fsync'd is gone).
//
// The planted bug (DST_LOG_BUG=1, or bug: true): the store acknowledges as soon as it has
// written, and fsyncs lazily every 50 ms, so a crash in that window loses acknowledged records.
//
//   dst explore examples/scenarios/durable-log.mjs --seeds 100 --jobs 2
//   DST_LOG_BUG=1 dst explore examples/scenarios/durable-log.mjs --seeds 100 --jobs 2
import dgram from 'node:dgram';
import fs from 'node:fs';
import { defineScenario, sometimes } from 'dst-runtime';

const PORT = 7100;
const DIR = 'data';
const LOG = `${DIR}/log`;

/** The store's main: it publishes { ready, records } in ctx.state.store for the invariants. */
function store(ctx, bug) {
  return async () => {
    const me = { ready: false, records: 0 };
    ctx.state.store = me;
    fs.mkdirSync(DIR, { recursive: true });
    // Recovery: every complete line of the log is a record.
    const text = fs.existsSync(LOG) ? await fs.promises.readFile(LOG, 'utf8') : '';
    me.records = text.split('\n').length - 1;
    if (ctx.state.boots++ > 0) sometimes(me.records > 0, 'a restarted store recovered records from its log');
    const log = fs.openSync(LOG, 'a');
    let dirty = false;
    const socket = dgram.createSocket('udp4');
    socket.on('message', (buffer, from) => {
      const { id } = JSON.parse(String(buffer));
      if (id <= me.records) {
        // A retry of a record already in the log: acknowledge it again.
        socket.send(JSON.stringify({ ack: id }), from.port, from.address);
        return;
      }
      if (id !== me.records + 1) return; // out of order: the writer retries
      fs.writeSync(log, `record ${id}\n`);
      me.records = id;
      if (bug) dirty = true;
      else fs.fdatasyncSync(log);
      socket.send(JSON.stringify({ ack: id }), from.port, from.address);
    });
    if (bug) {
      setInterval(() => {
        if (dirty) fs.fdatasyncSync(log);
        dirty = false;
      }, 50);
    }
    socket.bind(PORT, () => {
      me.ready = true;
    });
  };
}

/** The writer: record after record, each retried until acknowledged. */
function writer(ctx) {
  return () => {
    const socket = dgram.createSocket('udp4');
    let id = 1;
    socket.on('message', (buffer) => {
      const { ack } = JSON.parse(String(buffer));
      if (ack !== id) return;
      ctx.state.acked = id;
      if (ctx.phase === 'heal') ctx.state.ackedInHeal++;
      id++;
    });
    socket.bind(PORT + 1, () => {
      setInterval(() => socket.send(JSON.stringify({ id }), PORT, 'store'), 5);
    });
  };
}

export function durableLogScenario({ bug = process.env.DST_LOG_BUG === '1' } = {}) {
  return defineScenario({
    name: bug ? 'durable-log (buggy: ack before fsync)' : 'durable-log',
    disk: 'simulated',
    hosts(sim, ctx) {
      ctx.state.acked = 0;
      ctx.state.ackedInHeal = 0;
      ctx.state.boots = 0;
      sim.host('store', store(ctx, bug));
      sim.host('writer', writer(ctx));
    },
    targets: ['store'],
    durationMs: 2_000,
    healMs: 500,
    faults: { crashPerSecond: 3, downMsMin: 10, downMsMax: 100 },
    invariants: {
      safety: [
        function acknowledgedRecordsSurvive(ctx) {
          const me = ctx.state.store;
          if (me === undefined || !me.ready || ctx.sim.status('store').state !== 'running') return true;
          return me.records >= ctx.state.acked || `${ctx.state.acked} records acknowledged but the store recovered ${me.records}`;
        },
      ],
      liveness: [(ctx) => ctx.state.ackedInHeal > 0 || 'no record was acknowledged during the heal phase'],
    },
  });
}

export default durableLogScenario();
