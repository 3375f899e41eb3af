// `dst view`: a DST_TRACE file as one self-contained HTML page (no network, no CDN: the data, the
// script and the styles are inline), a timeline of the run to look at instead of grepping it.
// One lane per host with its incarnations, pauses and stalls; virtual time across, zoom and pan;
// messages as arrows from send to delivery; faults as bands; the failure where it happened.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildModel, EVENT_KINDS, readTrace } from './trace-model.mjs';

/** The page's data: the model with events in columns (a long run has hundreds of thousands). */
function pageData(model, title) {
  const strings = [];
  const stringIndex = new Map();
  const str = (s) => {
    if (s === undefined || s === null) return -1;
    let i = stringIndex.get(s);
    if (i === undefined) {
      i = strings.length;
      stringIndex.set(s, i);
      strings.push(s);
    }
    return i;
  };
  const kinds = [...new Set([...EVENT_KINDS, ...model.events.map((e) => e.kind)])];
  const ev = { n: [], t: [], h: [], b: [], k: [], s: [], q: [] };
  for (const e of model.events) {
    ev.n.push(e.n);
    ev.t.push(e.tNs);
    ev.h.push(e.host);
    ev.b.push(e.boot ?? 0);
    ev.k.push(kinds.indexOf(e.kind));
    ev.s.push(str(e.site));
    ev.q.push(e.seq ?? -1);
  }
  const msgs = model.messages.map((m) => [
    m.id, m.from, m.to, m.sendNs, m.sendN, m.recvs.length === 0 ? -1 : m.recvs[0].tNs, m.recvs.length === 0 ? -1 : m.recvs[0].n,
    str(m.seg), m.conn ?? -1, m.bytes, str(m.fate), str(m.by), str(m.data), str(m.http), str(m.site), m.retries, m.parts,
    m.recvs.length, m.recvs.some((r) => r.lost) ? 1 : 0, str(m.proto),
  ]);
  return {
    title,
    run: model.run ?? null,
    endNs: model.endNs,
    hosts: model.hosts,
    kinds,
    strings,
    ev,
    msgs,
    conns: model.conns,
    bands: model.bands,
    marks: model.marks,
    failure: model.failure ?? null,
  };
}

