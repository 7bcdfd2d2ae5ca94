// SPDX-License-Identifier: MIT
// trawl view in a real browser: Debian's chromium, driven by playwright-core.
// Loads a real trace, checks that lanes are drawn (canvas pixels), zooms
// (keys, wheel, drag-select), pans (keys, drag), clicks a run and reads the
// details panel, searches a task, filters lanes, reloads the URL, and sees
// the ISR warnings. Then --follow: a copy of the text trace FOLLOW that
// grows while the page is open is drawn as it grows, without a reload.
// Screenshots go to OUTDIR.
//
//   node test-browser.js TRAWL TRACE OUTDIR FOLLOW
'use strict';
const { chromium } = require('playwright-core');
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const [trawl, trace, outdir, followTrace] = process.argv.slice(2);
const failures = [];
function check(cond, what) {
  if (!cond) { failures.push(what); console.log('FAIL: ' + what); }
  else console.log('ok: ' + what);
}

function startServer(file, ...more) {
  return new Promise((resolve, reject) => {
    const p = spawn(trawl, ['view', file, '--port', '0', '--irq-threshold', '20us', '--no-cache', ...more],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    const rl = readline.createInterface({ input: p.stdout });
    rl.once('line', line => {
      const m = /^trawl view: serving (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32})$/.exec(line);
      if (!m) reject(new Error('bad first line: ' + line)); else resolve({ p, url: m[1] });
    });
    p.once('exit', c => reject(new Error('trawl view exited ' + c)));
  });
}

// A page in a context of its own (the page's CSP forbids eval, which
// playwright's waitForFunction uses), with the errors it logs and the
// number of /api/info requests it made.
async function openPage(browser) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, bypassCSP: true });
  const page = await context.newPage();
  const seen = { errors: [], info: 0 };
  page.on('pageerror', e => seen.errors.push(String(e)));
  page.on('console', m => { if (m.type() === 'error') seen.errors.push(m.text()); });
  page.on('request', r => { if (new URL(r.url()).pathname === '/api/info') seen.info++; });
  return { context, page, seen };
}

async function draws(page) { return +(await page.evaluate(() => document.body.dataset.draws || 0)); }
async function waitDraw(page, after) {
  await page.waitForFunction(n => +(document.body.dataset.draws || 0) > n, after, { timeout: 15000 });
}
async function win(page) { return page.evaluate(() => [window.trawlView.from, window.trawlView.to]); }

// Pixels of the CPU lanes that are not the lanes' background (between x0
// and x1 of the plot, in CSS pixels from its left edge: all of it by default).
async function cpuInk(page, x0, x1) {
  return page.evaluate(([x0, x1]) => {
    const v = window.trawlView, c = document.getElementById('canvas');
    const ctx = c.getContext('2d'), dpr = window.devicePixelRatio || 1;
    const xa = Math.max(0, Math.floor(x0 ?? 0)), xb = Math.min(Math.floor(v.plotW), Math.floor(x1 ?? v.plotW));
    if (xb <= xa) return 0;
    let ink = 0;
    for (const e of v.layout) {
      if (e.lane.kind !== 'cpu') continue;
      const img = ctx.getImageData((180 + xa) * dpr, e.y * dpr, Math.floor((xb - xa) * dpr), e.h * dpr).data;
      for (let i = 0; i < img.length; i += 4) {
        const r = img[i], g = img[i + 1], b = img[i + 2];
        const bg = (r === 255 && g === 255 && b === 255) || (r === 247 && g === 249 && b === 251) ||
          (r === 228 && g === 228 && b === 228) || (r === 187 && g === 187 && b === 187);
        if (!bg && img[i + 3] > 0) ink++;
      }
    }
    return ink;
  }, [x0, x1]);
}

// Where time t is drawn: CSS pixels from the plot's left edge.
async function xOfTime(page, t) {
  return page.evaluate(t => { const v = window.trawlView; return (t - v.from) / (v.to - v.from) * v.plotW; }, t);
}

// Wait for the page to take in an index newer than generation g and draw
// its lanes (fetched for that index, not the old one scaled).
async function waitIndex(page, g) {
  await page.waitForFunction(g => {
    const v = window.trawlView;
    return v.info.generation > g && v.dataGeneration === v.info.generation;
  }, g, { timeout: 20000 });
  return page.evaluate(() => {
    const v = window.trawlView;
    return { gen: v.info.generation, events: v.info.events, first: v.info.first, last: v.info.last,
      from: v.from, to: v.to };
  });
}

// Whether the CPU lanes' fetched columns hold a task after time t.
async function busyAfter(page, t) {
  return page.evaluate(t => {
    const v = window.trawlView, d = v.data, w = d.width;
    let n = 0;
    for (const e of v.layout) {
      if (e.lane.kind !== 'cpu') continue;
      let x = 0;
      for (const c of d.lanes.get(e.lane.id).cols) {
        const t1 = v.dataFrom + (x + c[0]) / w * (v.dataTo - v.dataFrom);
        if (t1 > t && c[1] && c[2]) n += c[0];
        x += c[0];
      }
    }
    return n;
  }, t);
}

