// Reads a DST_TRACE file (JSON lines) into what a picture of the run needs: one lane per host
// with its incarnations, pauses and stalls; the events; the messages, each linking its send to
// its deliveries; the faults as bands (a partition from its partition to its repair); the
// failure. Used by `dst view` (cli/view.mjs) and `dst trace export` (cli/trace-export.mjs).
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** Kinds of trace records that are events (they have a seq and feed the fingerprint). */
export const EVENT_KINDS = ['boot', 'timeout', 'interval', 'immediate', 'io', 'net', 'fault', 'call'];

/** Reads every record of a trace file; a line that is not JSON fails with its number. */
export async function readTrace(file) {
  const records = [];
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let lineNo = 0;
  try {
    for await (const line of lines) {
      lineNo++;
      if (line.trim() === '') continue;
      let record;
      try {
        record = JSON.parse(line);
      } catch (error) {
        throw new Error(`Failed to read trace ${file}: line ${lineNo} is not JSON (${error.message})`);
      }
      // Every line of a trace, events and annotations alike, says when (n, tNs) and what (kind).
      if (record === null || typeof record !== 'object' || typeof record.n !== 'number' || typeof record.tNs !== 'number' || typeof record.kind !== 'string') {
        throw new Error(`Failed to read trace ${file}: line ${lineNo} is no trace record (each has n, tNs and kind; write a trace with --trace or DST_TRACE)`);
      }
      records.push(record);
    }
  } catch (error) {
    if (error.code === 'ENOENT' || error.code === 'EACCES' || error.code === 'EISDIR') throw new Error(`Failed to read trace ${file}: ${error.message}`);
    throw error;
  }
  if (records.length === 0) throw new Error(`Failed to read trace ${file}: it is empty`);
  return records;
}

function sameLatency(a, b) {
  return a !== undefined && b !== undefined && a.minMs === b.minMs && a.maxMs === b.maxMs && (a.distribution ?? 'uniform') === (b.distribution ?? 'uniform');
}

/**
 * The model of a run: { run, endNs, hosts, events, messages, conns, bands, marks, failure }.
 * hosts[i] = { name, incarnations: [{ boot, startNs, endNs?, end?, cause? }], pauses, stalls }.
 * events[i] = { n, tNs, host (index), boot, kind, seq, site }.
 * messages[i] = { id, from, to (host indexes), proto, seg, conn, bytes, sendNs, sendN, site,
 *   retries, fate, by, data, http, recvs: [{ tNs, n, lost }], parts } — an HTTP message is one
 *   message whose `parts` counts the segments that carried it.
 * bands[i] = { kind: partition|hold|latency|pause, a, b, oneway, startNs, endNs, label }.
 * marks[i] = { kind (the action), host, tNs, n, label } for instant faults (reset, clock jump, ...).
 */
