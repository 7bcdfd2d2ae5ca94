// SPDX-License-Identifier: MIT
// trawl view: the browser side. Draws the lanes the server's index gives
// (GET /api/window at the canvas width: one column per pixel, run-length
// encoded) on one canvas; zoom, pan, hover, details, search, lane filters,
// the visible window's analyses. The view lives in the URL's #hash. When the
// server follows a growing file (--follow), the page polls /api/info for a
// new index and takes it in without a reload.
'use strict';

const LABEL_W = 180, AXIS_H = 26, LANE_H = 18, COUNTER_H = 30, HEADER_H = 16;
const KIND_ORDER = ['cpu', 'hardirq', 'softirq', 'workqueue', 'counter',
  'marker', 'lost', 'async', 'task', 'slice'];
const KIND_DEFAULT = { cpu: 1, hardirq: 1, softirq: 1, workqueue: 1,
  counter: 1, marker: 1, lost: 1, async: 1, task: 0, slice: 1 };
// The canvas's own colours, light or dark as the system asks (the page's
// are app.css's, with the same media query); a change redraws.
const THEMES = {
  light: { axis: '#f0f0f0', text: '#333', grid: '#bbb', labels: '#fff', rule: '#e4e4e4', ink: '#111', pinned: '#06c',
    header: '#e3e8ee', lane: ['#f7f9fb', '#ffffff'] },
  dark: { axis: '#2a2f36', text: '#ccd', grid: '#555', labels: '#1b1f24', rule: '#30353c', ink: '#eee', pinned: '#6af',
    header: '#2c333b', lane: ['#181c21', '#1d2127'] },
};
const darkQuery = window.matchMedia('(prefers-color-scheme: dark)');
let theme = darkQuery.matches ? THEMES.dark : THEMES.light;
darkQuery.addEventListener('change', () => { theme = darkQuery.matches ? THEMES.dark : THEMES.light; view.theme = darkQuery.matches ? 'dark' : 'light'; draw(); });

const STATE_COLOURS = ['#ffffff', '#2e9a44', '#8fd19e', '#d8d8d8',
  '#e8a33d', '#555555'];
const STATE_NAMES = ['unknown', 'running', 'runnable', 'sleeping',
  'uninterruptible', 'dead'];
const MAX_TASK_LANES = 200;

const token = new URLSearchParams(location.search).get('token') || '';
const canvas = document.getElementById('canvas');
const ctx = canvas.getContext('2d');
const tip = document.getElementById('tip');

const view = {
  info: null, lanes: [], byId: new Map(), kinds: { ...KIND_DEFAULT },
  pinned: new Set(), highlight: -1, from: 0, to: 1,
  data: null, dataFrom: 0, dataTo: 1, pending: null, seq: 0,
  longs: [], frames: [], draws: 0, selection: null, layout: [],
};
window.trawlView = view;
view.theme = darkQuery.matches ? 'dark' : 'light';

async function api(path, q) {
  const p = new URLSearchParams(q || {});
  if (token) p.set('token', token);
  const r = await fetch(path + '?' + p.toString());
  const j = await r.json();
  if (!r.ok) throw new Error(j.error || r.statusText);
  return j;
}

function status(s) { document.getElementById('status').textContent = s; }

// ---- time formatting ---------------------------------------------------

function fmtDur(ns) {
  const a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e10 ? 2 : 3) + ' s';
  if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e7 ? 2 : 3) + ' ms';
  if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e4 ? 2 : 3) + ' µs';
  return Math.round(ns) + ' ns';
}

// A tick's offset with the digits its step needs, so that ticks a
// microsecond apart four seconds in read +4.072001 s, +4.072002 s, ...
function fmtTick(ns, step) {
  const a = Math.abs(ns);
  const [unit, name] = a >= 1e9 ? [1e9, ' s'] : a >= 1e6 ? [1e6, ' ms'] : a >= 1e3 ? [1e3, ' µs'] : [1, ' ns'];
  const digits = Math.min(9, Math.max(0, Math.ceil(Math.log10(unit / step) - 1e-9)));
  return (ns / unit).toFixed(digits) + name;
}

function fmtTime(t) { return fmtAbs(t) + ' (+' + fmtDur(t - view.info.first) + ')'; }
function fmtAbs(t) { return (t / 1e9).toFixed(9) + ' s'; }

function niceStep(span, px) {
  const want = span / Math.max(2, px / 110);
  let s = Math.pow(10, Math.floor(Math.log10(Math.max(want, 1))));
  for (const m of [1, 2, 5, 10]) if (s * m >= want) return s * m;
  return s * 10;
}

// ---- colours -------------------------------------------------------------

function hash(x) {
  let h = (x * 2654435761) >>> 0;
  h ^= h >>> 15; h = Math.imul(h, 2246822519) >>> 0; h ^= h >>> 13;
  return h >>> 0;
}
function taskColour(pid, alpha) {
  return 'hsla(' + (hash(pid) % 360) + ',60%,55%,' + (alpha ?? 1) + ')';
}
function labelColour(id, kind) {
  const h = hash(id + 7919) % 360;
  return kind === 'hardirq' ? 'hsl(' + (h % 60) + ',70%,45%)'
    : 'hsl(' + h + ',55%,60%)';
}

// ---- lanes ---------------------------------------------------------------

function laneHeight(l) { return l.kind === 'counter' ? COUNTER_H : LANE_H; }

// A lane's name that lasts from one index to the next (ids do not): what
// pins a lane that is not a task's.
function laneKey(l) { return [l.kind, l.cpu, l.pid, l.depth, l.buffer].join(':'); }
view.pinnedLanes = new Set();

function visibleLanes() {
  const out = [];
  let tasks = 0;
  for (const l of view.lanes) {
    if (!l.changes) continue;
    // (the key is a string made: only when some lane is pinned)
    if (view.pinnedLanes.size && view.pinnedLanes.has(laneKey(l))) { out.push(l); continue; }
    const pinned = l.pid >= 0 && view.pinned.has(l.pid);
    if (l.kind === 'task') {
      // a task not yet born or already dead in the window has nothing
      // to show there (pinned ones stay)
      const alive = l.first === undefined || (l.first < view.to && !(l.dead_at !== undefined && l.dead_at < view.from));
      if (pinned || (view.kinds.task && alive && tasks++ < MAX_TASK_LANES)) out.push(l);
      continue;
    }
    if (view.kinds[l.kind] || (pinned && l.kind === 'slice')) out.push(l);
  }
  // pinned tasks first among tasks, then by how much happens in them
  return out;
}

// Thread states and slices are one group, by process then thread: a
// process's threads together (the main thread first), each thread's state
// lane above its slices. Processes come busiest first (the changes of the
// lanes shown), pinned ones before; a task whose process the trace does
// not say is a process of its own.
const isThread = l => l.kind === 'task' || l.kind === 'slice';
const processOf = l => l.tgid >= 0 ? l.tgid : l.pid;

