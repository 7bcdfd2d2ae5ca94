// SPDX-License-Identifier: MIT
// trawl view's event list through a million events and more, in chromium
// (playwright-core): the window set to the whole trace, then the list
// scrolled 40 rows a frame for 300 frames (a fast wheel), and dragged to
// 20 places along its scroll bar. Prints one JSON line: the frame
// intervals while scrolling (requestAnimationFrame to the next), the time
// renderEvents() takes, and how long a place dragged to waits for its rows.
//
//   NODE_PATH=BUILD/tests/view/browser/npm node bench/view-events.js TRAWL TRACE
'use strict';
const { chromium } = require('playwright-core');
const { spawn } = require('child_process');
const readline = require('readline');

const [trawl, trace] = process.argv.slice(2);

(async () => {
  const p = spawn(trawl, ['view', trace, '--port', '0', '--no-cache'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise(r => readline.createInterface({ input: p.stdout })
    .once('line', l => r(l.replace('trawl view: serving ', ''))));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
  try {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => +(document.body.dataset.draws || 0) >= 1, null, { timeout: 120000 });
    // the whole trace, and its list's first page
    await page.waitForFunction(() => {
      const E = window.trawlView.events;
      return E.count > 0 && document.body.dataset.events === String(E.gen) && E.from <= window.trawlView.info.first + 1;
    }, null, { timeout: 120000 });
    const r = await page.evaluate(async () => {
      const v = window.trawlView, E = v.events, l = document.getElementById('events-list');
      const frame = () => new Promise(res => requestAnimationFrame(res));
      const iv = [];
      let last = performance.now();
      for (let i = 0; i < 300; i++) {
        l.scrollTop += 40 * 18;
        await frame();
        const now = performance.now();
        iv.push(now - last);
        last = now;
      }
      // renderEvents() alone, from the rows held
      const t0 = performance.now();
      for (let i = 0; i < 100; i++) l.dispatchEvent(new Event('scroll')), await frame();
      const perFrame = (performance.now() - t0) / 100;
      // dragged along the scroll bar: how long until every row shown is in
      const waits = [];
      for (let k = 1; k <= 20; k++) {
        l.scrollTop = (l.scrollHeight - l.clientHeight) * k / 20.5;
        const s = performance.now();
        for (;;) {
          await frame();
          const rows = [...l.querySelectorAll('.ev-row')];
          if (rows.length >= Math.floor(l.clientHeight / 18) || performance.now() - s > 10000) break;
        }
        waits.push(performance.now() - s);
      }
      const q = (a, f) => { const b = [...a].sort((x, y) => x - y); return b[Math.min(b.length - 1, Math.floor(b.length * f))]; };
      return {
        events: E.count, scaled: E.count * 18 > v.evMaxSpacer,
        frame_interval_median_ms: q(iv, 0.5), frame_interval_p90_ms: q(iv, 0.9),
        fps: 1000 / q(iv, 0.5), raf_with_render_ms: perFrame,
        drag_wait_median_ms: q(waits, 0.5), drag_wait_max_ms: Math.max(...waits),
      };
    });
    console.log(JSON.stringify(r));
  } finally {
    await browser.close();
    p.kill('SIGINT');
  }
})().catch(e => { console.error(e); process.exit(1); });
