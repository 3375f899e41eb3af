// A one-node ledger on a simulated disk that fails: records are framed with a length and a CRC-32,
// appended to data/ledger with the promise API, fdatasync'd, then acknowledged; a restarted store
// recovers the log (cutting a torn tail off) before serving. Readers ask for acknowledged records.
//
// The disk tears unsynced writes at a crash, fails an fsync now and then (losing the unsynced
// data, as Linux does), corrupts a read now and then, fills up for a while, and lags. The
// correct store survives all of it:
//
// - recovery checks every frame's checksum and cuts the log at the first bad frame (a torn tail),
//   after reading the file twice to tell a torn tail from a corrupted read;
// - a short write (a full disk) is cut off again and not acknowledged;
// - a failed fsync crashes the store, which recovers from what the disk really holds
//   (PostgreSQL's answer to "fsyncgate"): retrying the fsync would succeed and lie;
// - a read is checked against its checksum and retried.
//
// Planted bugs, one at a time (DST_LEDGER_BUG=<name>, or ledgerScenario({ bug })):
//   checksum    recovery trusts a frame's length and never checks its checksum
//   truncate    recovery stops at a torn frame but leaves it: later records land behind garbage
//   shortwrite  a short write is taken as written (its count is ignored)
//   fsync       a failed fsync is retried (it succeeds) and the record acknowledged
//   readcheck   reads are served without checking the checksum
//
//   dst explore examples/scenarios/ledger.mjs --seeds 200
//   DST_LEDGER_BUG=fsync dst explore examples/scenarios/ledger.mjs --seeds 200
import dgram from 'node:dgram';
import fs from 'node:fs';
import { always, defineScenario, sometimes } from 'dst-runtime';

export const BUGS = ['checksum', 'truncate', 'shortwrite', 'fsync', 'readcheck'];
const PORT = 7200;
const DIR = 'data';
const LOG = `${DIR}/ledger`;
const HEADER = 8;

/** What record `id` holds: 40 to 460 bytes, so frames cross 512-byte sectors. */
export function valueOf(id) {
  const filler = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return `record ${id}:` + filler.repeat(13).slice(0, 30 + ((id * 37) % 420));
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes, crc = 0xffffffff) {
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return crc;
}

/** A frame: [length u32][crc32 of the length's bytes and the payload u32][payload]. */
function frame(payload) {
  const bytes = Buffer.alloc(HEADER + payload.length);
  bytes.writeUInt32LE(payload.length, 0);
  payload.copy(bytes, HEADER);
  // The length is covered too: a header of zeros (a lost write before a surviving one) is no
  // valid empty record.
  bytes.writeUInt32LE((crc32(payload, crc32(bytes.subarray(0, 4))) ^ 0xffffffff) >>> 0, 4);
  return bytes;
}

function frameValid(bytes, at, length) {
  const sum = (crc32(bytes.subarray(at + HEADER, at + HEADER + length), crc32(bytes.subarray(at, at + 4))) ^ 0xffffffff) >>> 0;
  return sum === bytes.readUInt32LE(at + 4);
}

/** The frames of a log: [{ offset, value }], and where the valid part ends. */
function parse(bytes, bug) {
  const records = [];
  let at = 0;
  while (at + HEADER <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    if (at + HEADER + length > bytes.length) break; // torn: its tail is missing
    if (bug !== 'checksum' && !frameValid(bytes, at, length)) break;
    records.push({ offset: at, value: bytes.toString('utf8', at + HEADER, at + HEADER + length) });
    at += HEADER + length;
  }
  return { records, end: at };
}

/** Reads the whole log; a read that fails (EIO) is retried. */
async function readLog() {
  for (let attempt = 1; ; attempt++) {
    try {
      return fs.existsSync(LOG) ? await fs.promises.readFile(LOG) : Buffer.alloc(0);
    } catch (error) {
      if (error.code !== 'EIO' || attempt >= 20) throw error;
    }
  }
}