function sortLanes(lanes) {
  const weight = new Map(), threadWeight = new Map(), pinnedProc = new Set();
  for (const l of lanes) {
    if (!isThread(l)) continue;
    const p = processOf(l);
    weight.set(p, (weight.get(p) || 0) + l.changes);
    threadWeight.set(l.pid, (threadWeight.get(l.pid) || 0) + l.changes);
    if (view.pinned.has(l.pid)) pinnedProc.add(p);
  }
  const rank = k => k === 'slice' ? KIND_ORDER.indexOf('task') : KIND_ORDER.indexOf(k);
  lanes.sort((a, b) => {
    // lanes pinned to the top first, whatever their kind
    const qa = view.pinnedLanes.has(laneKey(a)), qb = view.pinnedLanes.has(laneKey(b));
    if (qa !== qb) return qa ? -1 : 1;
    const ka = rank(a.kind), kb = rank(b.kind);
    if (ka !== kb) return ka - kb;
    if (isThread(a) && !qa) {
      const pa = processOf(a), pb = processOf(b);
      if (pa !== pb) {
        const ia = pinnedProc.has(pa), ib = pinnedProc.has(pb);
        if (ia !== ib) return ia ? -1 : 1;
        return (weight.get(pb) - weight.get(pa)) || (pa - pb);
      }
      if (a.pid !== b.pid) {
        if ((a.pid === pa) !== (b.pid === pb)) return a.pid === pa ? -1 : 1;
        return (threadWeight.get(b.pid) - threadWeight.get(a.pid)) || (a.pid - b.pid);
      }
      if (a.kind !== b.kind) return a.kind === 'task' ? -1 : 1;
      return (a.depth - b.depth) || (a.id - b.id);
    }
    return (a.cpu - b.cpu) || (a.pid - b.pid) || (a.depth - b.depth) || (a.id - b.id);
  });
  return lanes;
}

// The name of process p: its main thread's, when the trace has it.
function processName(p) {
  const l = view.lanes.find(x => x.kind === 'task' && x.pid === p);
  return l ? l.name : '';
}

function layout() {
  const lanes = sortLanes(visibleLanes());
  view.layoutIds = new Set(lanes.map(l => l.id));
  let y = AXIS_H, proc = null;
  view.headers = [];
  view.layout = lanes.map(l => {
    // a header row above each process's threads (not above lanes pinned
    // to the top, which stand alone)
    const p = isThread(l) && !view.pinnedLanes.has(laneKey(l)) ? processOf(l) : null;
    if (p !== null && p !== proc) {
      const n = processName(p);
      view.headers.push({ y, h: HEADER_H, tgid: p, label: (n ? n + ' ' : 'process ') + p });
      y += HEADER_H;
    }
    proc = p;
    const e = { lane: l, y, h: laneHeight(l), indent: p !== null };
    y += e.h;
    return e;
  });
  const w = canvas.parentElement.clientWidth;
  const dpr = window.devicePixelRatio || 1;
  canvas.style.height = y + 'px';
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(y * dpr);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  view.plotW = Math.max(10, w - LABEL_W);
  view.height = y;
}

// ---- fetching --------------------------------------------------------

function clampWindow() {
  const min = view.info.first, max = view.info.last + 1;
  let span = Math.max(100, view.to - view.from);
  span = Math.min(span, (max - min) * 1.05 + 100);
  if (view.from < min - span * 0.02) view.from = min - span * 0.02;
  view.to = view.from + span;
  if (view.to > max + span * 0.02) { view.to = max + span * 0.02; view.from = view.to - span; }
  view.from = Math.floor(view.from); view.to = Math.ceil(view.to);
}

// Whether the lanes to show are those laid out: their order follows from
// the set (pins and kinds, which change it otherwise, lay out again
// themselves), so a pan sorts nothing while the set stays.
function sameLanes(lanes) {
  if (!view.layoutIds || lanes.length !== view.layoutIds.size) return false;
  for (const l of lanes) if (!view.layoutIds.has(l.id)) return false;
  return true;
}

let fetchTimer = 0;
function refresh(now) {
  clampWindow();
  // the tasks alive in the window change as it moves
  if (view.lanes && !sameLanes(visibleLanes())) layout();
  saveHash();
  draw();
  clearTimeout(fetchTimer);
  fetchTimer = setTimeout(fetchWindow, now ? 0 : 40);
  scheduleAnalysis();
  scheduleEvents();
}

async function fetchWindow() {
  const seq = ++view.seq, gen = view.info.generation;
  const width = Math.min(view.info.max_width, Math.floor(view.plotW));
  const ids = view.layout.map(e => e.lane.id);
  const from = Math.floor(view.from), to = Math.max(from + 1, Math.ceil(view.to));
  const per = Math.max(1, Math.min(512, Math.floor((1 << 20) / width)));
  const t0 = performance.now();
  try {
    const parts = [];
    for (let i = 0; i < ids.length; i += per)
      parts.push(api('/api/window', { lanes: ids.slice(i, i + per).join(','), from, to, width }));
    const got = await Promise.all(parts);
    if (seq !== view.seq) return;
    const data = { width, lanes: new Map(), tasks: {}, labels: {} };
    for (const g of got) {
      for (const l of g.lanes) data.lanes.set(l.id, l);
      Object.assign(data.tasks, g.tasks);
      Object.assign(data.labels, g.labels);
    }
    view.data = data; view.dataFrom = from; view.dataTo = to; view.dataGeneration = gen;
    view.lastFetchMs = performance.now() - t0;
    draw();
    view.draws++;
    document.body.dataset.draws = String(view.draws);
    status('window ' + fmtDur(to - from) + ' · ' + ids.length + ' lanes · ' +
      view.lastFetchMs.toFixed(0) + ' ms');
  } catch (e) {
    status('error: ' + e.message);
  }
}

// ---- drawing ---------------------------------------------------------

function xOf(t) { return LABEL_W + (t - view.from) / (view.to - view.from) * view.plotW; }
view.xOf = xOf;
function tOf(x) { return view.from + (x - LABEL_W) / view.plotW * (view.to - view.from); }

// The axis stays in sight: drawn at the top of the visible part of the
// canvas (below the sticky bar) when the page is scrolled down the lanes.
function axisTop() {
  const bar = document.getElementById('bar').getBoundingClientRect().bottom;
  const top = canvas.getBoundingClientRect().top;
  return Math.max(0, Math.min(view.height - AXIS_H, Math.round(bar - top)));
}

function drawAxis() {
  const span = view.to - view.from;
  const y0 = view.axisY = axisTop();
  ctx.save();
  ctx.translate(0, y0);
  ctx.fillStyle = theme.axis;
  ctx.fillRect(0, 0, LABEL_W + view.plotW, AXIS_H);
  ctx.fillStyle = theme.text; ctx.strokeStyle = theme.grid;
  ctx.font = '11px sans-serif';
  const step = niceStep(span, view.plotW);
  const base = view.info.first;
  const k0 = Math.ceil((view.from - base) / step);
  view.ticks = [];
  for (let k = k0; base + k * step < view.to; k++) {
    const t = base + k * step; // not summed: no drift at a fine step
    const x = xOf(t);
    ctx.beginPath(); ctx.moveTo(x, AXIS_H - 6); ctx.lineTo(x, view.height - y0); ctx.stroke();
    const label = '+' + fmtTick(t - base, step);
    ctx.fillText(label, x + 2, AXIS_H - 9);
    view.ticks.push(label);
  }
  ctx.fillText(fmtDur(span) + ' shown', 6, AXIS_H - 9);
  ctx.restore();
}
window.addEventListener('scroll', () => { if (view.info && view.axisY !== axisTop()) draw(); }, { passive: true });

function laneLabel(l) {
  if (l.kind === 'task') return l.pid + ' ' + l.name;
  if (l.kind === 'slice') return l.pid + ' ' + l.name + ' [' + l.depth + ']';
  return l.name;
}