export function buildModel(records) {
  const hostIndex = new Map();
  const hosts = [];
  const hostOf = (name) => {
    if (name === undefined) return -1;
    let i = hostIndex.get(name);
    if (i === undefined) {
      i = hosts.length;
      hostIndex.set(name, i);
      hosts.push({ name, incarnations: [], pauses: [], stalls: [] });
    }
    return i;
  };
  const incarnation = (h, boot, tNs) => {
    const list = hosts[h].incarnations;
    let inc = list.find((x) => x.boot === boot);
    if (inc === undefined) {
      inc = { boot, startNs: tNs };
      list.push(inc);
    }
    return inc;
  };
  let run;
  const events = [];
  const messages = [];
  const byMsg = new Map();
  const conns = new Map();
  const bands = [];
  const marks = [];
  const open = new Map(); // open bands by key
  const pendingCause = new Map(); // host -> crash/kill/stop, for the next end of its incarnation
  let failure;
  let endNs = 0;
  const closeBand = (key, tNs) => {
    const band = open.get(key);
    if (band === undefined) return;
    band.endNs = tNs;
    open.delete(key);
  };
  const openBand = (key, band) => {
    closeBand(key, band.startNs);
    bands.push(band);
    open.set(key, band);
  };
  const linkKey = (kind, r) => `${kind}|${r.a}|${r.b}|${r.oneway ? 1 : 0}`;

  for (const r of records) {
    if (typeof r.tNs === 'number' && r.tNs > endNs) endNs = r.tNs;
    if (r.kind === 'run') {
      run = r;
      continue;
    }
    if (r.seq !== undefined || (EVENT_KINDS.includes(r.kind) && r.msg === undefined && r.action === undefined)) {
      const h = hostOf(r.host);
      if (h >= 0 && r.boot !== undefined) incarnation(h, r.boot, r.kind === 'boot' ? r.tNs : r.tNs);
      events.push({ n: r.n, tNs: r.tNs, host: h, boot: r.boot, kind: r.kind, seq: r.seq, site: r.site });
      continue;
    }
    switch (r.kind) {
      case 'crashed':
      case 'exited': {
        const h = hostOf(r.host);
        const inc = incarnation(h, r.boot, r.tNs);
        inc.endNs = r.tNs;
        inc.end = r.kind;
        inc.cause = pendingCause.get(h) ?? (r.kind === 'crashed' ? 'uncaught' : 'exit');
        pendingCause.delete(h);
        break;
      }
      case 'conn':
        // A unix domain socket's connection has a path instead of ports.
        conns.set(r.conn, { id: r.conn, from: hostOf(r.from), fromPort: r.fromPort, to: hostOf(r.to), toPort: r.toPort, path: r.path, tNs: r.tNs });
        break;
      case 'send': {
        const from = hostOf(r.host);
        const to = hostOf(r.to);
        let m = byMsg.get(r.msg);
        if (m === undefined) {
          m = {
            id: r.msg,
            from,
            to,
            proto: r.proto,
            seg: r.seg ?? (r.proto === 'udp' ? 'dgram' : 'data'),
            conn: r.conn,
            bytes: r.bytes,
            sendNs: r.tNs,
            sendN: r.n,
            site: r.site,
            retries: 0,
            fate: r.fate,
            by: r.by,
            data: r.data,
            http: r.http,
            recvs: [],
            parts: 1,
          };
          byMsg.set(r.msg, m);
          messages.push(m);
        } else {
          // A retransmission: the message's fate is its last attempt's.
          m.retries++;
          m.fate = r.fate;
          m.by = r.by;
        }
        break;
      }
      case 'recv': {
        const m = byMsg.get(r.msg);
        if (m !== undefined) m.recvs.push({ tNs: r.tNs, n: r.n, ...(r.lost === undefined ? {} : { lost: r.lost }) });
        break;
      }
      case 'stall': {
        const h = hostOf(r.host);
        hosts[h].stalls.push({ startNs: r.tNs, endNs: r.untilNs });
        break;
      }
      case 'failure':
        failure = { n: r.n, tNs: r.tNs, host: hostOf(r.host), boot: r.boot, failure: r.failure, message: r.message, invariant: r.invariant, site: r.site };
        break;
      case 'action': {
        const by = r.host;
        const at = { tNs: r.tNs, n: r.n, by };
        switch (r.action) {
          case 'crash':
          case 'kill':
          case 'stop':
            pendingCause.set(hostOf(r.target), r.action);
            marks.push({ kind: r.action, host: hostOf(r.target), ...at, label: `${r.action} ${r.target}` });
            break;
          case 'restart':
            marks.push({ kind: 'restart', host: hostOf(r.target), ...at, label: `restart ${r.target} (boot ${r.incarnation})` });
            break;
          case 'pause':
            openBand(`pause|${r.target}`, { kind: 'pause', a: r.target, startNs: r.tNs, n: r.n, label: `pause ${r.target}` });
            break;
          case 'resume':
            closeBand(`pause|${r.target}`, r.tNs);
            break;
          case 'partition':
          case 'hold':
            openBand(linkKey(r.action, r), { kind: r.action, a: r.a, b: r.b, oneway: r.oneway === true, startNs: r.tNs, n: r.n, label: `${r.action} ${r.a} ${r.oneway ? '→' : '↔'} ${r.b}` });
            break;
          case 'repair':
            closeBand(linkKey('partition', r), r.tNs);
            if (r.b === '*') for (const key of [...open.keys()]) if (key.startsWith(`partition|${r.a}|`)) closeBand(key, r.tNs);
            break;
          case 'release':
            closeBand(linkKey('hold', r), r.tNs);
            if (r.b === '*') for (const key of [...open.keys()]) if (key.startsWith(`hold|${r.a}|`)) closeBand(key, r.tNs);
            break;
          case 'setLink': {
            if (r.latency === undefined && r.lossRatio === undefined && r.duplicateRatio === undefined) break;
            const key = linkKey('latency', r);
            // Back to the network's default latency (and nothing else): the spike is over.
            if (r.lossRatio === undefined && r.duplicateRatio === undefined && sameLatency(r.latency, run?.latency)) {
              closeBand(key, r.tNs);
              break;
            }
            const parts = [];
            if (r.latency !== undefined) parts.push(r.latency.minMs === r.latency.maxMs ? `latency ${fmtMs(r.latency.minMs)}` : `latency ${fmtMs(r.latency.minMs)}-${fmtMs(r.latency.maxMs)}`);
            if (r.lossRatio !== undefined) parts.push(`loss ${r.lossRatio}`);
            if (r.duplicateRatio !== undefined) parts.push(`duplicates ${r.duplicateRatio}`);
            openBand(key, { kind: 'latency', a: r.a, b: r.b, oneway: r.oneway === true, startNs: r.tNs, n: r.n, label: `${parts.join(', ')} ${r.a} ${r.oneway ? '→' : '↔'} ${r.b}` });
            break;
          }
          case 'resetConnections':
            marks.push({ kind: 'reset', host: hostOf(r.a), ...at, label: `reset connections ${r.a}${r.b === undefined ? '' : ` ↔ ${r.b}`} (${r.count})` });
            break;
          case 'setClock':
            marks.push({ kind: 'clock', host: hostOf(r.target), ...at, label: `clock of ${r.target}:${r.skewMs === undefined ? '' : ` skew ${r.skewMs} ms`}${r.driftPpm === undefined ? '' : ` drift ${r.driftPpm} ppm`}` });
            break;
          default:
            marks.push({ kind: r.action, host: hostOf(r.target ?? r.a ?? by), ...at, label: r.action + (r.rule ? ` ${r.rule}` : '') });
        }
        break;
      }
      default:
        break; // a record of a later format: left out of the picture
    }
  }
  for (const h of hosts) for (const p of h.pauses) p.endNs ??= endNs;
  for (const band of bands) {
    if (band.kind === 'pause') hosts[hostOf(band.a)].pauses.push(band);
  }
  for (const band of open.values()) band.endNs = endNs;
  return {
    run,
    endNs,
    hosts,
    events,
    messages: groupHttp(messages),
    conns: [...conns.values()],
    bands: bands.filter((b) => b.kind !== 'pause'),
    marks,
    failure,
  };
}