/** The HTML page for a trace's model. */
export function renderView(model, { title = 'dst trace' } = {}) {
  const data = JSON.stringify(pageData(model, title)).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · dst view</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <div id="title"></div>
  <div id="summary"></div>
  <div id="toolbar">
    <button id="fit" title="Show the whole run">Fit</button>
    <button id="zoom-failure" title="Zoom to the failure">Failure</button>
    <button id="zoom-in" title="Zoom in (or the mouse wheel)">+</button>
    <button id="zoom-out" title="Zoom out">−</button>
    <label>connection <select id="conn-filter"><option value="all">all</option><option value="none">none (hide messages)</option></select></label>
    <span id="range"></span>
  </div>
  <details id="filters" open><summary>Filters</summary>
    <div><b>hosts</b> <span id="host-filter"></span></div>
    <div><b>events</b> <span id="kind-filter"></span></div>
    <div><b>messages</b> <span id="msg-filter"></span></div>
  </details>
</header>
<main>
  <div id="labels"></div>
  <div id="plot"><canvas id="canvas"></canvas><div id="overlay"></div></div>
</main>
<section id="details"><p class="hint">Click an event, a message, a fault or the failure to see it here. Drag to pan, wheel to zoom.</p></section>
<script type="application/json" id="dst-data">${data}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/** Writes the page for trace file `traceFile` to `out` (default: beside it, .html). Returns the output path. */
export async function writeView(traceFile, out) {
  const model = buildModel(await readTrace(traceFile));
  const target = out ?? traceFile.replace(/\.jsonl?$/, '') + '.html';
  const html = renderView(model, { title: path.basename(traceFile) });
  try {
    writeFileSync(target, html);
  } catch (error) {
    throw new Error(`Failed to write the view ${target}: ${error.message}`);
  }
  return { file: target, model };
}

const STYLE = `
:root { --lane: 34px; --label: 150px; font: 13px/1.35 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2330; }
body { margin: 0; background: #fafbfc; }
header { padding: 8px 12px; border-bottom: 1px solid #d8dde6; background: #fff; }
#title { font-weight: 600; font-size: 15px; }
#summary { color: #444; margin: 2px 0 6px; }
#summary .fail { color: #b3261e; font-weight: 600; cursor: pointer; }
#toolbar { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
#toolbar button { font: inherit; padding: 2px 10px; border: 1px solid #b8c0cc; background: #f3f5f8; border-radius: 4px; cursor: pointer; }
#toolbar button:hover { background: #e6ebf2; }
#range { color: #555; margin-left: 8px; font-variant-numeric: tabular-nums; }
#filters { margin-top: 6px; }
#filters summary { cursor: pointer; color: #555; }
#filters label { margin-right: 10px; white-space: nowrap; }
main { display: flex; position: relative; }
#labels { width: var(--label); flex: none; padding-top: 28px; background: #fff; border-right: 1px solid #d8dde6; }
.lane-label { height: var(--lane); display: flex; align-items: center; padding: 0 8px; box-sizing: border-box; border-bottom: 1px solid #eef0f4; font-weight: 600; overflow: hidden; white-space: nowrap; }
.lane-label .boots { font-weight: 400; color: #777; margin-left: 6px; font-size: 11px; }
#plot { position: relative; flex: 1; min-width: 0; cursor: grab; }
#plot.dragging { cursor: grabbing; }
#canvas { display: block; width: 100%; }
#overlay { position: absolute; inset: 0; pointer-events: none; }
.marker { position: absolute; pointer-events: auto; cursor: pointer; transform: translate(-50%, -50%); }
#failure-marker { width: 14px; height: 14px; background: #d32f2f; border: 2px solid #fff; box-shadow: 0 0 0 1px #d32f2f; transform: translate(-50%, -50%) rotate(45deg); }
#details { padding: 10px 14px; border-top: 1px solid #d8dde6; background: #fff; min-height: 90px; }
#details h3 { margin: 0 0 6px; font-size: 14px; }
#details table { border-collapse: collapse; }
#details td { padding: 1px 12px 1px 0; vertical-align: top; }
#details td:first-child { color: #666; }
#details code { font-size: 12px; background: #f1f3f6; padding: 0 3px; border-radius: 3px; }
.hint { color: #777; margin: 0; }
`;

// The page's script: plain DOM and a canvas, no framework. Everything it draws comes from the
// JSON in #dst-data; nothing is fetched.
const SCRIPT = String.raw`
(() => {
  'use strict';
  const D = JSON.parse(document.getElementById('dst-data').textContent);
  const S = D.strings;
  const LANE = 34, AXIS = 28;
  const hosts = D.hosts;
  const ev = D.ev;
  const nEvents = ev.n.length;
  const KIND_COLOR = { boot: '#2e7d32', timeout: '#546e7a', interval: '#78909c', immediate: '#8d6e63', io: '#6d4c41', net: '#1565c0', fault: '#c62828', call: '#6a1b9a' };
  const SEG_CLASS = (seg) => seg === 'data' ? 'data' : seg === 'http' ? 'http' : seg === 'dgram' ? 'udp' : 'control';
  const MSG_COLOR = { data: '#1e88e5', http: '#00897b', udp: '#43a047', control: '#9e9e9e' };
  const BAND_COLOR = { partition: 'rgba(211,47,47,0.13)', hold: 'rgba(245,124,0,0.15)', latency: 'rgba(123,31,162,0.12)' };
  const BAND_EDGE = { partition: '#d32f2f', hold: '#f57c00', latency: '#7b1fa2' };

  // ---- state -------------------------------------------------------------------------------
  const endNs = Math.max(D.endNs, 1);
  const state = {
    t0: 0, t1: endNs * 1.02,
    hostOn: hosts.map(() => true),
    kindOn: Object.fromEntries(D.kinds.map((k) => [k, true])),
    msgOn: { data: true, http: true, udp: true, control: true },
    conn: 'all',
    selected: null,
  };
  const msgs = D.msgs.map((m) => ({
    id: m[0], from: m[1], to: m[2], sendNs: m[3], sendN: m[4], recvNs: m[5], recvN: m[6], seg: S[m[7]], conn: m[8],
    bytes: m[9], fate: m[10] < 0 ? undefined : S[m[10]], by: m[11] < 0 ? undefined : S[m[11]], data: m[12] < 0 ? undefined : S[m[12]],
    http: m[13] < 0 ? undefined : S[m[13]], site: m[14] < 0 ? undefined : S[m[14]], retries: m[15], parts: m[16], copies: m[17], lost: m[18] === 1, proto: S[m[19]],
  }));
  for (const m of msgs) m.cls = SEG_CLASS(m.seg);
  const hostNamed = new Map(hosts.map((h, i) => [h.name, i]));

  // ---- layout ------------------------------------------------------------------------------
  const canvas = document.getElementById('canvas');
  const plot = document.getElementById('plot');
  const overlay = document.getElementById('overlay');
  const ctx = canvas.getContext('2d');
  let width = 800;
  const laneOrder = () => hosts.map((_, i) => i).filter((i) => state.hostOn[i]);
  let laneY = new Map();
  function layout() {
    laneY = new Map();
    laneOrder().forEach((h, row) => laneY.set(h, AXIS + row * LANE + LANE / 2));
    width = Math.max(200, plot.clientWidth);
    const height = AXIS + Math.max(1, laneY.size) * LANE + 8;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.height = height + 'px';
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const labels = document.getElementById('labels');
    labels.textContent = '';
    for (const h of laneOrder()) {
      const div = document.createElement('div');
      div.className = 'lane-label';
      div.dataset.host = hosts[h].name;
      div.textContent = hosts[h].name;
      const boots = hosts[h].incarnations.length;
      if (boots > 1) {
        const span = document.createElement('span');
        span.className = 'boots';
        span.textContent = boots + ' boots';
        div.appendChild(span);
      }
      labels.appendChild(div);
    }
  }
  const xOf = (tNs) => ((tNs - state.t0) / (state.t1 - state.t0)) * width;
  const tOf = (x) => state.t0 + (x / width) * (state.t1 - state.t0);

  // ---- formatting --------------------------------------------------------------------------
  function fmtTime(tNs) {
    return (tNs / 1e9).toFixed(9) + ' s';
  }
  function fmtShort(tNs, step) {
    if (step >= 1e9) return (tNs / 1e9).toFixed(step >= 1e10 ? 0 : 1) + ' s';
    if (step >= 1e6) return (tNs / 1e6).toFixed(step >= 1e7 ? 0 : 1) + ' ms';
    if (step >= 1e3) return (tNs / 1e3).toFixed(step >= 1e4 ? 0 : 1) + ' µs';
    return tNs.toFixed(0) + ' ns';
  }
  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  }
  const connLabel = (c) => c.path !== undefined
    ? hosts[c.from].name + ' → unix:' + c.path
    : hosts[c.from].name + ':' + c.fromPort + ' → ' + (hosts[c.to] ? hosts[c.to].name : '?') + ':' + c.toPort;
  const connsById = new Map(D.conns.map((c) => [c.id, c]));

  // ---- drawing -----------------------------------------------------------------------------
  let frame = 0;
  function redraw() {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      draw();
    });
  }
  function draw() {
    const height = canvas.height / (window.devicePixelRatio || 1);
    ctx.clearRect(0, 0, width, height);
    // lanes
    for (const [h, y] of laneY) {
      ctx.fillStyle = ((y - AXIS) / LANE) % 2 < 1 ? '#ffffff' : '#f6f8fb';
      ctx.fillRect(0, y - LANE / 2, width, LANE);
    }
    drawAxis(height);
    drawBands();
    for (const [h, y] of laneY) drawLane(h, y);
    drawEvents();
    drawMessages();
    drawMarks();
    drawFailure(height);
    drawSelection();
    placeOverlay();
    document.getElementById('range').textContent = fmtTime(Math.max(0, state.t0)) + ' – ' + fmtTime(state.t1);
  }
  function niceStep(span, px) {
    const raw = span / Math.max(1, px / 110);
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
  }
  function drawAxis(height) {
    const step = niceStep(state.t1 - state.t0, width);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (let t = Math.ceil(state.t0 / step) * step; t <= state.t1; t += step) {
      const x = xOf(t);
      ctx.strokeStyle = '#e3e7ee';
      ctx.beginPath();
      ctx.moveTo(x + 0.5, AXIS - 6);
      ctx.lineTo(x + 0.5, height);
      ctx.stroke();
      ctx.fillStyle = '#555';
      ctx.fillText(fmtShort(t, step), x + 3, AXIS / 2);
    }
    ctx.strokeStyle = '#c6ccd6';
    ctx.beginPath();
    ctx.moveTo(0, AXIS - 0.5);
    ctx.lineTo(width, AXIS - 0.5);
    ctx.stroke();
  }
  function span(a, b) {
    return [Math.max(-10, xOf(a)), Math.min(width + 10, xOf(b))];
  }
  function drawLane(h, y) {
    const host = hosts[h];
    const incs = host.incarnations;
    incs.forEach((inc, i) => {
      const end = inc.endNs === undefined ? endNs : inc.endNs;
      const [x0, x1] = span(inc.startNs, end);
      if (x1 >= -10 && x0 <= width + 10) {
        ctx.fillStyle = inc.boot % 2 === 1 ? '#a5d6a7' : '#80cbc4';
        ctx.fillRect(x0, y + 7, Math.max(1, x1 - x0), 5);
      }
      if (inc.endNs !== undefined) {
        const next = incs[i + 1];
        const [d0, d1] = span(inc.endNs, next ? next.startNs : endNs);
        ctx.fillStyle = 'rgba(120,120,120,0.18)';
        ctx.fillRect(d0, y - LANE / 2 + 1, Math.max(1, d1 - d0), LANE - 2);
        const x = xOf(inc.endNs);
        ctx.strokeStyle = inc.cause === 'crash' || inc.cause === 'uncaught' ? '#c62828' : inc.cause === 'kill' ? '#ef6c00' : '#616161';
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.moveTo(x - 4, y + 5);
        ctx.lineTo(x + 4, y + 13);
        ctx.moveTo(x + 4, y + 5);
        ctx.lineTo(x - 4, y + 13);
        ctx.stroke();
        ctx.lineWidth = 1;
      }
    });
    for (const p of host.pauses) {
      const [x0, x1] = span(p.startNs, p.endNs);
      ctx.fillStyle = 'rgba(251,192,45,0.35)';
      ctx.fillRect(x0, y - LANE / 2 + 1, Math.max(2, x1 - x0), LANE - 2);
    }
    for (const s of host.stalls) {
      const [x0, x1] = span(s.startNs, s.endNs);
      ctx.fillStyle = 'rgba(255,112,67,0.45)';
      ctx.fillRect(x0, y - LANE / 2 + 1, Math.max(2, x1 - x0), 4);
    }
  }
  function bandRows(b) {
    const ya = laneY.get(hostNamed.get(b.a));
    const yb = b.b === '*' ? undefined : laneY.get(hostNamed.get(b.b));
    if (ya === undefined && yb === undefined) return null;
    const top = Math.min(ya ?? yb, yb ?? ya) - LANE / 2 + 1;
    const bottom = Math.max(ya ?? yb, yb ?? ya) + LANE / 2 - 1;
    return [top, bottom];
  }
  function drawBands() {
    ctx.font = '11px system-ui, sans-serif';
    for (const b of D.bands) {
      const rows = bandRows(b);
      if (!rows) continue;
      const [x0, x1] = span(b.startNs, b.endNs);
      if (x1 < 0 || x0 > width) continue;
      ctx.fillStyle = BAND_COLOR[b.kind] || 'rgba(0,0,0,0.08)';
      ctx.fillRect(x0, rows[0], Math.max(2, x1 - x0), rows[1] - rows[0]);
      ctx.strokeStyle = BAND_EDGE[b.kind] || '#555';
      ctx.strokeRect(x0 + 0.5, rows[0] + 0.5, Math.max(2, x1 - x0), rows[1] - rows[0]);
      ctx.fillStyle = BAND_EDGE[b.kind] || '#555';
      ctx.textBaseline = 'top';
      if (x1 - x0 > 40) ctx.fillText(b.label, Math.max(x0, 0) + 3, rows[0] + 2);
    }
  }
  function eventVisible(i) {
    return state.hostOn[ev.h[i]] && state.kindOn[D.kinds[ev.k[i]]];
  }
  // First event at or after tNs (events are in time order).
  function firstEventAt(tNs) {
    let lo = 0, hi = nEvents;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ev.t[mid] < tNs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  function drawEvents() {
    const from = firstEventAt(state.t0);
    const to = firstEventAt(state.t1 + 1);
    for (let i = from; i < to; i++) {
      if (!eventVisible(i)) continue;
      const y = laneY.get(ev.h[i]);
      if (y === undefined) continue;
      const x = Math.round(xOf(ev.t[i])) + 0.5;
      ctx.strokeStyle = KIND_COLOR[D.kinds[ev.k[i]]] || '#333';
      ctx.beginPath();
      ctx.moveTo(x, y - 10);
      ctx.lineTo(x, y + 3);
      ctx.stroke();
    }
  }
  function msgVisible(m) {
    if (!state.msgOn[m.cls]) return false;
    if (state.conn === 'none') return false;
    if (state.conn !== 'all' && String(m.conn) !== state.conn) return false;
    return laneY.has(m.from) && laneY.has(m.to);
  }
  function msgEndNs(m) {
    if (m.recvNs >= 0) return m.recvNs;
    return m.sendNs + Math.max((state.t1 - state.t0) * 0.01, 1);
  }
  function arrowHead(x0, y0, x1, y1) {
    const a = Math.atan2(y1 - y0, x1 - x0);
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - 7 * Math.cos(a - 0.4), y1 - 7 * Math.sin(a - 0.4));
    ctx.lineTo(x1 - 7 * Math.cos(a + 0.4), y1 - 7 * Math.sin(a + 0.4));
    ctx.closePath();
    ctx.fill();
  }
  function msgGeometry(m) {
    const y0 = laneY.get(m.from), yTo = laneY.get(m.to);
    const x0 = xOf(m.sendNs);
    if (m.recvNs >= 0) return { x0, y0, x1: xOf(m.recvNs), y1: yTo, delivered: true };
    // Never delivered: a stub a third of the way towards its destination.
    const x1 = xOf(m.sendNs) + Math.max(12, Math.min(60, width * 0.02));
    return { x0, y0, x1, y1: y0 + (yTo - y0) / 3, delivered: false };
  }
  function drawMessages() {
    let drawn = 0;
    for (const m of msgs) {
      if (m.sendNs > state.t1 || msgEndNs(m) < state.t0) continue;
      if (!msgVisible(m)) continue;
      if (++drawn > 60000) break;
      const g = msgGeometry(m);
      // Neither delivered nor dropped: still on its way when the run ended.
      const inFlight = !g.delivered && m.fate === undefined;
      const bad = !inFlight && (!g.delivered || m.lost || m.fate === 'dropped' || m.fate === 'reset');
      const color = inFlight ? '#9e9e9e' : bad ? '#d32f2f' : m.fate === 'held' ? '#f57c00' : MSG_COLOR[m.cls];
      ctx.strokeStyle = color;
      ctx.fillStyle = color;
      ctx.lineWidth = m.cls === 'http' ? 2 : 1;
      ctx.setLineDash(bad || inFlight || m.fate === 'held' ? [4, 3] : []);
      ctx.beginPath();
      ctx.moveTo(g.x0, g.y0);
      ctx.lineTo(g.x1, g.y1);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.lineWidth = 1;
      if (g.delivered && !m.lost) arrowHead(g.x0, g.y0, g.x1, g.y1);
      else if (!inFlight) {
        ctx.beginPath();
        ctx.moveTo(g.x1 - 4, g.y1 - 4);
        ctx.lineTo(g.x1 + 4, g.y1 + 4);
        ctx.moveTo(g.x1 + 4, g.y1 - 4);
        ctx.lineTo(g.x1 - 4, g.y1 + 4);
        ctx.stroke();
      }
    }
  }
  function drawMarks() {
    for (const m of D.marks) {
      const y = laneY.get(m.host);
      if (y === undefined) continue;
      const x = xOf(m.tNs);
      if (x < -10 || x > width + 10) continue;
      ctx.fillStyle = m.kind === 'crash' ? '#c62828' : m.kind === 'kill' ? '#ef6c00' : m.kind === 'restart' ? '#2e7d32' : '#6a1b9a';
      ctx.beginPath();
      ctx.moveTo(x, y - LANE / 2 + 2);
      ctx.lineTo(x - 5, y - LANE / 2 + 10);
      ctx.lineTo(x + 5, y - LANE / 2 + 10);
      ctx.closePath();
      ctx.fill();
    }
  }
  function drawFailure(height) {
    const f = D.failure;
    if (!f) return;
    const x = Math.round(xOf(f.tNs)) + 0.5;
    ctx.strokeStyle = '#d32f2f';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(x, AXIS);
    ctx.lineTo(x, height);
    ctx.stroke();
    ctx.lineWidth = 1;
  }
  function drawSelection() {
    const s = state.selected;
    if (!s) return;
    ctx.strokeStyle = '#000';
    ctx.lineWidth = 2;
    if (s.type === 'event') {
      const y = laneY.get(ev.h[s.i]);
      if (y !== undefined) ctx.strokeRect(xOf(ev.t[s.i]) - 4, y - 13, 8, 19);
    } else if (s.type === 'msg' && msgVisible(s.m)) {
      const g = msgGeometry(s.m);
      ctx.beginPath();
      ctx.arc(g.x0, g.y0, 4, 0, 7);
      ctx.moveTo(g.x1 + 4, g.y1);
      ctx.arc(g.x1, g.y1, 4, 0, 7);
      ctx.stroke();
    }
    ctx.lineWidth = 1;
  }
  // DOM markers over the canvas: the failure (clickable, and findable by tests and screen readers).
  const failureMarker = document.createElement('div');
  failureMarker.id = 'failure-marker';
  failureMarker.className = 'marker';
  failureMarker.title = 'the failure';
  failureMarker.setAttribute('role', 'button');
  failureMarker.addEventListener('click', (e) => {
    e.stopPropagation();
    showFailure();
  });
  function placeOverlay() {
    const f = D.failure;
    if (!f) return;
    const y = laneY.get(f.host);
    const x = xOf(f.tNs);
    if (y === undefined || x < 0 || x > width) {
      failureMarker.remove();
      return;
    }
    failureMarker.style.left = x + 'px';
    failureMarker.style.top = y + 'px';
    if (!failureMarker.isConnected) overlay.appendChild(failureMarker);
  }

  // ---- details -----------------------------------------------------------------------------
  const details = document.getElementById('details');
  function table(rows) {
    return '<table>' + rows.filter((r) => r[1] !== undefined && r[1] !== null && r[1] !== '').map((r) => '<tr><td>' + esc(r[0]) + '</td><td>' + r[1] + '</td></tr>').join('') + '</table>';
  }
  const code = (t) => '<code>' + esc(t) + '</code>';
  const hostName = (h) => (h >= 0 && hosts[h] ? hosts[h].name : '(simulation)');
  function showEvent(i) {
    state.selected = { type: 'event', i };
    const n = ev.n[i];
    const received = msgs.filter((m) => m.recvN === n && m.to === ev.h[i]);
    const sent = msgs.filter((m) => m.sendN === n && m.from === ev.h[i]);
    const list = (ms) => ms.slice(0, 8).map((m) => esc(describeMsgShort(m))).join('<br>') + (ms.length > 8 ? '<br>… ' + (ms.length - 8) + ' more' : '');
    details.innerHTML = '<h3 data-kind="event">Event ' + n + '</h3>' + table([
      ['host', esc(hostName(ev.h[i])) + ' (boot ' + ev.b[i] + ')'],
      ['kind', esc(D.kinds[ev.k[i]])],
      ['virtual time', esc(fmtTime(ev.t[i]))],
      ['event number', String(n)],
      ['seq', ev.q[i] >= 0 ? String(ev.q[i]) : undefined],
      ['creation site', ev.s[i] >= 0 ? code(S[ev.s[i]]) : '<span class="hint">none of the program\'s (scheduled inside dst-runtime or Node)</span>'],
      ['delivered', received.length ? list(received) : undefined],
      ['sent', sent.length ? list(sent) : undefined],
    ]);
    redraw();
  }
  function describeMsgShort(m) {
    return (m.http ? m.http : m.seg) + ' ' + hostName(m.from) + ' → ' + hostName(m.to) + ' (msg ' + m.id + (m.data && !m.http ? ': ' + m.data : '') + ')';
  }
  function showMsg(m) {
    state.selected = { type: 'msg', m };
    const c = connsById.get(m.conn);
    const fate = m.fate === 'dropped' ? 'dropped by ' + (m.by || 'a rule') : m.fate === 'held' ? 'held by ' + (m.by || 'a hold') + ', delivered on release' : m.fate === 'reset' ? 'turned into a reset by a rule' : m.lost ? 'arrived at a machine that was off' : m.recvNs < 0 ? 'still on its way when the run ended' : 'delivered';
    details.innerHTML = '<h3 data-kind="message">' + esc(m.http ? 'HTTP ' + m.http : 'Message ' + m.id + ' (' + m.proto + ' ' + m.seg + ')') + '</h3>' + table([
      ['from → to', esc(hostName(m.from) + ' → ' + hostName(m.to))],
      ['sent', esc(fmtTime(m.sendNs)) + ' (event ' + m.sendN + ')'],
      ['delivered', m.recvNs >= 0 ? esc(fmtTime(m.recvNs)) + ' (event ' + m.recvN + ')' + (m.copies > 1 ? ', ' + m.copies + ' copies' : '') : undefined],
      ['fate', esc(fate)],
      ['retransmissions', m.retries ? String(m.retries) : undefined],
      ['segments', m.parts > 1 ? String(m.parts) : undefined],
      ['bytes', String(m.bytes)],
      ['connection', c ? esc(connLabel(c)) + ' (#' + c.id + ')' : undefined],
      ['payload', m.data ? code(m.data) : undefined],
      ['send site', m.site ? code(m.site) : undefined],
    ]);
    redraw();
  }
  function showBand(b) {
    state.selected = null;
    details.innerHTML = '<h3 data-kind="fault">' + esc(b.label) + '</h3>' + table([
      ['fault', esc(b.kind)],
      ['from', esc(fmtTime(b.startNs)) + ' (event ' + b.n + ')'],
      ['until', esc(fmtTime(b.endNs))],
      ['lasted', esc(((b.endNs - b.startNs) / 1e6).toFixed(3) + ' ms')],
    ]);
    redraw();
  }
  function showMark(m) {
    state.selected = null;
    details.innerHTML = '<h3 data-kind="fault">' + esc(m.label) + '</h3>' + table([
      ['host', esc(hostName(m.host))],
      ['virtual time', esc(fmtTime(m.tNs))],
      ['event number', String(m.n)],
      ['by', m.by ? esc(m.by) : esc('the test (outside every host)')],
    ]);
    redraw();
  }
  function showFailure() {
    const f = D.failure;
    if (!f) return;
    state.selected = null;
    details.innerHTML = '<h3 data-kind="failure" class="failure">Failure: ' + esc(f.failure) + '</h3>' + table([
      ['invariant', f.invariant ? esc(f.invariant) : undefined],
      ['message', esc(f.message)],
      ['host', esc(hostName(f.host)) + (f.boot ? ' (boot ' + f.boot + ')' : '')],
      ['virtual time', esc(fmtTime(f.tNs))],
      ['event number', String(f.n)],
      ['site', f.site ? '<code id="failure-site">' + esc(f.site) + '</code>' : '<span class="hint">no frame of the program</span>'],
    ]);
    redraw();
  }

  // ---- hit testing -------------------------------------------------------------------------
  function distToSegment(px, py, x0, y0, x1, y1) {
    const dx = x1 - x0, dy = y1 - y0;
    const len = dx * dx + dy * dy;
    let t = len === 0 ? 0 : ((px - x0) * dx + (py - y0) * dy) / len;
    t = Math.max(0, Math.min(1, t));
    return Math.hypot(px - (x0 + t * dx), py - (y0 + t * dy));
  }
  function pick(px, py) {
    for (const m of D.marks) {
      const y = laneY.get(m.host);
      if (y !== undefined && Math.abs(xOf(m.tNs) - px) <= 6 && py >= y - LANE / 2 && py <= y - LANE / 2 + 12) return () => showMark(m);
    }
    // Events on the lane under the pointer.
    let best = null, bestD = 5;
    for (const [h, y] of laneY) {
      if (py < y - 13 || py > y + 5) continue;
      const from = firstEventAt(tOf(px - 5));
      const to = firstEventAt(tOf(px + 5) + 1);
      for (let i = from; i < to; i++) {
        if (ev.h[i] !== h || !eventVisible(i)) continue;
        const d = Math.abs(xOf(ev.t[i]) - px);
        if (d < bestD) {
          bestD = d;
          best = i;
        }
      }
    }
    if (best !== null) return () => showEvent(best);
    let bm = null, bmD = 4;
    for (const m of msgs) {
      if (m.sendNs > state.t1 || msgEndNs(m) < state.t0 || !msgVisible(m)) continue;
      const g = msgGeometry(m);
      const d = distToSegment(px, py, g.x0, g.y0, g.x1, g.y1);
      if (d < bmD) {
        bmD = d;
        bm = m;
      }
    }
    if (bm) return () => showMsg(bm);
    const t = tOf(px);
    for (const b of D.bands) {
      const rows = bandRows(b);
      if (rows && t >= b.startNs && t <= b.endNs && py >= rows[0] && py <= rows[1]) return () => showBand(b);
    }
    return null;
  }

  // ---- interaction -------------------------------------------------------------------------
  function zoomAt(x, factor) {
    const t = tOf(x);
    const spanNs = Math.max(50, (state.t1 - state.t0) * factor);
    state.t0 = t - (x / width) * spanNs;
    state.t1 = state.t0 + spanNs;
    redraw();
  }
  function zoomTo(a, b) {
    state.t0 = a;
    state.t1 = Math.max(a + 50, b);
    redraw();
  }
  plot.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect();
    zoomAt(e.clientX - r.left, Math.pow(1.0015, e.deltaY));
  }, { passive: false });
  let drag = null;
  plot.addEventListener('mousedown', (e) => {
    drag = { x: e.clientX, t0: state.t0, t1: state.t1, moved: false };
    plot.classList.add('dragging');
  });
  window.addEventListener('mousemove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x;
    if (Math.abs(dx) > 3) drag.moved = true;
    const dt = (dx / width) * (drag.t1 - drag.t0);
    state.t0 = drag.t0 - dt;
    state.t1 = drag.t1 - dt;
    redraw();
  });
  window.addEventListener('mouseup', (e) => {
    plot.classList.remove('dragging');
    const d = drag;
    drag = null;
    if (!d || d.moved) return;
    const r = canvas.getBoundingClientRect();
    const hit = pick(e.clientX - r.left, e.clientY - r.top);
    if (hit) hit();
  });
  plot.addEventListener('dblclick', (e) => {
    const r = canvas.getBoundingClientRect();
    zoomAt(e.clientX - r.left, 0.5);
  });
  document.getElementById('fit').onclick = () => zoomTo(0, endNs * 1.02);
  document.getElementById('zoom-in').onclick = () => zoomAt(width / 2, 0.5);
  document.getElementById('zoom-out').onclick = () => zoomAt(width / 2, 2);
  const failureWindow = () => {
    const f = D.failure;
    if (!f) return;
    const w = Math.max(f.tNs * 0.1, 5e6);
    zoomTo(f.tNs - w, f.tNs + w * 0.25);
  };
  document.getElementById('zoom-failure').onclick = failureWindow;
  window.addEventListener('resize', () => {
    layout();
    redraw();
  });

  // ---- header and filters ------------------------------------------------------------------
  document.getElementById('title').textContent = D.title + (D.run && D.run.seed ? '  ·  seed ' + D.run.seed : '');
  const summary = document.getElementById('summary');
  const nMsgs = msgs.length;
  summary.innerHTML = esc(hosts.length + ' hosts · ' + nEvents + ' events · ' + nMsgs + ' messages · ' + D.bands.length + ' fault bands · ' + fmtTime(D.endNs)) +
    (D.failure ? ' · <span class="fail" id="failure-summary">FAILED ' + esc(D.failure.failure) + ' at ' + esc(fmtTime(D.failure.tNs)) + ', event ' + D.failure.n + ' on ' + esc(hostName(D.failure.host)) + '</span>' : ' · no failure');
  const fs = document.getElementById('failure-summary');
  if (fs) fs.onclick = () => {
    failureWindow();
    showFailure();
  };
  function checkbox(parent, label, checked, onChange, attrs) {
    const l = document.createElement('label');
    const c = document.createElement('input');
    c.type = 'checkbox';
    c.checked = checked;
    for (const [k, v] of Object.entries(attrs || {})) c.dataset[k] = v;
    c.addEventListener('change', () => onChange(c.checked));
    l.append(c, ' ' + label);
    parent.appendChild(l);
  }
  const hf = document.getElementById('host-filter');
  hosts.forEach((h, i) => checkbox(hf, h.name, true, (on) => {
    state.hostOn[i] = on;
    layout();
    redraw();
  }, { host: h.name }));
  const kf = document.getElementById('kind-filter');
  const present = new Set(ev.k);
  D.kinds.forEach((k, i) => {
    if (present.has(i)) checkbox(kf, k, true, (on) => {
      state.kindOn[k] = on;
      redraw();
    }, { kind: k });
  });
  const mf = document.getElementById('msg-filter');
  for (const [cls, label] of [['data', 'TCP data'], ['http', 'HTTP'], ['udp', 'UDP'], ['control', 'TCP control (syn, ack, fin, rst, ...)']]) {
    checkbox(mf, label, true, (on) => {
      state.msgOn[cls] = on;
      redraw();
    }, { msg: cls });
  }
  const cf = document.getElementById('conn-filter');
  for (const c of D.conns) {
    const o = document.createElement('option');
    o.value = String(c.id);
    o.textContent = '#' + c.id + ' ' + connLabel(c);
    cf.appendChild(o);
  }
  cf.addEventListener('change', () => {
    state.conn = cf.value;
    redraw();
  });

  // For tests and the console: where an event is drawn, and selecting by event number.
  window.dstView = {
    hosts: hosts.map((h) => h.name),
    events: nEvents,
    messages: nMsgs,
    failure: D.failure,
    zoomTo,
    eventPoint(n) {
      const i = ev.n.indexOf(n);
      const y = laneY.get(ev.h[i]);
      if (i < 0 || y === undefined) return null;
      const r = canvas.getBoundingClientRect();
      return { x: r.left + xOf(ev.t[i]), y: r.top + y - 4 };
    },
  };
  layout();
  draw();
})();
`;