function drawLane(e, i, d, scale, shift) {
  const l = e.lane, y = e.y, h = e.h;
  ctx.fillStyle = theme.lane[i % 2];
  ctx.fillRect(LABEL_W, y, view.plotW, h);
  if (d) {
    let x = 0;
    const k = l.kind, all = view.data;
    let lo = Infinity, hi = -Infinity;
    if (k === 'counter') for (const c of d.cols) if (c[3]) { lo = Math.min(lo, c[1]); hi = Math.max(hi, c[2]); }
    const range = hi > lo ? hi - lo : 1;
    for (const c of d.cols) {
      const n = c[0];
      const px = LABEL_W + shift + x * scale, pw = n * scale;
      x += n;
      if (px + pw < LABEL_W || px > LABEL_W + view.plotW) continue;
      if (k === 'counter') {
        if (!c[3]) continue;
        const y1 = y + h - 2 - (c[2] - lo) / range * (h - 4);
        const y0 = y + h - 2 - (c[1] - lo) / range * (h - 4);
        ctx.fillStyle = '#3366cc';
        ctx.fillRect(px, y1, Math.max(pw, 1), Math.max(1.5, y0 - y1));
        continue;
      }
      const dom = c[1], busy = c[2] / 65535, count = c[3];
      if (k === 'marker' || k === 'lost') {
        if (!count) continue;
        ctx.fillStyle = k === 'lost' ? '#d00000' : '#7744aa';
        ctx.fillRect(px, y + 2, Math.max(pw, 1), h - 4);
        continue;
      }
      if (k === 'task') {
        if (!dom) continue;
        ctx.fillStyle = STATE_COLOURS[dom] || '#999';
        ctx.fillRect(px, y + 2, pw, h - 4);
        continue;
      }
      if (!dom || busy <= 0) continue;
      const bh = Math.max(2, (h - 4) * busy);
      if (k === 'cpu') {
        const t = all.tasks[dom];
        const pid = t ? t.pid : 0;
        const dim = view.highlight >= 0 && pid !== view.highlight;
        ctx.fillStyle = taskColour(pid, dim ? 0.18 : 1);
        ctx.fillRect(px, y + h - 2 - bh, pw, bh);
        if (pw > 40 && t) label(t.comm + ' ' + t.pid, px, y, pw, h);
      } else {
        ctx.fillStyle = labelColour(dom, k);
        ctx.fillRect(px, y + h - 2 - bh, pw, bh);
        if (pw > 40 && all.labels[dom]) label(all.labels[dom], px, y, pw, h);
      }
    }
  }
  ctx.fillStyle = theme.labels;
  ctx.fillRect(0, y, LABEL_W, h);
  ctx.fillStyle = (l.kind === 'task' && view.pinned.has(l.pid)) || view.pinnedLanes.has(laneKey(l)) ? theme.pinned : theme.text;
  ctx.font = '11px sans-serif';
  // a process's threads are indented under its header
  ctx.fillText(laneLabel(l).slice(0, e.indent ? 28 : 30), e.indent ? 12 : 4, y + h - 5);
  ctx.strokeStyle = theme.rule;
  ctx.beginPath(); ctx.moveTo(0, y + h - 0.5); ctx.lineTo(LABEL_W + view.plotW, y + h - 0.5); ctx.stroke();
}

function drawHeaders() {
  ctx.font = 'bold 11px sans-serif';
  for (const hd of view.headers || []) {
    ctx.fillStyle = theme.header;
    ctx.fillRect(0, hd.y, LABEL_W + view.plotW, hd.h);
    ctx.fillStyle = theme.text;
    ctx.fillText(hd.label.slice(0, 60), 4, hd.y + hd.h - 4);
  }
}

function label(s, x, y, w, h) {
  ctx.save();
  ctx.beginPath(); ctx.rect(Math.max(x, LABEL_W), y, w, h); ctx.clip();
  ctx.fillStyle = theme.ink; ctx.font = '10px sans-serif';
  ctx.fillText(s, Math.max(x, LABEL_W) + 2, y + h - 6);
  ctx.restore();
}

// The item clicked, outlined on its lane, and the wakeup that made a run
// runnable drawn as an arrow from where the waker ran (its CPU lane at the
// wakeup, else the item's own lane) to the run's start.
function drawSelected() {
  const sel = view.selected;
  view.arrow = null;
  if (!sel) return;
  const e = view.layout.find(x => x.lane.id === sel.lane);
  if (!e) return;
  const x0 = Math.max(LABEL_W, xOf(sel.start)), x1 = Math.min(LABEL_W + view.plotW, xOf(sel.end));
  ctx.save();
  ctx.strokeStyle = '#f80'; ctx.lineWidth = 2;
  if (x1 >= LABEL_W && x0 <= LABEL_W + view.plotW) ctx.strokeRect(x0, e.y + 1, Math.max(2, x1 - x0), e.h - 2);
  if (sel.wakeup) {
    const d = view.data;
    let from = e;
    const xw = xOf(sel.wakeup.time);
    if (d && sel.wakeup.pid > 0) {
      for (const c of view.layout) {
        if (c.lane.kind !== 'cpu') continue;
        const col = colAt(c, xw), t = col && d.tasks[col[1]];
        if (t && t.pid === sel.wakeup.pid) { from = c; break; }
      }
    }
    const ya = from.y + from.h / 2, yb = e.y + e.h / 2, xb = xOf(sel.start);
    ctx.strokeStyle = '#d40'; ctx.fillStyle = '#d40'; ctx.lineWidth = 1.5;
    ctx.beginPath(); ctx.moveTo(xw, ya); ctx.lineTo(xb, yb); ctx.stroke();
    const ang = Math.atan2(yb - ya, xb - xw);
    ctx.beginPath(); ctx.moveTo(xb, yb);
    ctx.lineTo(xb - 8 * Math.cos(ang - 0.4), yb - 8 * Math.sin(ang - 0.4));
    ctx.lineTo(xb - 8 * Math.cos(ang + 0.4), yb - 8 * Math.sin(ang + 0.4));
    ctx.fill();
    view.arrow = { from: from.lane.id, x0: xw, y0: ya, x1: xb, y1: yb };
  }
  ctx.restore();
}

function drawLongs() {
  // the handlers over the threshold stand out: a red bar over their lane
  for (const q of view.longs) {
    const e = view.layout.find(e => e.lane.cpu === q.cpu && e.lane.kind === q.kind);
    const x0 = xOf(q.start), x1 = xOf(q.end);
    if (x1 < LABEL_W || x0 > LABEL_W + view.plotW) continue;
    const y = e ? e.y : AXIS_H - 6;
    ctx.fillStyle = 'rgba(220,0,0,0.85)';
    ctx.fillRect(Math.max(LABEL_W, x0), y, Math.max(3, x1 - x0), 4);
    ctx.beginPath();
    ctx.moveTo(x0, y); ctx.lineTo(x0 + 5, y - 5 < 0 ? 0 : y - 5); ctx.lineTo(x0 - 5, y - 5 < 0 ? 0 : y - 5);
    ctx.fill();
  }
}

function draw() {
  if (!view.info) return;
  const t0 = performance.now();
  ctx.clearRect(0, 0, LABEL_W + view.plotW, view.height);
  const d = view.data;
  // data of an older window is drawn scaled and shifted until the new
  // one comes, so panning and zooming move at once
  let scale = 1, shift = 0;
  if (d) {
    const w = d.width;
    const pxNs = (view.dataTo - view.dataFrom) / w;
    scale = (view.dataTo - view.dataFrom) / (view.to - view.from) * view.plotW / w;
    shift = (view.dataFrom - view.from) / (view.to - view.from) * view.plotW;
    void pxNs;
  }
  view.layout.forEach((e, i) => drawLane(e, i, d && d.lanes.get(e.lane.id), scale, shift));
  drawHeaders();
  drawAxis();
  drawLongs();
  drawMeasure();
  drawSelected();
  if (view.selection) {
    const [a, b] = view.selection;
    ctx.fillStyle = 'rgba(60,120,220,0.2)';
    ctx.fillRect(Math.min(a, b), AXIS_H, Math.abs(b - a), view.height - AXIS_H);
  }
  document.getElementById('range').textContent = fmtDur(view.from - view.info.first) + ' … ' + fmtDur(view.to - view.info.first);
  const dt = performance.now() - t0;
  view.frames.push(dt);
  if (view.frames.length > 600) view.frames.shift();
}

// ---- interaction -----------------------------------------------------