/**
 * HTTP/1 messages as one message each: a data segment whose payload starts an HTTP message (its
 * `http` first line) opens one on its connection and direction; the data segments after it on
 * that direction belong to it until the next one starts. The message runs from its first
 * segment's send to its last segment's delivery.
 */
function groupHttp(messages) {
  const current = new Map(); // `${conn}|${from}` -> the HTTP message being carried
  const out = [];
  for (const m of messages) {
    if ((m.proto !== 'tcp' && m.proto !== 'unix') || m.conn === undefined) {
      out.push(m);
      continue;
    }
    const key = `${m.conn}|${m.from}`;
    if (m.seg === 'data' && m.http !== undefined) {
      const group = { ...m, seg: 'http', recvs: [...m.recvs], parts: 1 };
      current.set(key, group);
      out.push(group);
      continue;
    }
    const group = current.get(key);
    if (m.seg === 'data' && group !== undefined) {
      group.parts++;
      group.bytes += m.bytes;
      group.retries += m.retries;
      if (m.fate !== undefined) group.fate = m.fate;
      // Delivered when its last segment is.
      group.recvs = [...m.recvs];
      continue;
    }
    if (m.seg === 'fin' || m.seg === 'rst') current.delete(key);
    out.push(m);
  }
  return out;
}

function fmtMs(ms) {
  return `${Math.round(ms * 1000) / 1000} ms`;
}
