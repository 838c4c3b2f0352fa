// The page in a real browser (ctest web.page, through tests/web/page_test.sh):
// Debian's headless Chromium driven by playwright-core. Serves the built
// site, waits for the first result, moves the d_k slider (twice, quickly:
// the first run is cancelled), clicks the puzzle button, types a logits
// row, and writes what the page shows to OUT/page.json for the wrapper to
// compare with the CLI; n = 65 537, above the page's largest n, must be
// set back to 65 536 (the run it starts is cancelled). Optional:
// SV_WEB_SHOTS=DIR saves screenshots, SV_WEB_PERF=1 times one trial of
// 65 536 tokens at d_k 64 (the page's largest n; minutes:
// scripts/web_bench.sh).
//   node web/test/page_test.js SITE_DIR OUT_DIR
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { chromium } = require('playwright-core');

const [site, outDir] = process.argv.slice(2).map((p) => path.resolve(p));
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.txt': 'text/plain' };

function serve() {
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.join(site, name === '/' ? 'index.html' : name);
    if (!file.startsWith(site) || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// The page's numbers: every element with data-col inside `sel`.
function read(page, sel) {
  return page.$$eval(`${sel} [data-col]`, (els) => Object.fromEntries(
    els.map((e) => [e.dataset.col, e.dataset.value === 'null' ? null : Number(e.dataset.value)])));
}
// The controls as the page read them.
function controls(page) {
  return page.evaluate(() => Object.fromEntries(['dk', 'n', 'trials', 'seed'].map(
    (id) => [id, Number(document.getElementById(id).value)])));
}
async function idle(page, gen, timeout) {
  await page.waitForFunction((g) => window.sv.state === 'idle' && window.sv.generation >= g, gen,
    { timeout: timeout || 240000 });
}
async function slide(page, id, log2) {
  await page.$eval(id, (el, v) => { el.value = String(v); el.dispatchEvent(new Event('input')); }, log2);
}

async function shot(page, file) {
  await page.evaluate(() => document.body.classList.add('shot'));
  await page.screenshot({ path: file, fullPage: true });
  await page.evaluate(() => document.body.classList.remove('shot'));
}

async function main() {
  const server = await serve();
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({ executablePath: process.env.SV_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'] });
  const out = { main: [], options: [] };
  const shots = process.env.SV_WEB_SHOTS;
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => { if (m.type() === 'error') console.error('page: ' + m.text()); });
    page.on('pageerror', (e) => console.error('page error: ' + e.message));
    await page.goto(url);
    await idle(page, 1);
    out.first_result_ms = await page.evaluate(() => window.sv.times.first);
    out.pcg = await page.evaluate(() => document.getElementById('state').textContent);
    out.options.push(await controls(page));
    out.main.push(await read(page, '#numbers'));
    if (shots) await shot(page, path.join(shots, 'desktop-dk64.png'));

    // Move d_k: 1024 then at once 256; the first run is cancelled.
    const gen = await page.evaluate(() => window.sv.generation);
    await slide(page, '#dk-slider', 10);
    await page.waitForFunction(() => window.sv.state === 'running', null, { timeout: 10000 });
    await slide(page, '#dk-slider', 8);
    await idle(page, gen + 2);
    out.options.push(await controls(page));
    out.main.push(await read(page, '#numbers'));
    if (out.options[1].dk !== 256) throw new Error('the d_k field reads ' + out.options[1].dk + ', not 256');

    // The puzzle.
    await page.click('#puzzle');
    await page.waitForSelector('#puzzle-stats [data-col]', { timeout: 120000 });
    await idle(page, 0);
    out.puzzle = await read(page, '#puzzle-stats');

    // The row editor: the lecture's row at scale 0.5.
    await page.fill('#row-scale', '0.5');
    await page.fill('#logits', '-20,3,25,-15');
    await page.waitForFunction(() => window.sv.last.logits && window.sv.last.logits.logits.length === 4 &&
      window.sv.last.logits.scale === 0.5, null, { timeout: 30000 });
    await page.waitForSelector('#editor-table [data-col=scaled_weight_3]');
    out.logits = await read(page, '#editor-table');
    if (shots) {
      await shot(page, path.join(shots, 'desktop-dk256-puzzle.png'));
      const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
      await phone.goto(url);
      await idle(phone, 1);
      await shot(phone, path.join(shots, 'phone-dk64.png'));
      await phone.close();
      const file = await browser.newPage({ viewport: { width: 1280, height: 500 } });
      await file.goto('file://' + path.join(site, 'index.html'));
      await file.waitForSelector('#fileproto:not([hidden])');
      await file.screenshot({ path: path.join(shots, 'file-protocol.png') });
      await file.close();
    }
    // Above the largest n: the field is set back to 65 536, which starts;
    // n = 256 then cancels it (the worker is terminated).
    const g0 = await page.evaluate(() => window.sv.generation);
    await page.fill('#n', '65537');
    await page.$eval('#n', (el) => el.dispatchEvent(new Event('change')));
    await page.waitForFunction((g) => window.sv.generation > g && window.sv.state === 'running', g0,
      { timeout: 10000 });
    out.n_above = await page.evaluate(() => ({ field: document.getElementById('n').value,
      state: document.getElementById('state').textContent }));
    if (out.n_above.field !== '65536' || !out.n_above.state.includes('65536 × 65536'))
      throw new Error('n = 65537 was not set back to 65536: ' + JSON.stringify(out.n_above));
    await page.fill('#n', '256');
    await page.$eval('#n', (el) => el.dispatchEvent(new Event('change')));
    await idle(page, g0 + 2);
    out.browser = browser.version();
    if (process.env.SV_WEB_PERF) {
      const g = await page.evaluate(() => window.sv.generation);
      await page.fill('#trials', '1');
      await page.$eval('#trials', (el) => el.dispatchEvent(new Event('change')));
      await idle(page, g + 1);
      await slide(page, '#dk-slider', 6);
      await slide(page, '#n-slider', 16);
      await idle(page, g + 2, 1800000);
      out.perf_65536_ms = await page.evaluate(() => window.sv.times.main);
    }
  } finally {
    await browser.close();
    server.close();
  }
  fs.writeFileSync(path.join(outDir, 'page.json'), JSON.stringify(out, null, 1));
  console.log(`web.page: first result ${Math.round(out.first_result_ms)} ms after load` +
    `; n = 65 537 set back to ${out.n_above.field}` +
    (out.perf_65536_ms ? `; 65 536 tokens at d_k 64: ${Math.round(out.perf_65536_ms)} ms` : ''));
}
main().catch((e) => { console.error('page_test: ' + (e.stack || e)); process.exit(1); });