function zoom(factor, atX) {
  const t = tOf(atX ?? LABEL_W + view.plotW / 2);
  view.from = t - (t - view.from) * factor;
  view.to = t + (view.to - t) * factor;
  refresh();
}

function pan(fraction) {
  const d = (view.to - view.from) * fraction;
  view.from += d; view.to += d;
  refresh();
}

function setWindow(from, to) { view.from = from; view.to = to; refresh(true); }
view.setWindow = setWindow;
view.pan = pan;

function laneAt(y) { return view.layout.find(e => y >= e.y && y < e.y + e.h); }

function colAt(e, x) {
  const d = view.data && view.data.lanes.get(e.lane.id);
  if (!d || view.dataFrom !== view.from || view.dataTo !== view.to) return null;
  let cx = 0;
  const px = x - LABEL_W;
  for (const c of d.cols) { if (px < cx + c[0]) return c; cx += c[0]; }
  return null;
}

function describe(e, c) {
  const l = e.lane, k = l.kind;
  if (!c) return laneLabel(l);
  const d = view.data;
  if (k === 'counter') return laneLabel(l) + '\n' + (c[3] ? (c[1] === c[2] ? c[1] : c[1] + ' … ' + c[2]) : 'no value');
  const dom = c[1], busy = (c[2] / 655.35).toFixed(0) + ' %';
  if (k === 'cpu') {
    const t = d.tasks[dom];
    return laneLabel(l) + '\n' + (t ? t.comm + ' (pid ' + t.pid + ')  busy ' + busy : 'idle');
  }
  if (k === 'task') return laneLabel(l) + '\n' + (STATE_NAMES[dom] || '?') + '  running ' + busy;
  if (k === 'marker' || k === 'lost') return laneLabel(l) + '\n' + (c[3] ? c[3] + ' here' + (d.labels[dom] ? ': ' + d.labels[dom] : '') : '');
  return laneLabel(l) + '\n' + (d.labels[dom] || '') + (dom ? '  busy ' + busy + '  ' + c[3] + ' starts' : '');
}

let drag = null;
canvas.addEventListener('mousedown', ev => {
  const r = canvas.getBoundingClientRect();
  drag = { x: ev.clientX - r.left, from: view.from, to: view.to, select: ev.shiftKey,
    area: ev.ctrlKey || ev.altKey, moved: false };
});
window.addEventListener('mousemove', ev => {
  const r = canvas.getBoundingClientRect();
  const x = ev.clientX - r.left, y = ev.clientY - r.top;
  view.pointerX = x;
  if (drag) {
    if (Math.abs(x - drag.x) > 3) drag.moved = true;
    if (drag.select || drag.area) { view.selection = [drag.x, x]; draw(); return; }
    if (drag.moved) {
      const dt = (x - drag.x) / view.plotW * (drag.to - drag.from);
      view.from = drag.from - dt; view.to = drag.to - dt;
      refresh();
    }
    return;
  }
  const e = x > LABEL_W && x < LABEL_W + view.plotW ? laneAt(y) : null;
  if (!e || ev.target !== canvas) { tip.hidden = true; return; }
  tip.textContent = describe(e, colAt(e, x)) + '\n' + fmtDur(tOf(x) - view.info.first);
  tip.style.left = (ev.clientX + 14) + 'px';
  tip.style.top = (ev.clientY + 12) + 'px';
  tip.hidden = false;
});
window.addEventListener('mouseup', ev => {
  if (!drag) return;
  const r = canvas.getBoundingClientRect();
  const x = ev.clientX - r.left, y = ev.clientY - r.top;
  const d = drag; drag = null;
  if (d.area && view.selection) {
    // an area kept: its length, and its aggregates in the panel
    view.selection = null;
    const a = Math.min(d.x, x), b = Math.max(d.x, x);
    if (b - a > 3) setArea(tOf(Math.max(a, LABEL_W)), tOf(Math.min(b, LABEL_W + view.plotW)));
    else draw();
    return;
  }
  if (!d.moved && y < (view.axisY || 0) + AXIS_H && x > LABEL_W) {
    addMarker(tOf(x)); // a click on the time axis drops a marker
    return;
  }
  if (d.select && view.selection) {
    view.selection = null;
    const a = Math.min(d.x, x), b = Math.max(d.x, x);
    if (b - a > 3) setWindow(tOf(a), tOf(b)); else draw();
    return;
  }
  if (!d.moved && x > LABEL_W) {
    const e = laneAt(y);
    if (e) showDetail(e.lane, tOf(x), (view.to - view.from) / view.plotW * 3);
    eventsAt(tOf(x));
  } else if (!d.moved) {
    // a task lane's label pins it to the top, or takes its pin away
    const e = laneAt(y);
    if (e && e.lane.kind === 'task') togglePin(e.lane.pid);
    else if (e) toggleLanePin(e.lane);
  }
});
canvas.addEventListener('wheel', ev => {
  ev.preventDefault();
  const r = canvas.getBoundingClientRect();
  if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
    pan((ev.deltaX || ev.deltaY) / 1000);
    return;
  }
  // over the lane labels the point is left of the plot: zoom about its
  // left edge, not about a time before the window
  zoom(Math.pow(1.0015, ev.deltaY), Math.max(LABEL_W, ev.clientX - r.left));
}, { passive: false });
window.addEventListener('keydown', ev => {
  if (ev.target.tagName === 'INPUT') return;
  const k = ev.key;
  if (k === 'w' || k === '+' || k === '=') zoom(0.7);
  else if (k === 's' || k === '-') zoom(1 / 0.7);
  else if (k === 'a' || k === 'ArrowLeft') pan(-0.2);
  else if (k === 'd' || k === 'ArrowRight') pan(0.2);
  else if (k === '0') setWindow(view.info.first, view.info.last + 1);
  else if (k === 'm') addMarker(tOf(view.pointerX !== undefined && view.pointerX > LABEL_W ? view.pointerX : LABEL_W + view.plotW / 2));
  else if (k === 'Escape') {
    if (!overlay.hidden) { overlay.hidden = true; return; }
    view.markers = []; view.area = null; view.selected = null; showMeasure(); draw();
  }
  else if (k === 'i') showInfo();
  else if (k === '?') showHelp();
  else return;
  ev.preventDefault();
});
document.getElementById('zoom-in').onclick = () => zoom(0.5);
document.getElementById('zoom-out').onclick = () => zoom(2);
document.getElementById('reset').onclick = () => setWindow(view.info.first, view.info.last + 1);
window.addEventListener('resize', () => { layout(); refresh(true); });

// ---- details ---------------------------------------------------------

function esc(s) {
  return String(s).replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
}

function row(k, v) { return '<tr><th>' + esc(k) + '</th><td>' + v + '</td></tr>'; }

// Each CPU's busy share over span, by its lane's own name (an instance's
// CPUs are its name and the CPU).
function cpuRows(cpus, span) {
  let h = '';
  for (const c of cpus) {
    const l = view.lanes.find(x => x.kind === 'cpu' && x.cpu === c.cpu && x.buffer === c.buffer);
    h += row((l ? l.name : 'CPU ' + c.cpu) + ' busy', (100 * c.busy / span).toFixed(1) + ' %');
  }
  return h;
}

function taskLink(t) {
  return '<a class="jump" data-pid="' + t.pid + '">' + esc(t.comm) + ' (' + t.pid + ')</a>';
}

