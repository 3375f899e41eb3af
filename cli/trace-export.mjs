// `dst trace export --format chrome`: a DST_TRACE file as Trace Event JSON, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open. Each host is a process, each of its incarnations a
// thread ("boot 1", "boot 2", ...) whose events are slices; the incarnations themselves are
// slices of a thread of their own; every message is a flow arrow from the event that sent it to
// the event that delivered it; faults with a duration are slices of a "faults" process, instant
// faults and the failure instant events.
import { buildModel } from './trace-model.mjs';

/** Trace Event timestamps are in microseconds; virtual time is in nanoseconds. */
const us = (tNs) => tNs / 1000;

/** The Trace Event JSON object for a trace's records. */
export function toChromeTrace(records) {
  const model = buildModel(records);
  const out = [];
  const pidOf = (h) => h + 1;
  const INCARNATIONS_TID = 0;
  model.hosts.forEach((host, h) => {
    const pid = pidOf(h);
    out.push({ ph: 'M', name: 'process_name', pid, tid: 0, args: { name: host.name } });
    out.push({ ph: 'M', name: 'process_sort_index', pid, tid: 0, args: { sort_index: h } });
    out.push({ ph: 'M', name: 'thread_name', pid, tid: INCARNATIONS_TID, args: { name: 'incarnations' } });
    for (const inc of host.incarnations) {
      out.push({ ph: 'M', name: 'thread_name', pid, tid: inc.boot, args: { name: `boot ${inc.boot}` } });
      const endNs = inc.endNs ?? model.endNs;
      out.push({
        ph: 'X',
        cat: 'incarnation',
        name: `${host.name} boot ${inc.boot}${inc.end === undefined ? '' : ` (${inc.cause ?? inc.end})`}`,
        pid,
        tid: INCARNATIONS_TID,
        ts: us(inc.startNs),
        dur: us(endNs - inc.startNs),
        args: { boot: inc.boot, ...(inc.end === undefined ? {} : { end: inc.end, cause: inc.cause }) },
      });
    }
    for (const p of host.pauses) {
      out.push({ ph: 'X', cat: 'fault', name: 'paused', pid, tid: INCARNATIONS_TID, ts: us(p.startNs), dur: us(p.endNs - p.startNs), args: {} });
    }
  });
  // Events: zero-length slices on their host incarnation's thread. Flow arrows bind to them.
  const eventAt = new Map();
  for (const e of model.events) {
    if (e.host < 0) continue;
    eventAt.set(e.n, e);
    out.push({
      ph: 'X',
      cat: 'event',
      name: e.site === undefined ? e.kind : `${e.kind} ${e.site}`,
      pid: pidOf(e.host),
      tid: e.boot ?? 1,
      ts: us(e.tNs),
      dur: 0,
      args: { n: e.n, kind: e.kind, ...(e.seq === undefined ? {} : { seq: e.seq }), ...(e.site === undefined ? {} : { site: e.site }) },
    });
  }
  // Messages: a flow from the event that sent each to every event that delivered it.
  let flows = 0;
  for (const m of model.messages) {
    const from = eventAt.get(m.sendN);
    if (from === undefined) continue;
    for (const r of m.recvs) {
      const to = eventAt.get(r.n);
      if (to === undefined) continue;
      const id = ++flows;
      const name = m.http ?? `${m.proto} ${m.seg}`;
      const args = { msg: m.id, bytes: m.bytes, ...(m.conn === undefined ? {} : { conn: m.conn }), ...(m.data === undefined ? {} : { data: m.data }) };
      out.push({ ph: 's', cat: 'message', name, id, pid: pidOf(from.host), tid: from.boot ?? 1, ts: us(from.tNs), args });
      out.push({ ph: 'f', bp: 'e', cat: 'message', name, id, pid: pidOf(to.host), tid: to.boot ?? 1, ts: us(to.tNs), args });
    }
  }
  // Faults: a process of their own, one thread per kind.
  const faultsPid = model.hosts.length + 1;
  out.push({ ph: 'M', name: 'process_name', pid: faultsPid, tid: 0, args: { name: 'faults' } });
  out.push({ ph: 'M', name: 'process_sort_index', pid: faultsPid, tid: 0, args: { sort_index: -1 } });
  const kinds = [...new Set(model.bands.map((b) => b.kind))];
  kinds.forEach((kind, i) => out.push({ ph: 'M', name: 'thread_name', pid: faultsPid, tid: i + 1, args: { name: kind } }));
  for (const b of model.bands) {
    out.push({ ph: 'X', cat: 'fault', name: b.label, pid: faultsPid, tid: kinds.indexOf(b.kind) + 1, ts: us(b.startNs), dur: us(b.endNs - b.startNs), args: { a: b.a, b: b.b, oneway: b.oneway } });
  }
  for (const m of model.marks) {
    if (m.host < 0) continue;
    out.push({ ph: 'i', s: 't', cat: 'fault', name: m.label, pid: pidOf(m.host), tid: INCARNATIONS_TID, ts: us(m.tNs), args: { n: m.n, ...(m.by === undefined ? {} : { by: m.by }) } });
  }
  const f = model.failure;
  if (f !== undefined) {
    out.push({
      ph: 'i',
      s: 'g',
      cat: 'failure',
      name: `failure: ${f.failure}`,
      pid: f.host >= 0 ? pidOf(f.host) : faultsPid,
      tid: f.boot ?? 0,
      ts: us(f.tNs),
      args: { n: f.n, message: f.message, ...(f.site === undefined ? {} : { site: f.site }) },
    });
  }
  return {
    traceEvents: out,
    displayTimeUnit: 'ns',
    otherData: { source: 'dst-runtime', ...(model.run?.seed === undefined ? {} : { seed: model.run.seed }), format: model.run?.format ?? 'dst-trace/1' },
  };
}