async function syncPath(path, flags) {
  const handle = await fs.promises.open(path, flags);
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * Recovery: the longest prefix of valid frames. A bad frame is a torn tail only if two reads of
 * the file agree on it (a corrupted read differs the next time); the tail is then cut off.
 */
async function recover(bug) {
  for (;;) {
    const bytes = await readLog();
    const parsed = parse(bytes, bug);
    if (parsed.end < bytes.length && bug !== 'checksum') {
      const again = await readLog();
      if (!again.equals(bytes)) continue; // one of the reads was corrupted: read once more
    }
    if (parsed.end < bytes.length && bug !== 'truncate') {
      sometimes(true, 'recovery cut a torn tail off the log');
      fs.truncateSync(LOG, parsed.end);
      await syncPath(LOG, 'r+');
    }
    return parsed.records;
  }
}

/** The store's main: it publishes { ready, records } in ctx.state.store for the invariants. */
function store(ctx, bug) {
  return async () => {
    const me = { ready: false, records: [] };
    ctx.state.store = me;
    fs.mkdirSync(DIR, { recursive: true });
    me.records = await recover(bug);
    const log = await fs.promises.open(LOG, 'a+');
    let size = (await log.stat()).size;
    if (ctx.state.boots++ > 0) sometimes(me.records.length > 0, 'a restarted store recovered records');
    const socket = dgram.createSocket('udp4');
    let tail = Promise.resolve();
    const serially = (work) => (tail = tail.then(work));

    async function append(id) {
      const bytes = frame(Buffer.from(valueOf(id)));
      let written;
      try {
        ({ bytesWritten: written } = await log.write(bytes));
      } catch (error) {
        if (error.code === 'EIO' || error.code === 'ENOSPC') return false; // nothing written; the writer retries
        throw error;
      }
      if (written < bytes.length && bug !== 'shortwrite') {
        // The disk filled up in the middle of the frame: cut it off again.
        sometimes(true, 'a short write was cut off');
        await log.truncate(size);
        return false;
      }
      for (let attempt = 1; ; attempt++) {
        try {
          await log.datasync();
          break;
        } catch (error) {
          if (error.code !== 'EIO') throw error;
          if (bug === 'fsync' && attempt < 3) continue; // succeeds the second time: the data is gone anyway
          // What the disk holds is unknown now: crash, and recover from it.
          sometimes(true, 'a failed fsync made the store restart');
          throw new Error('ledger: fdatasync failed; restarting to recover from the disk');
        }
      }
      me.records.push({ offset: size, value: valueOf(id) });
      size += bytes.length;
      return true;
    }

    async function read(id) {
      const { offset } = me.records[id - 1];
      const bytes = Buffer.alloc(HEADER + Buffer.byteLength(valueOf(id)));
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          await log.read(bytes, 0, bytes.length, offset);
        } catch (error) {
          if (error.code === 'EIO') continue;
          throw error;
        }
        const length = bytes.readUInt32LE(0);
        if (bug === 'readcheck' || (length === bytes.length - HEADER && frameValid(bytes, 0, length))) return bytes.toString('utf8', HEADER);
        sometimes(true, 'a read failed its checksum and was retried');
      }
      return undefined;
    }

    socket.on('message', (buffer, from) => {
      const message = JSON.parse(String(buffer));
      const reply = (answer) => socket.send(JSON.stringify(answer), from.port, from.address);
      if (message.append !== undefined) {
        const id = message.append;
        serially(async () => {
          if (id <= me.records.length) return reply({ ack: id }); // a retry of a record it has
          if (id !== me.records.length + 1) return; // out of order: the writer retries
          if (await append(id)) reply({ ack: id });
        });
      } else if (message.read !== undefined) {
        serially(async () => {
          if (message.read > me.records.length) return;
          const value = await read(message.read);
          if (value !== undefined) reply({ id: message.read, value });
        });
      }
    });
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
      setInterval(() => socket.send(JSON.stringify({ append: id }), PORT, 'store'), 5);
    });
  };
}

/** The reader: asks for acknowledged records at random and checks what comes back. */
function reader(ctx) {
  return () => {
    const socket = dgram.createSocket('udp4');
    socket.on('message', (buffer) => {
      const { id, value } = JSON.parse(String(buffer));
      always(value === valueOf(id), `read of record ${id} returned ${JSON.stringify(value.slice(0, 40))}..., not what was written`);
      ctx.state.reads++;
    });
    socket.bind(PORT + 2, () => {
      setInterval(() => {
        if (ctx.state.acked > 0) socket.send(JSON.stringify({ read: 1 + Math.floor(Math.random() * ctx.state.acked) }), PORT, 'store');
      }, 7);
    });
  };
}

export function ledgerScenario({ bug = process.env.DST_LEDGER_BUG || undefined } = {}) {
  if (bug !== undefined && !BUGS.includes(bug)) throw new Error(`DST_LEDGER_BUG must be one of ${BUGS.join(', ')}, got ${JSON.stringify(bug)}`);
  return defineScenario({
    name: bug ? `ledger (buggy: ${bug})` : 'ledger',
    disk: 'simulated',
    hosts(sim, ctx) {
      Object.assign(ctx.state, { acked: 0, ackedInHeal: 0, boots: 0, reads: 0 });
      // A store that crashes on a failed fsync is restarted at once, as a supervisor would.
      sim.host('store', store(ctx, bug), { onCrash: 'restart' });
      sim.host('writer', writer(ctx));
      sim.host('reader', reader(ctx));
    },
    targets: ['store'],
    durationMs: 2_000,
    healMs: 500,
    faults: {
      crashPerSecond: 2,
      downMsMin: 10,
      downMsMax: 100,
      diskTornWrites: true,
      diskFsyncErrorRate: 0.02,
      diskReadErrorRate: 0.01,
      diskCorruptReadRate: 0.02,
      diskFullPerSecond: 1,
      diskLatencyMs: [0.05, 0.5],
      diskFsyncLatencyMs: [1, 5],
    },
    invariants: {
      safety: [
        function acknowledgedRecordsSurvive(ctx) {
          const me = ctx.state.store;
          if (me === undefined || !me.ready || ctx.sim.status('store').state !== 'running') return true;
          return me.records.length >= ctx.state.acked || `${ctx.state.acked} records acknowledged but the store holds ${me.records.length}`;
        },
        function recoveredRecordsAreThoseWritten(ctx) {
          const me = ctx.state.store;
          if (me === undefined || !me.ready) return true;
          const bad = me.records.findIndex((r, i) => r.value !== valueOf(i + 1));
          return bad === -1 || `recovered record ${bad + 1} is ${JSON.stringify(me.records[bad].value.slice(0, 40))}..., not what was written`;
        },
      ],
      liveness: [(ctx) => ctx.state.ackedInHeal > 0 || 'no record was acknowledged during the heal phase'],
    },
  });
}

export default ledgerScenario();