async function showDetail(lane, t, tol) {
  const body = document.getElementById('detail-body');
  body.textContent = 'loading…';
  let j;
  try {
    j = await api('/api/detail', { lane: lane.id, t: Math.round(t), tol: Math.round(tol), fields: 1 });
  } catch (e) { body.textContent = e.message; return; }
  let h = '<table>' + row('lane', esc(j.lane_name) + ' (' + esc(j.kind) + ')');
  if (!j.found) {
    view.selected = null;
    draw();
    h += row('', 'nothing here');
    // between two items: the one before and the next, to jump to
    if (j.before) h += row('before', '<a class="jump" data-from="' + j.before.start + '" data-to="' + j.before.end + '">' + esc(j.before.label) + '</a>, ended ' + esc(fmtDur(t - j.before.end)) + ' before');
    if (j.after) h += row('next', '<a class="jump" data-t="' + j.after.start + '">' + esc(j.after.label) + '</a>, ' + esc(fmtDur(j.after.start - t)) + ' later');
    body.innerHTML = h + '</table>';
    document.body.dataset.detail = 'empty';
    return;
  }
  view.selected = { lane: lane.id, start: j.start, end: j.end,
    wakeup: j.wakeup && { time: j.wakeup.time, pid: j.wakeup.waker ? j.wakeup.waker.pid : 0 } };
  draw();
  h += row('start', esc(fmtTime(j.start))) + row('end', esc(fmtAbs(j.end))) + row('duration', esc(fmtDur(j.duration)));
  if (j.task) h += row('task', taskLink(j.task));
  if (j.idle) h += row('task', 'idle');
  if (j.state) h += row('state', esc(j.state));
  if (j.on_cpu !== undefined) h += row('CPU', j.on_cpu);
  if (j.label !== undefined) h += row('name', esc(j.label));
  if (j.kind === 'counter') h += row('value', j.value);
  if (j.lost !== undefined) h += row('lost events', j.lost);
  if (j.wakeup) {
    h += row('woken at', '<a class="jump" data-t="' + j.wakeup.time + '">' + esc(fmtAbs(j.wakeup.time)) + '</a>');
    h += row('wakeup latency', esc(fmtDur(j.wakeup.latency)));
    const wk = j.wakeup.waker;
    if (wk && wk.pid > 0) h += row('waker', taskLink(wk) + ' <a class="jump" data-pid="' + wk.pid + '" data-t="' + j.wakeup.time + '">jump to waker</a>');
    else if (wk) h += row('waker', esc(wk.comm));
    if (j.wakeup.preempted) h += row('waker', 'preempted (no wakeup)');
  }
  if (j.waker) h += row('waker', j.waker.pid > 0 ? taskLink(j.waker) : esc(j.waker.comm));
  if (j.latency !== undefined) h += row('latency', esc(fmtDur(j.latency)));
  if (j.end_state) h += row('left as', esc(j.end_state));
  h += '</table>';
  if (j.events && j.events.length) {
    h += '<h3>events at ' + esc(fmtAbs(j.start)) + '</h3>';
    for (const ev of j.events) {
      // as trawl report shows it: the text, then the fields with their
      // labels (integers past 2^53 come as strings, exact)
      const lab = ev.labels || {};
      const f = Object.entries(ev.fields).map(([k, v]) => k + '=' + v + (lab[k] !== undefined ? ' (' + lab[k] + ')' : '')).join('\n');
      h += '<div><b>' + esc(ev.event) + '</b> cpu ' + ev.cpu + ' ' + esc(ev.comm) + ' (' + ev.pid + ')<div class="text">' + esc(ev.text || '') + '</div><pre class="fields">' + esc(f) + '</pre></div>';
    }
  }
  if (j.events_error) h += '<p class="hint">' + esc(j.events_error) + '</p>';
  body.innerHTML = h;
  document.body.dataset.detail = String(j.start);
}

document.getElementById('side').addEventListener('click', ev => {
  const a = ev.target.closest('a.jump');
  if (!a) return;
  if (a.dataset.pid) pinTask(+a.dataset.pid);
  if (a.dataset.t) {
    const t = +a.dataset.t, span = view.to - view.from;
    setWindow(t - span / 2, t + span / 2);
  }
  if (a.dataset.from) {
    const f = +a.dataset.from, to = +a.dataset.to, pad = Math.max(1000, (to - f));
    setWindow(f - pad, to + pad);
  }
});

function pinTask(pid) {
  view.pinned.add(pid);
  view.highlight = pid;
  layout();
  refresh(true);
}
view.pinTask = pinTask;

function togglePin(pid) {
  if (!view.pinned.has(pid)) { pinTask(pid); return; }
  view.pinned.delete(pid);
  if (view.highlight === pid) view.highlight = -1;
  layout();
  refresh(true);
}
view.togglePin = togglePin;

// Any other lane: its label pins it to the top, or takes it down.
function toggleLanePin(l) {
  const k = laneKey(l);
  if (view.pinnedLanes.has(k)) view.pinnedLanes.delete(k); else view.pinnedLanes.add(k);
  layout();
  refresh(true);
}
view.toggleLanePin = toggleLanePin;

// ---- search ------------------------------------------------------------

const search = document.getElementById('search'), results = document.getElementById('results');
let searchTimer = 0;
search.addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(async () => {
    const q = search.value.trim();
    if (!q) { results.hidden = true; return; }
    try {
      const j = await api('/api/search', { q, limit: 50 });
      // tasks by name or pid, then slices by name (the first of each on
      // its thread: a click shows it and pins the thread)
      results.innerHTML = (j.tasks.map(t => '<div data-pid="' + t.pid + '">' + esc(t.comm) + ' <small>pid ' + t.pid + '</small></div>').join('') +
        j.slices.map(x => '<div class="slice" data-pid="' + x.pid + '" data-from="' + x.start + '" data-to="' + x.end + '">' + esc(x.name) + ' <small>slice · pid ' + x.pid + ' · ' + esc(fmtDur(x.end - x.start)) + '</small></div>').join('')) ||
        '<div>no task or slice matches</div>';
      results.hidden = false;
    } catch (e) { status(e.message); }
  }, 150);
});
results.addEventListener('click', ev => {
  const d = ev.target.closest('div[data-pid]');
  if (!d) return;
  results.hidden = true;
  search.blur();
  if (d.dataset.from) {
    const f = +d.dataset.from, to = +d.dataset.to, pad = Math.max(1000, (to - f) / 2);
    view.from = f - pad; view.to = to + pad;
  }
  if (+d.dataset.pid >= 0) pinTask(+d.dataset.pid); else refresh(true);
});

// ---- lane filters --------------------------------------------------------

function buildKinds() {
  const present = new Set(view.lanes.filter(l => l.changes).map(l => l.kind));
  const box = document.getElementById('kinds');
  box.innerHTML = '';
  for (const k of KIND_ORDER) {
    if (!present.has(k)) continue;
    const lab = document.createElement('label');
    const cb = document.createElement('input');
    cb.type = 'checkbox'; cb.checked = !!view.kinds[k]; cb.dataset.kind = k;
    cb.onchange = () => { view.kinds[k] = cb.checked ? 1 : 0; cb.blur(); layout(); refresh(true); };
    lab.append(cb, ' ' + k);
    box.append(lab);
  }
}

// ---- analyses of the visible window ------------------------------------

let analysisTimer = 0;
function scheduleAnalysis() {
  clearTimeout(analysisTimer);
  analysisTimer = setTimeout(runAnalysis, 300);
  // what is shown is of the window before: say so until it is replaced
  const body = document.getElementById('analysis-body');
  if (view.analysisFor && !body.classList.contains('stale')) {
    body.classList.add('stale');
    const p = document.createElement('p');
    p.className = 'hint'; p.id = 'analysis-stale';
    p.textContent = 'of the window before: updating…';
    body.prepend(p);
  }
}

