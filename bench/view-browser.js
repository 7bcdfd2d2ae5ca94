// SPDX-License-Identifier: MIT
// bench/bench-view.py's browser part: from starting `trawl view FILE` to
// the first full draw in chromium (playwright-core), then the frame time of
// the canvas while panning by 1 % of the window per frame (the CPU lanes
// and every default lane, redrawn from the columns the browser holds while
// the next window is fetched). Prints one JSON line.
'use strict';
const { chromium } = require('playwright-core');
const { spawn } = require('child_process');
const readline = require('readline');

const [trawl, trace] = process.argv.slice(2);

(async () => {
  const t0 = Date.now();
  const p = spawn(trawl, ['view', trace, '--port', '0', '--no-cache'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise(r => readline.createInterface({ input: p.stdout })
    .once('line', l => r(l.replace('trawl view: serving ', ''))));
  const tServing = Date.now() - t0;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox'] });
  try {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => +(document.body.dataset.draws || 0) >= 1, null, { timeout: 120000 });
    const tDraw = Date.now() - t0;
    const pan = await page.evaluate(async () => {
      const v = window.trawlView;
      v.setWindow(v.info.first, v.info.first + (v.info.last - v.info.first) / 20);
      await new Promise(r => setTimeout(r, 500));
      v.frames.length = 0;
      const t = performance.now();
      for (let i = 0; i < 240; i++) {
        v.pan(0.01); // as a drag does: drawn at once, fetched 40 ms later
        await new Promise(r => requestAnimationFrame(r));
      }
      const wall = performance.now() - t;
      const f = [...v.frames].sort((a, b) => a - b);
      return { draws: f.length, median_ms: f[f.length >> 1], p90_ms: f[Math.floor(f.length * 0.9)],
        max_ms: f[f.length - 1], fps: 240 / (wall / 1000), fetch_ms: v.lastFetchMs };
    });
    console.log(JSON.stringify({ serving_s: tServing / 1000, first_draw_s: tDraw / 1000, pan }));
  } finally {
    await browser.close();
    p.kill('SIGINT');
  }
})().catch(e => { console.log(String(e.stack)); process.exit(1); });