// --follow: a copy of the first 40 % of a text trace's events, which then
// grows by the rest in three appends (what a recording being written
// does), each taken in by the open page without a reload.
async function followChecks(browser) {
  const lines = fs.readFileSync(followTrace, 'utf8').split('\n').filter(l => l);
  const head = lines.filter(l => l.startsWith('#')), events = lines.filter(l => !l.startsWith('#'));
  const cut = [0.4, 0.6, 0.8, 1].map(f => Math.floor(events.length * f));
  const file = path.join(outdir, '..', 'follow.txt');
  fs.writeFileSync(file, head.concat(events.slice(0, cut[0])).join('\n') + '\n');
  const grow = k => fs.appendFileSync(file, events.slice(cut[k - 1], cut[k]).join('\n') + '\n');
  const { p, url } = await startServer(file, '--follow');
  const { context, page, seen } = await openPage(browser);
  try {
    await page.goto(url);
    await waitDraw(page, 0);
    let s = await page.evaluate(() => {
      const v = window.trawlView;
      v.notReloaded = true;
      return { gen: v.info.generation, events: v.info.events, first: v.info.first, last: v.info.last, follow: v.info.follow };
    });
    check(s.follow && s.gen === 0, '--follow: /api/info says so, generation 0');
    check(/^following: \d+ events, updated \d\d:\d\d:\d\d$/.test(await page.locator('#follow').innerText()),
      'the indicator: ' + await page.locator('#follow').innerText());
    check(await cpuInk(page) > 1000, '--follow: the first part is drawn');

    // 1. the whole trace shown: it stays the whole trace, the new part drawn
    grow(1);
    let t = await waitIndex(page, s.gen);
    check(t.events > s.events && t.last > s.last, 'the page took in the grown file: ' + s.events + ' -> ' + t.events + ' events');
    check(t.from === t.first && t.to === t.last + 1, 'the whole trace stays shown');
    const xOld = await xOfTime(page, s.last);
    let inkNew = await cpuInk(page, xOld + 2), colsNew = await busyAfter(page, s.last);
    check(inkNew > 200 && colsNew > 20, 'the new events are drawn past the old end: ' + inkNew + ' pixels, ' + colsNew + ' busy columns');
    check((await page.locator('#follow').innerText()).includes(t.events + ' events'), 'the indicator counts the new events');
    await page.screenshot({ path: path.join(outdir, '07-follow-grown.png') });

    // 2. zoomed in at the end: the window keeps its span and follows the end
    s = t;
    let span = Math.round((s.last - s.first) / 4);
    await page.evaluate(([a, b]) => window.trawlView.setWindow(a, b), [s.last + 1 - span * 0.8, s.last + 1 + span * 0.2]);
    await page.waitForFunction(() => window.trawlView.dataFrom === window.trawlView.from, null, { timeout: 15000 });
    const before = await page.evaluate(() => [window.trawlView.from, window.trawlView.to]);
    grow(2);
    t = await waitIndex(page, s.gen);
    check(Math.abs((t.to - t.from) - (before[1] - before[0])) <= 2, 'the zoom is kept: ' + (before[1] - before[0]) + ' -> ' + (t.to - t.from));
    check(Math.abs((t.to - t.last) - (before[1] - s.last)) <= 2, 'the window follows the end (tail -f): to - last ' +
      (before[1] - s.last) + ' -> ' + (t.to - t.last));
    inkNew = await cpuInk(page, (await xOfTime(page, s.last)) + 2);
    colsNew = await busyAfter(page, s.last);
    check(inkNew > 200 && colsNew > 10, 'following the end draws the new events: ' + inkNew + ' pixels, ' + colsNew + ' columns');
    await page.screenshot({ path: path.join(outdir, '08-follow-end.png') });

    // a hidden tab does not poll; shown again it polls at once
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { value: true, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await page.waitForTimeout(500);
    let n0 = seen.info;
    await page.waitForTimeout(4500);
    check(seen.info === n0, 'a hidden tab does not poll (' + (seen.info - n0) + ' requests in 4.5 s)');
    await page.evaluate(() => {
      delete document.hidden;
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await page.waitForTimeout(800);
    check(seen.info > n0, 'shown again, it polls');
    n0 = seen.info;
    await page.waitForTimeout(4100);
    const rate = seen.info - n0;
    check(rate >= 1 && rate <= 3, 'it polls about every 2 s (' + rate + ' in 4.1 s)');

    // 3. zoomed in the middle: the window stays where it is
    s = t;
    span = Math.round((s.last - s.first) / 10);
    const mid = Math.round((s.first + s.last) / 2);
    await page.evaluate(([a, b]) => window.trawlView.setWindow(a, b), [mid - span, mid + span]);
    await page.waitForFunction(() => window.trawlView.dataFrom === window.trawlView.from, null, { timeout: 15000 });
    const here = await page.evaluate(() => [window.trawlView.from, window.trawlView.to]);
    grow(3);
    t = await waitIndex(page, s.gen);
    check(t.from === here[0] && t.to === here[1], 'a window in the middle stays put: ' + here + ' -> ' + [t.from, t.to]);
    check(t.events === events.length, 'every event of the trace in the end: ' + t.events + ' of ' + events.length);
    check(await page.evaluate(() => window.trawlView.notReloaded === true), 'all without a reload');
    check(seen.errors.length === 0, 'no errors in the following page: ' + seen.errors.slice(0, 3).join(' | '));
  } finally {
    await context.close();
    p.kill('SIGINT');
  }
}

async function main() {
  const { p, url } = await startServer(trace);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const { context, page, seen } = await openPage(browser);
    const loadedAt = Date.now();
    await page.goto(url);
    await waitDraw(page, 0);
    await page.screenshot({ path: path.join(outdir, '01-loaded.png') });
    const info = await page.evaluate(() => window.trawlView.info);
    check(info.events > 0, 'the page loaded the trace (' + info.events + ' events)');
    const ink0 = await cpuInk(page);
    check(ink0 > 2000, 'CPU lanes are drawn: ' + ink0 + ' pixels of task colour');
    const lanes = await page.evaluate(() => window.trawlView.layout.map(e => e.lane.kind));
    for (const k of ['cpu', 'softirq']) check(lanes.includes(k), 'a ' + k + ' lane is shown');

    // zoom with keys
    let [f0, t0] = await win(page);
    let n = await draws(page);
    await page.keyboard.press('w'); await page.keyboard.press('w');
    await waitDraw(page, n);
    let [f1, t1] = await win(page);
    check((t1 - f1) < 0.6 * (t0 - f0), 'w zooms in: ' + (t0 - f0) + ' -> ' + (t1 - f1));
    check(await cpuInk(page) > 500, 'still drawn zoomed in');
    await page.screenshot({ path: path.join(outdir, '02-zoomed.png') });
    // pan with keys
    n = await draws(page);
    await page.keyboard.press('d');
    await waitDraw(page, n);
    let [f2, t2] = await win(page);
    check(f2 > f1 && Math.abs((t2 - f2) - (t1 - f1)) < 2, 'd pans right, same span');
    // pan by dragging
    const box = await page.locator('#canvas').boundingBox();
    const y = box.y + 40;
    n = await draws(page);
    await page.mouse.move(box.x + 700, y); await page.mouse.down();
    await page.mouse.move(box.x + 500, y, { steps: 5 }); await page.mouse.up();
    await waitDraw(page, n);
    let [f3] = await win(page);
    check(f3 > f2, 'dragging left pans right');
    // wheel zoom out
    n = await draws(page);
    await page.mouse.move(box.x + 700, y);
    await page.mouse.wheel(0, 600);
    await waitDraw(page, n);
    let [f4, t4] = await win(page);
    check(t4 - f4 > t2 - f2, 'the wheel zooms out');
    // drag-select (shift) zooms to the selection
    await page.keyboard.press('0');
    await waitDraw(page, await draws(page) - 1);
    [f0, t0] = await win(page);
    n = await draws(page);
    await page.keyboard.down('Shift');
    await page.mouse.move(box.x + 400, y); await page.mouse.down();
    await page.mouse.move(box.x + 600, y, { steps: 4 }); await page.mouse.up();
    await page.keyboard.up('Shift');
    await waitDraw(page, n);
    [f1, t1] = await win(page);
    const plotW = await page.evaluate(() => window.trawlView.plotW);
    const want = (t0 - f0) * 200 / plotW;
    check(Math.abs((t1 - f1) - want) < 0.05 * want, 'shift-drag zooms to the selection');
    await page.screenshot({ path: path.join(outdir, '03-selected.png') });

    // click a run on a CPU lane: the details panel names its task
    await page.keyboard.press('0');
    await page.waitForTimeout(300);
    const target = await page.evaluate(() => {
      const v = window.trawlView;
      for (const e of v.layout) {
        if (e.lane.kind !== 'cpu') continue;
        const d = v.data.lanes.get(e.lane.id);
        let x = 0;
        for (const c of d.cols) {
          if (c[1] && c[2] === 65535 && c[0] >= 3) {
            const t = v.data.tasks[c[1]];
            return { x: 180 + x + c[0] / 2, y: e.y + e.h / 2, pid: t.pid, comm: t.comm };
          }
          x += c[0];
        }
      }
      return null;
    });
    check(target, 'a run to click');
    if (target) {
      await page.mouse.click(box.x + target.x, box.y + target.y);
      await page.waitForFunction(() => document.body.dataset.detail, null, { timeout: 15000 });
      const text = await page.locator('#detail-body').innerText();
      check(text.includes(String(target.pid)) && text.includes(target.comm),
        'details name the task clicked (' + target.comm + ' ' + target.pid + '): ' + text.slice(0, 200));
      check(/sched_switch/.test(text), 'details show the event fields');
      // the run outlined, and its wakeup an arrow to its start
      const sel = await page.evaluate(() => {
        const v = window.trawlView, s = v.selected;
        return s && { s, arrow: v.arrow, x1: s ? v.xOf(s.start) : 0 };
      });
      check(sel && sel.s.end > sel.s.start, 'the run clicked is selected: ' + JSON.stringify(sel && sel.s));
      if (sel && sel.s.wakeup)
        check(sel.arrow && Math.abs(sel.arrow.x1 - sel.x1) < 1, 'its wakeup drawn to its start: ' + JSON.stringify(sel.arrow));
      await page.screenshot({ path: path.join(outdir, '04-details.png') });
    }

    // search a task and pin it
    const someone = target ? target.comm : 'a';
    await page.fill('#search', someone.slice(0, 5));
    await page.waitForSelector('#results div[data-pid]', { timeout: 10000 });
    n = await draws(page);
    await page.click('#results div[data-pid]');
    await waitDraw(page, n);
    const pinned = await page.evaluate(() => window.trawlView.layout.filter(e => e.lane.kind === 'task').map(e => e.lane.pid));
    check(pinned.length >= 1, 'search pins the task lane (' + pinned + ')');
    check(/pin=/.test(await page.evaluate(() => location.hash)), 'the pin is in the URL');
    await page.screenshot({ path: path.join(outdir, '05-search.png') });

    // the URL reproduces the view
    await page.keyboard.press('w');
    await page.waitForTimeout(400);
    const href = await page.evaluate(() => location.href);
    const [wf, wt] = await win(page);
    const page2 = await context.newPage();
    await page2.goto(href);
    await waitDraw(page2, 0);
    const [rf, rt] = await win(page2);
    check(Math.abs(rf - wf) <= 1 && Math.abs(rt - wt) <= 1, 'the URL reproduces the window');
    const pinned2 = await page2.evaluate(() => window.trawlView.layout.filter(e => e.lane.kind === 'task').length);
    check(pinned2 === pinned.length, 'and the pinned lanes');
    await page2.close();

    // many lanes in a short window: scrolled down them, the time axis
    // stays at the top of what is seen (it scrolled away)
    {
      const p2 = await context.newPage();
      await p2.setViewportSize({ width: 1400, height: 320 });
      await p2.goto(href);
      await waitDraw(p2, 0);
      const n2 = await draws(p2);
      await p2.click('#kinds input[data-kind=task]');
      await waitDraw(p2, n2);
      const tall = await p2.evaluate(() => document.documentElement.scrollHeight > window.innerHeight + 150);
      check(tall, 'with the task lanes the lanes are taller than the window');
      await p2.evaluate(() => window.scrollTo(0, 150));
      await p2.waitForTimeout(200);
      const a = await p2.evaluate(() => {
        const v = window.trawlView, c = document.getElementById('canvas');
        const dpr = window.devicePixelRatio || 1;
        const px = c.getContext('2d').getImageData(5 * dpr, (v.axisY + 3) * dpr, 1, 1).data;
        return { y: v.axisY, rgb: [px[0], px[1], px[2]] };
      });
      check(a.y > 100 && a.rgb.join() === '240,240,240', 'the axis is drawn where the page is scrolled to: ' + JSON.stringify(a));
      await p2.close();
    }

    // the task lanes of a window are its living tasks: not one that died
    // before it nor one born after it (they filled the task lanes)
    {
      const life = await page.evaluate(() => {
        const ts = window.trawlView.lanes.filter(l => l.kind === 'task' && l.changes && !window.trawlView.pinned.has(l.pid));
        const d = ts.find(l => l.dead_at !== undefined), u = ts.slice().sort((a, b) => b.first - a.first)[0];
        return { dead: d && { pid: d.pid, at: d.dead_at }, unborn: u && { pid: u.pid, at: u.first } };
      });
      const tasksShown = () => page.evaluate(() => window.trawlView.layout.filter(e => e.lane.kind === 'task').map(e => e.lane.pid));
      const wasOn = await page.evaluate(() => !!window.trawlView.kinds.task);
      if (!wasOn) await page.click('#kinds input[data-kind=task]');
      if (life.dead) {
        await page.evaluate(t => window.trawlView.setWindow(t + 1000, window.trawlView.info.last + 1), life.dead.at);
        check(!(await tasksShown()).includes(life.dead.pid), 'a task dead before the window has no lane in it (' + life.dead.pid + ')');
        await page.evaluate(t => window.trawlView.setWindow(t - 100000, t + 1000), life.dead.at);
        check((await tasksShown()).includes(life.dead.pid), 'and has one while it lives');
      } else check(false, 'a dead task in the trace');
      if (life.unborn && life.unborn.at > info.first + 2000) {
        await page.evaluate(t => window.trawlView.setWindow(window.trawlView.info.first, t - 1000), life.unborn.at);
        check(!(await tasksShown()).includes(life.unborn.pid), 'a task born after the window has no lane in it (' + life.unborn.pid + ')');
      }
      if (!wasOn) await page.click('#kinds input[data-kind=task]');
      await page.keyboard.press('0');
    }

    // thread states and slices grouped by process, then thread: a header
    // row a process, its threads' lanes right under it, each thread's
    // state lane above its slices
    {
      const wasOn = await page.evaluate(() => !!window.trawlView.kinds.task);
      if (!wasOn) await page.click('#kinds input[data-kind=task]');
      await page.keyboard.press('0');
      await page.waitForTimeout(300);
      const g = await page.evaluate(() => {
        const v = window.trawlView, c = document.getElementById('canvas');
        const dpr = window.devicePixelRatio || 1;
        const rows = v.layout.filter(e => e.lane.kind === 'task' || e.lane.kind === 'slice')
          .map(e => ({ y: e.y, pid: e.lane.pid, tgid: e.lane.tgid, kind: e.lane.kind }));
        const headers = v.headers.map(h => {
          const px = c.getContext('2d').getImageData(300 * dpr, (h.y + 2) * dpr, 1, 1).data;
          return { y: h.y, h: h.h, tgid: h.tgid, label: h.label, rgb: [px[0], px[1], px[2]].join() };
        });
        return { rows, headers };
      });
      const proc = r => r.tgid >= 0 ? r.tgid : r.pid;
      const runs = [];
      for (const r of g.rows) {
        if (!runs.length || proc(runs[runs.length - 1][0]) !== proc(r)) runs.push([r]);
        else runs[runs.length - 1].push(r);
      }
      const procs = runs.map(x => proc(x[0]));
      check(runs.length > 1 && new Set(procs).size === procs.length,
        'each process\'s lanes are together (' + runs.length + ' processes)');
      check(g.headers.length === runs.length && g.headers.every((h, i) => h.tgid === procs[i] &&
        h.y + h.h === runs[i][0].y && h.label.endsWith(' ' + procs[i])),
        'a header row above each process, named with its pid: ' + JSON.stringify(g.headers.slice(0, 3)));
      check(g.headers.every(h => h.rgb === '227,232,238'), 'the header rows are drawn');
      let ordered = true, sliced = 0;
      for (const run of runs) {
        const seen = new Set();
        for (let i = 0; i < run.length; i++) {
          const r = run[i], prev = run[i - 1];
          if (prev && prev.pid !== r.pid && seen.has(r.pid)) ordered = false;
          if (r.kind === 'slice') {
            sliced++;
            if (run.some(x => x.kind === 'task' && x.pid === r.pid) && !seen.has(r.pid)) ordered = false;
          }
          seen.add(r.pid);
        }
      }
      check(ordered && sliced > 0, 'each thread\'s lanes together, its state above its ' + sliced + ' slice lanes');
      const multi = runs.find(x => new Set(x.map(r => r.pid)).size > 1);
      check(!multi || multi[0].pid === proc(multi[0]) || !multi.some(r => r.pid === proc(r)),
        'a process\'s main thread first');
      await page.screenshot({ path: path.join(outdir, '11-grouped.png') });
      if (!wasOn) await page.click('#kinds input[data-kind=task]');
    }

    // measuring: two markers and the time between them; an area with its
    // aggregates, the same as /api/analysis of that range; Esc clears
    {
      const box = await page.locator('#canvas').boundingBox();
      const [f, t] = await win(page);
      const plotW = await page.evaluate(() => window.trawlView.plotW);
      await page.mouse.move(box.x + 180 + plotW * 0.25, box.y + 80);
      await page.keyboard.press('m');
      await page.mouse.click(box.x + 180 + plotW * 0.75, box.y + 10); // on the axis
      const m = await page.evaluate(() => window.trawlView.markers.slice());
      check(m.length === 2 && m[1] > m[0], 'two markers: ' + m);
      const want = Math.abs(m[1] - m[0]);
      const shown = await page.locator('#measure').innerText();
      check(Math.abs(want - (t - f) / 2) <= (t - f) / plotW * 3 && shown.startsWith('A→B '),
        'the time between them, half the window: ' + shown + ' for ' + want);
      check(/m=/.test(await page.evaluate(() => location.hash)), 'the markers are in the URL');
      await page.keyboard.down('Control');
      await page.mouse.move(box.x + 180 + plotW * 0.2, box.y + 100);
      await page.mouse.down();
      await page.mouse.move(box.x + 180 + plotW * 0.6, box.y + 120, { steps: 4 });
      await page.mouse.up();
      await page.keyboard.up('Control');
      await page.waitForFunction(() => window.trawlView.areaFor, null, { timeout: 15000 });
      const area = await page.evaluate(() => window.trawlView.area.slice());
      const [w0, w1] = await win(page);
      check(w0 === f && w1 === t, 'an area does not zoom');
      const rows = await page.evaluate(() => [...document.querySelectorAll('#area-tasks tr[data-pid]')].map(r => [+r.dataset.pid, +r.dataset.run]));
      const api = await page.evaluate(async a => {
        const tok = new URLSearchParams(location.search).get('token') || '';
        const r = await fetch('/api/analysis?from=' + a[0] + '&to=' + a[1] + '&top=200&detail=1&token=' + tok);
        return (await r.json()).top_tasks.map(x => [x.pid, x.run]);
      }, area);
      check(rows.length > 0 && JSON.stringify(rows) === JSON.stringify(api), 'the area\'s CPU time per task is the analysis of its range: ' + JSON.stringify(rows.slice(0, 3)));
      // sortable: by sleep, then by slice count
      await page.click('#area-tasks th[data-key=sleep]');
      const sleeps = await page.evaluate(() => [...document.querySelectorAll('#area-tasks tr[data-pid]')].map(r => r.children[3].textContent));
      check(sleeps.length === rows.length, 'sorted by sleep: ' + sleeps.slice(0, 3).join(' | '));
      const order = await page.evaluate(() => [...document.querySelectorAll('#area-tasks tr[data-pid]')].map(r => +r.dataset.pid));
      const bySleep = await page.evaluate(() => window.trawlView.areaData.top_tasks.slice().sort((a, b) => b.sleep - a.sleep).map(t => t.pid));
      check(JSON.stringify(order) === JSON.stringify(bySleep), 'the rows in sleep order');
      if (await page.locator('#area-slices').count()) {
        await page.click('#area-slices th[data-key=count]');
        const counts = await page.evaluate(() => [...document.querySelectorAll('#area-slices tr[data-name]')].map(r => +r.dataset.count));
        check(counts.every((c, i) => !i || counts[i - 1] >= c), 'slices sorted by count: ' + counts.slice(0, 5));
      }
      await page.keyboard.press('Escape');
      const cleared = await page.evaluate(() => [window.trawlView.markers.length, window.trawlView.area]);
      check(cleared[0] === 0 && cleared[1] === null && await page.locator('#area').isHidden(), 'Esc clears the markers and the area');
    }

    // the event list: the window's events in order, virtual-scrolled; a row
    // centres the timeline on its event; a filter keeps what it names
    {
      // the list made again for the whole trace (its generation moves on
      // when the new window's first page is in)
      const g0 = await page.evaluate(() => window.trawlView.events.gen);
      await page.keyboard.press('0');
      await page.waitForFunction(g => {
        const E = window.trawlView.events;
        return E.gen > g && document.body.dataset.events === String(E.gen) && E.count > 0 && E.from === Math.floor(window.trawlView.from);
      }, g0, { timeout: 15000 });
      const E0 = await page.evaluate(() => ({ count: window.trawlView.events.count, text: document.getElementById('events-count').textContent }));
      check(E0.count === info.events && E0.text.startsWith(String(info.events)), 'the list holds the window\'s events: ' + E0.text);
      await page.evaluate(() => { document.getElementById('events-list').scrollTop = 600 * 18; });
      await page.waitForSelector('.ev-row[data-row="600"]', { timeout: 15000 });
      const r600 = await page.evaluate(() => {
        const d = document.querySelector('.ev-row[data-row="600"]');
        return { seq: +d.dataset.seq, ev: window.trawlView.events.rows.get(600) };
      });
      const apiRow = await page.evaluate(async () => {
        const tok = new URLSearchParams(location.search).get('token') || '';
        const E = window.trawlView.events;
        const r = await fetch('/api/events?from=' + E.from + '&to=' + E.to + '&row=600&limit=1&token=' + tok);
        return (await r.json()).events[0];
      });
      check(r600.seq === apiRow.seq && r600.ev.time === apiRow.time, 'row 600 scrolled to is the 600th event: ' + r600.seq);
      // taller than a browser lets an element be (millions of rows): the
      // list scrolls in proportion; its last row is reached and is the
      // window's last event, its middle the middle one
      {
        const relist = async max => {
          const g = await page.evaluate(m => {
            window.trawlView.evMaxSpacer = m;
            document.getElementById('events-q').dispatchEvent(new Event('input'));
            return window.trawlView.events.gen;
          }, max);
          await page.waitForFunction(g0 => window.trawlView.events.gen > g0 &&
            document.body.dataset.events === String(window.trawlView.events.gen), g, { timeout: 15000 });
        };
        const rowAt = async frac => {
          await page.evaluate(f => {
            const l = document.getElementById('events-list');
            l.scrollTop = f * (l.scrollHeight - l.clientHeight);
            l.dispatchEvent(new Event('scroll'));
          }, frac);
          await page.waitForTimeout(500);
          return page.evaluate(() => {
            const rows = [...document.querySelectorAll('.ev-row')].map(d => ({ row: +d.dataset.row, y: d.getBoundingClientRect().top }));
            const l = document.getElementById('events-list').getBoundingClientRect();
            rows.sort((a, b) => a.row - b.row);
            return { first: rows[0], last: rows[rows.length - 1], top: l.top, bottom: l.bottom, spacer: document.getElementById('events-spacer').offsetHeight };
          });
        };
        await relist(4000);
        const end = await rowAt(1), mid = await rowAt(0.5);
        check(end.spacer === 4000 && end.last && end.last.row === info.events - 1 && end.last.y < end.bottom,
          'a list taller than the browser allows scrolls to its last row: ' + JSON.stringify(end));
        check(mid.first && Math.abs(mid.first.row - info.events / 2) < 20 && mid.first.y >= mid.top - 18,
          'and half way down to its middle row: ' + JSON.stringify(mid));
        await relist(1 << 23);
        await page.evaluate(() => { document.getElementById('events-list').scrollTop = 600 * 18; });
        await page.waitForSelector('.ev-row[data-row="600"]', { timeout: 15000 });
      }
      const [f0, t0] = await win(page);
      n = await draws(page);
      await page.click('.ev-row[data-row="600"]');
      await waitDraw(page, n);
      const [f1, t1] = await win(page);
      check(Math.abs((f1 + t1) / 2 - r600.ev.time) <= (t1 - f1) * 0.03 + 2 || f1 <= info.first, 'a row centres the timeline on its event');
      check(Math.abs((t1 - f1) - (t0 - f0)) <= (t0 - f0) * 0.06 + 2, 'at the same zoom');
      await page.fill('#events-q', 'sched_switch');
      await page.waitForFunction(() => {
        const E = window.trawlView.events;
        return E.q === 'sched_switch' && E.rows.size > 0 && document.body.dataset.events === String(E.gen);
      }, null, { timeout: 15000 });
      const evs = await page.evaluate(() => [...document.querySelectorAll('.ev-row .e')].map(x => x.textContent));
      check(evs.length > 0 && evs.every(e => e === 'sched_switch'), 'the filter keeps sched_switch only (' + evs.length + ' rows)');
      // a field condition: the rows' text says the field holds it
      await page.fill('#events-q', 'sched_switch,prev_state==S');
      await page.waitForFunction(() => {
        const E = window.trawlView.events;
        return E.q === 'sched_switch,prev_state==S' && E.rows.size > 0 && document.body.dataset.events === String(E.gen);
      }, null, { timeout: 15000 });
      const texts = await page.evaluate(() => [...document.querySelectorAll('.ev-row')].map(x => x.textContent));
      check(texts.length > 0 && texts.every(t => / prev_state=S /.test(t) || /prev_state=S /.test(t)),
        'a field condition keeps the switches out of S only (' + texts.length + ' rows)');
      await page.fill('#events-q', '');
      // a click on the timeline scrolls the list to the event at that time
      await page.waitForFunction(() => {
        const E = window.trawlView.events;
        return E.q === '' && document.body.dataset.events === String(E.gen);
      }, null, { timeout: 15000 }).catch(e => { throw new Error('list not reset: ' + e.message); });
      const spot = await page.evaluate(() => {
        const v = window.trawlView, e = v.layout.find(x => x.lane.kind === 'cpu') || v.layout[0];
        const x = 180 + Math.round(v.plotW * 0.75);
        return { x, y: e.y + e.h / 2, t: v.from + (x - 180) / v.plotW * (v.to - v.from), before: v.events.atRow };
      });
      const cbox = await page.locator('#canvas').boundingBox();
      await page.mouse.click(cbox.x + spot.x, cbox.y + spot.y);
      await page.waitForFunction(b => window.trawlView.events.atRow !== b, spot.before, { timeout: 15000 })
        .catch(async e => { throw new Error('no atRow after the click at ' + JSON.stringify(spot) + ': ' + await page.evaluate(() => JSON.stringify({ q: window.trawlView.events.q, atRow: window.trawlView.events.atRow, sel: !!window.trawlView.selection }))); });
      const at = await page.evaluate(async t => {
        const tok = new URLSearchParams(location.search).get('token') || '';
        const E = window.trawlView.events;
        const r = await fetch('/api/events?from=' + E.from + '&to=' + E.to + '&t=' + Math.round(t) + '&limit=1&token=' + tok);
        const l = document.getElementById('events-list').getBoundingClientRect();
        const shown = [...document.querySelectorAll('.ev-row')].filter(d => {
          const b = d.getBoundingClientRect();
          return b.top >= l.top - 1 && b.bottom <= l.bottom + 1;
        }).map(d => +d.dataset.row);
        return { api: (await r.json()).row, atRow: E.atRow, shown };
      }, spot.t);
      check(at.atRow === at.api && at.shown.includes(at.atRow),
        'a click on the timeline scrolls the list to the event at that time: ' + JSON.stringify({ api: at.api, atRow: at.atRow, shown: at.shown.slice(0, 3) }));
      await page.keyboard.press('0');
    }

    // a pin is undone by a click on its lane's label (it could not be)
    const lane = await page.evaluate(() => {
      const e = window.trawlView.layout.find(x => x.lane.kind === 'task' && window.trawlView.pinned.has(x.lane.pid));
      return e && { pid: e.lane.pid, y: e.y + e.h / 2 };
    });
    if (lane) {
      const box = await page.locator('#canvas').boundingBox();
      n = await draws(page);
      await page.mouse.click(box.x + 40, box.y + lane.y);
      await waitDraw(page, n);
      check(await page.evaluate(p => !window.trawlView.pinned.has(p), lane.pid), 'a click on the label unpins ' + lane.pid);
      check(!/pin=/.test(await page.evaluate(() => location.hash)), 'and the URL has no pin');
    } else check(false, 'a pinned lane to unpin');

    // any lane pins to the top by its label, whatever its kind, and the
    // URL keeps it; a second click takes it down
    {
      const box = await page.locator('#canvas').boundingBox();
      const last = await page.evaluate(() => {
        const L = window.trawlView.layout, e = L[L.length - 1];
        return { id: e.lane.id, kind: e.lane.kind, y: e.y + e.h / 2 };
      });
      if (last.kind !== 'task') {
        n = await draws(page);
        await page.mouse.click(box.x + 40, box.y + last.y);
        await waitDraw(page, n);
        const top = await page.evaluate(() => window.trawlView.layout[0].lane.id);
        check(top === last.id, 'a ' + last.kind + ' lane pinned to the top: ' + top + ' is ' + last.id);
        check(/top=/.test(await page.evaluate(() => location.hash)), 'the URL keeps it');
        const y0 = await page.evaluate(() => { const e = window.trawlView.layout[0]; return e.y + e.h / 2; });
        n = await draws(page);
        await page.mouse.click(box.x + 40, box.y + y0);
        await waitDraw(page, n);
        check(await page.evaluate(i => window.trawlView.layout[0].lane.id !== i, last.id), 'and taken down again');
      }
    }

    // the wheel over the lane labels zooms about the plot's left edge,
    // so the window keeps its start (it zoomed about a time outside it)
    {
      const box = await page.locator('#canvas').boundingBox();
      // inside the trace: at the whole trace the window's start is held
      // by its margin, not by the zoom
      n = await draws(page);
      await page.evaluate(() => { const i = window.trawlView.info, q = (i.last - i.first) / 4; window.trawlView.setWindow(i.first + q, i.last - q); });
      await waitDraw(page, n);
      const [f0] = await win(page);
      n = await draws(page);
      await page.mouse.move(box.x + 60, box.y + 80);
      await page.mouse.wheel(0, -200);
      await waitDraw(page, n);
      const [f1, t1] = await win(page);
      check(Math.abs(f1 - f0) <= 2 && t1 > f1, 'the wheel over the labels keeps the start: ' + f0 + ' -> ' + f1);
    }

    // the trace's name in the tab; the info page (i) as trawl stats has
    // it; the keys and the colours (?); Esc closes them
    check((await page.title()).startsWith(path.basename(trace)), 'the tab is named after the trace: ' + await page.title());
    await page.keyboard.press('i');
    await page.waitForSelector('#overlay:not([hidden]) #info-events', { timeout: 10000 });
    const infoText = await page.locator('#overlay').innerText();
    check(infoText.includes(String(info.events)) && /lost events/.test(infoText) && /bad lines/.test(infoText),
      'the info page: events, lost events, bad lines');
    await page.keyboard.press('Escape');
    check(await page.locator('#overlay').isHidden(), 'Esc closes it');
    await page.keyboard.press('?');
    await page.waitForSelector('#overlay:not([hidden]) #legend', { timeout: 10000 });
    check(await page.locator('#legend tr').count() === 5 && await page.locator('#help-keys tr').count() >= 8,
      'the keys and the five thread-state colours');
    await page.keyboard.press('Escape');

    // a dark theme where the system asks for one: the page and the canvas
    {
      const dark = await browser.newContext({ viewport: { width: 1400, height: 900 }, bypassCSP: true, colorScheme: 'dark' });
      const p3 = await dark.newPage();
      await p3.goto(url);
      await waitDraw(p3, 0);
      const d = await p3.evaluate(() => {
        const c = document.getElementById('canvas'), dpr = window.devicePixelRatio || 1;
        const e = window.trawlView.layout[0];
        const px = c.getContext('2d').getImageData(3 * dpr, (e.y + 2) * dpr, 1, 1).data;
        return { theme: window.trawlView.theme, body: getComputedStyle(document.body).backgroundColor, label: [px[0], px[1], px[2]] };
      });
      check(d.theme === 'dark' && d.body === 'rgb(20, 23, 27)' && d.label.every(v => v < 60),
        'a dark theme follows the system: ' + JSON.stringify(d));
      await p3.screenshot({ path: path.join(outdir, '07-dark.png') });
      await dark.close();
    }

    // the time axis at every zoom down to a few events: ticks that tell
    // themselves apart (they read "+4.072 s" five times below 10 ms)
    for (const span of [1e9, 1e7, 1e5, 3e3, 40]) {
      const mid = Math.round((info.first + info.last) / 2);
      n = await draws(page);
      await page.evaluate(([a, b]) => window.trawlView.setWindow(a, b), [mid, mid + span]);
      await waitDraw(page, n);
      const ticks = await page.evaluate(() => window.trawlView.ticks);
      check(ticks.length >= 2 && new Set(ticks).size === ticks.length,
        'axis ticks over ' + span + ' ns tell themselves apart: ' + ticks.slice(0, 4).join(' '));
    }
    await page.keyboard.press('0');

    // lane filters
    n = await draws(page);
    await page.click('#kinds input[data-kind=cpu]');
    await waitDraw(page, n);
    const kinds = await page.evaluate(() => window.trawlView.layout.map(e => e.lane.kind));
    check(!kinds.includes('cpu'), 'unticking cpu hides the CPU lanes');
    await page.click('#kinds input[data-kind=cpu]');

    // the visible window's analyses and the ISR warnings
    await page.keyboard.press('0');
    await page.waitForFunction(() => {
      const v = window.trawlView;
      return v.analysisFor && v.analysisFor[0] === Math.floor(v.from) && v.analysisFor[1] >= Math.ceil(v.to);
    }, null, { timeout: 15000 });
    const side = await page.locator('#analysis-body').innerText();
    check(/latency p50/.test(side) && /CPU 0 busy/.test(side), 'the side panel has the analyses');
    check(/event\(s\) lost in the trace/.test(side), 'and the lost events');
    // the latency max is a link to the longest wakeup and its run
    {
      const link = await page.evaluate(() => { const a = document.getElementById('latency-max'); return a && [+a.dataset.from, +a.dataset.to]; });
      check(link && link[1] > link[0], 'the latency max is a link: ' + link);
      if (link) {
        n = await draws(page);
        await page.click('#latency-max');
        await waitDraw(page, n);
        const [lf, lt] = await win(page);
        check(lf <= link[0] && lt >= link[1], 'it shows the wakeup and the switch-in: [' + lf + ', ' + lt + '] holds ' + link);
        await page.keyboard.press('0');
        await page.waitForFunction(() => {
          const v = window.trawlView;
          return v.analysisFor && v.analysisFor[0] === Math.floor(v.from) && v.analysisFor[1] >= Math.ceil(v.to);
        }, null, { timeout: 15000 });
      }
    }
    // a zoom: the figures shown say they are of the window before until
    // the new ones come
    const stale = await page.evaluate(() => {
      window.trawlView.setWindow(window.trawlView.from, (window.trawlView.from + window.trawlView.to) / 2);
      const b = document.getElementById('analysis-body');
      return b.classList.contains('stale') && !!document.getElementById('analysis-stale');
    });
    check(stale, 'the analyses of the window before are marked while new ones come');
    await page.waitForFunction(() => !document.getElementById('analysis-body').classList.contains('stale'), null, { timeout: 15000 });
    await page.keyboard.press('0');
    await page.waitForFunction(() => {
      const v = window.trawlView;
      return v.analysisFor && v.analysisFor[0] === Math.floor(v.from) && v.analysisFor[1] >= Math.ceil(v.to);
    }, null, { timeout: 15000 });
    // a CPU runs what it switched in until its next switch: the switches
    // that name another prev_pid are said, with the first one a link
    const anom = await page.locator('#switch-anomalies').count();
    check(anom === (info.switch_anomalies ? 1 : 0), 'switch anomalies shown: ' + anom + ' for ' + info.switch_anomalies);
    if (anom)
      check((await page.locator('#switch-anomalies').innerText()).startsWith(info.switch_anomalies + ' sched_switch'),
        'with their count');
    const isr = await page.locator('#isr-body').innerText();
    check(/handler run\(s\) over/.test(isr), 'the ISR list is there: ' + isr.split('\n')[0]);
    if (info.irq_over_threshold) {
      check(await page.locator('#isr-body td.warn').count() > 0, 'ISR warnings are listed: ' + isr);
      await page.screenshot({ path: path.join(outdir, '06-isr.png') });
    }

    // panning frame time (the CPU lanes redrawn from what the browser has)
    const frames = await page.evaluate(async () => {
      const v = window.trawlView;
      v.frames.length = 0;
      for (let i = 0; i < 120; i++) {
        v.pan(0.01); // as a drag does: drawn at once, fetched 40 ms later
        await new Promise(r => requestAnimationFrame(r));
      }
      const f = [...v.frames].sort((a, b) => a - b);
      return { median: f[f.length >> 1], p90: f[Math.floor(f.length * 0.9)], n: f.length };
    });
    console.log('frame time while panning: median ' + frames.median.toFixed(2) + ' ms, p90 ' + frames.p90.toFixed(2) + ' ms over ' + frames.n + ' frames');
    // without --follow the page asks for /api/info once
    await page.waitForTimeout(Math.max(0, 5000 - (Date.now() - loadedAt)));
    const open = (Date.now() - loadedAt) / 1000;
    check(seen.info === 1 && !info.follow &&
      await page.locator('#follow').isHidden(),
    'without --follow: no polling (' + seen.info + ' /api/info in ' + open.toFixed(1) + ' s), no indicator');
    check(seen.errors.length === 0, 'no errors in the page: ' + seen.errors.slice(0, 3).join(' | '));
    await context.close();
    await followChecks(browser);
  } finally {
    await browser.close();
    p.kill('SIGINT');
  }
  if (failures.length) { console.log(failures.length + ' failures'); process.exit(1); }
  console.log('trawl view in chromium: all checks passed');
}

main().catch(e => { console.log('FAIL: ' + e.stack); process.exit(1); });