async function runAnalysis() {
  const from = Math.floor(view.from), to = Math.max(from + 1, Math.ceil(view.to));
  let j;
  try { j = await api('/api/analysis', { from, to, top: 15 }); } catch (e) { status(e.message); return; }
  if (from !== Math.floor(view.from) || to !== Math.max(from + 1, Math.ceil(view.to))) return;
  const span = to - from;
  let h = '<table><tr><th>task</th><th>CPU time</th></tr>';
  for (const t of j.top_tasks)
    h += '<tr><td>' + taskLink(t) + '</td><td class="n">' + esc(fmtDur(t.run)) + ' · ' + (100 * t.run / span).toFixed(1) + ' %</td></tr>';
  h += '</table><table>';
  h += cpuRows(j.cpus, span);
  const w = j.wakeup_latency;
  h += row('wakeups', w.count);
  // the longest a link: to its wakeup and run
  if (w.count) h += row('latency p50 / p90 / p99', esc(fmtDur(w.p50) + ' / ' + fmtDur(w.p90) + ' / ' + fmtDur(w.p99))) +
    row('latency max', '<a class="jump" id="latency-max" data-from="' + (w.max_at - w.max) + '" data-to="' + w.max_at + '">' + esc(fmtDur(w.max)) + '</a>');
  h += '</table>';
  // a CPU runs what it switched in until its next switch: the switches
  // that name another prev_pid (a lost event) are counted, as trawl sched does
  const inf = view.info;
  // in the whole trace: events the kernel lost, slices never ended
  h += '<p class="' + (inf.lost_events ? 'warn' : 'hint') + '" id="lost-events">' + inf.lost_events + ' event(s) lost in the trace</p>';
  if (inf.unended_slices) h += '<p class="warn" id="unended-slices">' + inf.unended_slices + ' slice(s) begun and not ended by the end of the trace</p>';
  if (inf.switch_anomalies) {
    const t0 = inf.switch_anomaly_first;
    h += '<p class="warn" id="switch-anomalies">' + inf.switch_anomalies +
      ' sched_switch(es) in the trace name another prev_pid than the task their CPU switched in; that task stops running there (first at <a class="jump" data-from="' +
      (t0 - 1e6) + '" data-to="' + (t0 + 1e6) + '">' + esc(fmtTime(t0)) + '</a>)</p>';
  }
  const body = document.getElementById('analysis-body');
  body.innerHTML = h;
  body.classList.remove('stale');
  const q = j.irq_over_threshold;
  view.longs = q.list;
  let s = '<p class="' + (q.count ? 'warn' : 'hint') + '">' + q.count + ' handler run(s) over ' + esc(fmtDur(q.threshold)) + ' in view (' + view.info.irq_over_threshold + ' in the trace)</p><table>';
  for (const x of q.list)
    s += '<tr><td><a class="jump" data-from="' + x.start + '" data-to="' + x.end + '">' + esc(x.kind + ' ' + x.name) + '</a> CPU ' + x.cpu + '</td><td class="n warn">' + esc(fmtDur(x.duration)) + '</td></tr>';
  document.getElementById('isr-body').innerHTML = s + '</table>';
  view.analyses = (view.analyses || 0) + 1;
  view.analysisFor = [from, to];
  document.body.dataset.analysis = String(view.analyses);
  draw();
}

// ---- measuring: two markers, or an area ---------------------------------

view.markers = []; view.area = null;

// A marker at t (m, or a click on the time axis); a third replaces the
// older of two.
function addMarker(t) {
  t = Math.round(t);
  if (view.markers.length >= 2) view.markers.shift();
  view.markers.push(t);
  showMeasure();
  saveHash();
  draw();
}
view.addMarker = addMarker;

function setArea(a, b) {
  view.area = [Math.round(a), Math.round(b)];
  showMeasure();
  saveHash();
  draw();
  areaAnalysis();
}
view.setArea = setArea;

function showMeasure() {
  const m = document.getElementById('measure');
  let s = '';
  if (view.markers.length === 2) s = 'A→B ' + fmtDur(Math.abs(view.markers[1] - view.markers[0]));
  else if (view.markers.length === 1) s = 'A at +' + fmtDur(view.markers[0] - view.info.first);
  if (view.area) s += (s ? ' · ' : '') + 'area ' + fmtDur(view.area[1] - view.area[0]);
  m.textContent = s;
  m.hidden = !s;
  if (!view.area) document.getElementById('area').hidden = true;
}

function drawMeasure() {
  const y0 = view.axisY || 0;
  if (view.area) {
    const a = Math.max(LABEL_W, xOf(view.area[0])), b = Math.min(LABEL_W + view.plotW, xOf(view.area[1]));
    if (b > a) {
      ctx.fillStyle = 'rgba(255,170,0,0.15)';
      ctx.fillRect(a, y0 + AXIS_H, b - a, view.height - y0 - AXIS_H);
    }
  }
  ctx.save();
  ctx.setLineDash([4, 3]);
  ctx.strokeStyle = '#c60'; ctx.fillStyle = '#c60';
  ctx.font = 'bold 11px sans-serif';
  view.markers.forEach((t, i) => {
    const x = xOf(t);
    if (x < LABEL_W || x > LABEL_W + view.plotW) return;
    ctx.beginPath(); ctx.moveTo(x + 0.5, y0); ctx.lineTo(x + 0.5, view.height); ctx.stroke();
    ctx.fillText('AB'[i], x + 3, y0 + 10);
  });
  ctx.restore();
}

// The selected area's aggregates: per task its CPU, runnable and sleep
// time, per slice name its count and time, each CPU's busy share, its
// wakeups; a click on a column sorts by it, on a task pins it, on a slice
// name goes to its first slice in the area.
async function areaAnalysis() {
  const [from, to] = view.area;
  let j;
  try { j = await api('/api/analysis', { from, to, top: 200, detail: 1 }); } catch (e) { status(e.message); return; }
  if (!view.area || view.area[0] !== from || view.area[1] !== to) return;
  view.areaData = j;
  view.areaFor = [from, to];
  drawArea();
}

view.areaSort = { tasks: 'run', slices: 'total' };
function drawArea() {
  const j = view.areaData, [from, to] = view.areaFor, span = to - from;
  const pct = v => esc(fmtDur(v)) + ' · ' + (100 * v / span).toFixed(1) + ' %';
  const by = (k, list) => list.slice().sort((a, b) => typeof a[k] === 'string' ? a[k].localeCompare(b[k]) : b[k] - a[k]);
  const head = (table, cols) => '<tr>' + cols.map(([k, n]) => '<th class="sort' + (view.areaSort[table] === k ? ' on' : '') + '" data-table="' + table + '" data-key="' + k + '">' + n + '</th>').join('') + '</tr>';
  let h = '<p>' + esc(fmtDur(span)) + ' from +' + esc(fmtDur(from - view.info.first)) + '</p>';
  h += '<table id="area-tasks">' + head('tasks', [['comm', 'task'], ['run', 'CPU'], ['runnable', 'runnable'], ['sleep', 'sleep']]);
  for (const t of by(view.areaSort.tasks, j.top_tasks))
    h += '<tr data-pid="' + t.pid + '" data-run="' + t.run + '"><td>' + taskLink(t) + '</td><td class="n">' + pct(t.run) + '</td><td class="n">' + esc(fmtDur(t.runnable)) + '</td><td class="n">' + esc(fmtDur(t.sleep)) + '</td></tr>';
  h += '</table>';
  if (j.slices.length) {
    h += '<table id="area-slices">' + head('slices', [['name', 'slice'], ['count', 'count'], ['total', 'time']]);
    for (const x of by(view.areaSort.slices, j.slices))
      h += '<tr data-name="' + esc(x.name) + '" data-count="' + x.count + '" data-total="' + x.total + '"><td><a class="jump" data-t="' + x.first + '">' + esc(x.name) + '</a></td><td class="n">' + x.count + '</td><td class="n">' + pct(x.total) + '</td></tr>';
    h += '</table>';
  }
  h += '<table>' + cpuRows(j.cpus, span);
  const w = j.wakeup_latency;
  h += row('wakeups', w.count);
  if (w.count) h += row('latency p50 / max', esc(fmtDur(w.p50) + ' / ' + fmtDur(w.max)));
  h += '</table>';
  document.getElementById('area-body').innerHTML = h;
  document.getElementById('area').hidden = false;
}

document.getElementById('area-body').addEventListener('click', ev => {
  const th = ev.target.closest('th.sort');
  if (!th) return;
  view.areaSort[th.dataset.table] = th.dataset.key;
  drawArea();
});

// ---- the event list: the window's events, virtual-scrolled ---------------

const ROW_H = 18, PAGE = 100;
// Browsers cap an element's height (Chrome near 33.5 M px, Firefox near
// 17.9 M): a list taller than this scrolls in proportion instead, the
// scroll bar's position standing for a row, so a window of millions of
// events scrolls from its first row to its last.
view.evMaxSpacer = 1 << 23;
const evList = document.getElementById('events-list'), evSpacer = document.getElementById('events-spacer');
const evQ = document.getElementById('events-q');
view.events = { from: 0, to: 0, q: '', count: 0, rows: new Map(), pages: new Set(), next: 0, ended: true, gen: 0, selected: null };

let eventsTimer = 0;
function scheduleEvents() {
  clearTimeout(eventsTimer);
  eventsTimer = setTimeout(resetEvents, 250);
}

// A new window or filter: the list starts again (rows are the window's).
async function resetEvents() {
  const E = view.events;
  E.from = Math.floor(view.from); E.to = Math.max(E.from + 1, Math.ceil(view.to));
  E.q = evQ.value.trim();
  E.rows = new Map(); E.pages = new Set(); E.gen++;
  const gen = E.gen;
  for (const el of [...evList.querySelectorAll('.ev-row')]) el.remove(); // the old window's
  let j;
  const at = E.selected && E.selected.time >= E.from && E.selected.time < E.to ? E.selected.time : undefined;
  try { j = await api('/api/events', eventsQuery(0, at)); } catch (e) { status(e.message); return; }
  if (gen !== E.gen) return;
  if (j.events_error) status(j.events_error); // a filter it cannot read
  E.count = j.count;
  takePage(j);
  if (E.q) { E.next = j.next; E.ended = j.ended; }
  sizeEvents();
  scrollToRow(at !== undefined && !E.q ? Math.max(0, j.row - 3) : 0);
  renderEvents();
  document.body.dataset.events = String(E.gen);
}

function eventsQuery(row, t) {
  const E = view.events, q = { from: E.from, to: E.to, row, limit: PAGE };
  if (E.q) q.q = E.q;
  if (t !== undefined) q.t = t;
  return q;
}

// Rows of a page: by row number without a filter, in the order they come
// with one (a filtered list grows as it is scrolled).
function takePage(j) {
  const E = view.events;
  if (E.q) {
    let i = E.rows.size;
    for (const ev of j.events) E.rows.set(i++, ev);
  } else {
    j.events.forEach((ev, i) => E.rows.set(j.row + i, ev));
    E.pages.add(Math.floor(j.row / PAGE));
  }
}

function sizeEvents() {
  const E = view.events;
  const n = E.q ? E.rows.size + (E.ended ? 0 : 20) : E.count;
  E.n = n;
  evSpacer.style.height = Math.min(n * ROW_H, view.evMaxSpacer) + 'px';
  document.getElementById('events-count').textContent = E.q
    ? E.rows.size + (E.ended ? '' : '+') + ' matching of ' + E.count + ' in view'
    : E.count + ' events in view';
}

// The list's first row shown (fractional), and the scroll position that
// shows row r first: one row a ROW_H, or in proportion when too tall.
function scaled() { return (view.events.n || 0) * ROW_H > view.evMaxSpacer; }
function scrollRoom() { return Math.max(1, view.evMaxSpacer - evList.clientHeight); }
function rowRoom() { return Math.max(0, view.events.n - evList.clientHeight / ROW_H); }
function firstRow() {
  return scaled() ? Math.min(evList.scrollTop, scrollRoom()) / scrollRoom() * rowRoom() : evList.scrollTop / ROW_H;
}
function scrollToRow(r) {
  evList.scrollTop = scaled() ? r / Math.max(1, rowRoom()) * scrollRoom() : r * ROW_H;
}
view.scrollToRow = scrollToRow;

function renderEvents() {
  const E = view.events;
  const first = firstRow();
  const r0 = Math.floor(first), r1 = r0 + Math.ceil(evList.clientHeight / ROW_H) + 1;
  // rows stand where the view is: at their own place, or (scaled) from
  // the top of what is seen
  const top = r => scaled() ? evList.scrollTop + (r - first) * ROW_H : r * ROW_H;
  for (const el of [...evList.querySelectorAll('.ev-row')]) el.remove();
  const frag = document.createDocumentFragment();
  const want = new Set();
  for (let r = r0; r < r1; r++) {
    const ev = E.rows.get(r);
    if (!ev) { if (!E.q && r < E.count) want.add(Math.floor(r / PAGE)); continue; }
    const d = document.createElement('div');
    d.className = 'ev-row' + (E.selected && E.selected.seq === ev.seq ? ' sel' : '');
    d.style.top = top(r) + 'px';
    d.dataset.row = String(r); d.dataset.seq = String(ev.seq);
    d.innerHTML = '<span class="t">+' + esc(fmtTick(ev.time - view.info.first, 1)) + '</span><span class="c">' + ev.cpu +
      '</span><span class="p">' + esc(ev.comm) + '-' + ev.pid + '</span><span class="e">' + esc(ev.event) + '</span>' + esc(ev.text);
    frag.append(d);
  }
  evList.append(frag);
  // only the pages seen now: those scrolled past on the way are dropped
  E.wanted = want;
  pumpPages();
  if (E.q && !E.ended && r1 >= E.rows.size) fetchMore();
}

// At most two pages asked at a time (the server reads them one by one):
// a fast scroll or a drag of the scroll bar does not queue the pages it
// passed in front of the ones it stops at.
const MAX_PAGES_ASKED = 2;
const pagesAsked = new Set();
function pumpPages() {
  const E = view.events;
  for (const p of E.wanted || []) {
    if (pagesAsked.size >= MAX_PAGES_ASKED) break;
    if (!E.pages.has(p)) fetchPage(p);
  }
}

async function fetchPage(p) {
  const E = view.events, gen = E.gen;
  if (E.pages.has(p)) return;
  E.pages.add(p);
  pagesAsked.add(p);
  let j;
  try { j = await api('/api/events', eventsQuery(p * PAGE)); } catch (e) { E.pages.delete(p); } finally { pagesAsked.delete(p); }
  // a new list, or a page that failed: the slot goes to what is wanted
  if (!j || gen !== E.gen) { pumpPages(); return; }
  takePage(j);
  renderEvents();
}

let fetchingMore = false;
async function fetchMore() {
  const E = view.events, gen = E.gen;
  if (fetchingMore || E.ended) return;
  fetchingMore = true;
  try {
    const j = await api('/api/events', eventsQuery(E.next));
    if (gen === E.gen) { takePage(j); E.next = j.next; E.ended = j.ended; sizeEvents(); renderEvents(); }
  } catch (e) { status(e.message); } finally { fetchingMore = false; }
}

evList.addEventListener('scroll', () => requestAnimationFrame(renderEvents), { passive: true });
evQ.addEventListener('input', () => { clearTimeout(eventsTimer); eventsTimer = setTimeout(resetEvents, 300); });
// a row: the timeline centred on its event, which stays selected
evList.addEventListener('click', ev => {
  const d = ev.target.closest('.ev-row');
  if (!d) return;
  const e = view.events.rows.get(+d.dataset.row);
  if (!e) return;
  view.events.selected = { seq: e.seq, time: e.time };
  const span = view.to - view.from;
  setWindow(e.time - span / 2, e.time + span / 2);
});

// A click on the timeline: the list goes to the first event at that time.
async function eventsAt(t) {
  const E = view.events;
  if (E.q) return;
  let j;
  try { j = await api('/api/events', eventsQuery(0, Math.round(t))); } catch (e) { return; }
  takePage(j);
  scrollToRow(Math.max(0, j.row - 3));
  view.events.atRow = j.row;
  renderEvents();
}

// ---- the trace info page, the keys and the colours ------------------------

const overlay = document.getElementById('overlay');
function showOverlay(html, kind) {
  document.getElementById('overlay-body').innerHTML = html;
  overlay.hidden = false;
  overlay.dataset.kind = kind;
}
overlay.addEventListener('click', () => { overlay.hidden = true; });

async function showInfo() {
  let j;
  try { j = await api('/api/summary'); } catch (e) { status(e.message); return; }
  const s = j.summary || {};
  let h = '<h2>' + esc(j.trace) + '</h2><table>' +
    row('format', esc(s.format + (s.compression && s.compression !== 'none' ? ', ' + s.compression : ''))) +
    row('events', s.total_events) + row('span', esc(fmtDur(view.info.last - view.info.first))) +
    row('lost events', s.lost_events) + row('overwritten events', s.overwritten_events) +
    row('bad lines', s.bad_lines) + row('reordered events', s.reordered_events) +
    row('slices never ended', j.unended_slices) +
    row('sched_switches naming another prev_pid than their CPU ran', j.switch_anomalies) + '</table>';
  h += '<h3>per CPU</h3><table id="info-cpus"><tr><th>CPU</th><th>events</th><th>lost</th></tr>';
  for (const [c, x] of Object.entries(s.cpus || {})) h += '<tr><td>' + esc(c) + '</td><td>' + x.events + '</td><td>' + x.lost_events + '</td></tr>';
  h += '</table><h3>events by type</h3><table id="info-events">';
  for (const [n, c] of Object.entries(s.events || {}).sort((a, b) => b[1] - a[1])) h += '<tr><td>' + esc(n) + '</td><td>' + c + '</td></tr>';
  showOverlay(h + '</table>', 'info');
}

function showHelp() {
  const keys = [['wheel, w s, + -', 'zoom (shift-drag: zoom to a range)'], ['drag, a d, arrows, shift-wheel', 'pan'],
    ['0', 'the whole trace'], ['m, a click on the axis', 'a marker (two: the time between)'],
    ['ctrl-drag', 'an area and its aggregates'], ['a click on a lane', 'its details; on a task\'s label: pin it or unpin it'],
    ['i', 'the trace info'], ['?', 'this'], ['Esc', 'clear markers, area and selection; close this']];
  let h = '<h2>keys</h2><table id="help-keys">' + keys.map(([k, v]) => row(k, esc(v))).join('') + '</table><h2>thread states</h2><table id="legend">';
  for (let i = 1; i < STATE_NAMES.length; i++)
    h += '<tr><td><span class="swatch" style="background:' + STATE_COLOURS[i] + '"></span>' + esc(STATE_NAMES[i]) + '</td></tr>';
  showOverlay(h + '</table>', 'help');
}
document.getElementById('info').onclick = () => showInfo();
document.getElementById('help-button').onclick = () => showHelp();

// ---- the URL -------------------------------------------------------------

function saveHash() {
  const p = new URLSearchParams();
  p.set('from', String(view.from)); p.set('to', String(view.to));
  p.set('kinds', KIND_ORDER.filter(k => view.kinds[k]).join(','));
  if (view.pinned.size) p.set('pin', [...view.pinned].join(','));
  if (view.pinnedLanes.size) p.set('top', [...view.pinnedLanes].join(','));
  if (view.highlight >= 0) p.set('hl', String(view.highlight));
  if (view.markers && view.markers.length) p.set('m', view.markers.join(','));
  if (view.area) p.set('area', view.area.join(','));
  history.replaceState(null, '', location.pathname + location.search + '#' + p.toString());
}

function loadHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const f = +p.get('from'), t = +p.get('to');
  if (p.has('from') && p.has('to') && t > f) { view.from = f; view.to = t; }
  if (p.has('kinds')) {
    const ks = new Set(p.get('kinds').split(','));
    for (const k of KIND_ORDER) view.kinds[k] = ks.has(k) ? 1 : 0;
  }
  if (p.get('pin')) for (const x of p.get('pin').split(',')) if (x) view.pinned.add(+x);
  if (p.get('top')) for (const x of p.get('top').split(',')) if (x) view.pinnedLanes.add(x);
  if (p.has('hl')) view.highlight = +p.get('hl');
  if (p.get('m')) view.markers = p.get('m').split(',').filter(x => x).slice(0, 2).map(Number);
  const a = (p.get('area') || '').split(',').map(Number);
  if (a.length === 2 && a[1] > a[0]) view.areaFromUrl = a;
}

// ---- following a growing trace (--follow) -----------------------------------

// Every POLL_MS while the tab is visible, one request at a time (the next
// is set only when the last has answered), /api/info without the lanes:
// a new generation means a new index, whose extent and lanes are taken in.
const POLL_MS = 2000;
let pollTimer = 0, polling = false;

function schedulePoll(ms) {
  clearTimeout(pollTimer);
  pollTimer = 0;
  if (!document.hidden) pollTimer = setTimeout(poll, ms);
}

async function poll() {
  pollTimer = 0;
  if (polling || document.hidden) return;
  polling = true;
  try {
    const j = await api('/api/info', { lanes: 0 });
    if (j.generation !== view.info.generation) await takeIndex();
  } catch (e) {
    status('following: ' + e.message);
  }
  polling = false;
  schedulePoll(POLL_MS);
}

// The new index's extent and lanes, drawn at the user's zoom and place; a
// view of the whole trace stays the whole trace, and a view that showed
// the end moves with it, as tail -f does.
async function takeIndex() {
  const info = await api('/api/info');
  const old = view.info, span = view.to - view.from;
  const whole = view.from <= old.first && view.to >= old.last + 1;
  const atEnd = view.to > old.last;
  setInfo(info);
  if (whole) {
    view.from = info.first; view.to = info.last + 1;
  } else if (atEnd) {
    view.to += info.last - old.last; view.from = view.to - span;
  }
  buildKinds();
  layout();
  refresh(true);
}

function setInfo(info) {
  view.info = info;
  // the trace's name in the tab
  document.title = info.trace.split('/').pop() + ' · trawl view';
  view.lanes = info.lanes;
  view.byId = new Map();
  for (const l of view.lanes) view.byId.set(l.id, l);
  document.getElementById('trace').textContent = info.trace + ' · ' + info.events + ' events';
  document.body.dataset.generation = String(info.generation);
  if (!info.follow) return;
  const f = document.getElementById('follow');
  f.textContent = 'following: ' + info.events + ' events, updated ' + new Date().toTimeString().slice(0, 8);
  f.hidden = false;
}

// hidden: the timer is cleared; shown again: a poll at once
document.addEventListener('visibilitychange', () => {
  if (view.info && view.info.follow) schedulePoll(0);
});

// ---- start ---------------------------------------------------------------

async function start() {
  try {
    view.info = await api('/api/info');
  } catch (e) {
    status('cannot load the trace: ' + e.message);
    document.body.dataset.error = e.message;
    return;
  }
  setInfo(view.info);
  view.from = view.info.first; view.to = view.info.last + 1;
  loadHash();
  buildKinds();
  layout();
  refresh(true);
  showMeasure();
  if (view.areaFromUrl) setArea(...view.areaFromUrl);
  if (view.info.follow) schedulePoll(POLL_MS);
}
start();
