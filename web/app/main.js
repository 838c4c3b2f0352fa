// The page: reads the controls, asks the worker (worker.js) for runs of the
// engine and draws what comes back with Chart.js. Every number shown is a value
// of the library's column table (or of the glue's softmax of one row); the
// only arithmetic here draws theory curves from theory values the engine
// returned. A control that moves again cancels the runs under way.
'use strict';

const $ = (id) => document.getElementById(id);
const SWEEP_DK = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
const SWEEP_N = 128, SWEEP_TRIALS = 4, HIST_BINS = 2400, N_MAX = 65536;
const sv = (window.sv = { state: 'loading', generation: 0, last: {}, times: {} });

// ---- the worker: one at a time; cancel = terminate and start afresh ----
const engine = {
  worker: null, jobs: new Map(), next: 1, pcg: null, params: null, onReady: null,
  spawn() {
    this.worker = new Worker('worker.js');
    this.worker.onmessage = (e) => this.message(e.data);
    this.worker.onerror = (e) => setState('error', 'the engine failed to load: ' + (e.message || e));
  },
  message(m) {
    if (m.type === 'ready') {
      this.pcg = m.pcg;
      this.params = m.params;
      if (this.onReady) this.onReady(m.params);
      this.onReady = null;
      return;
    }
    const job = this.jobs.get(m.id);
    if (!job) return;
    if (m.type === 'progress') { job.progress(m.fraction); return; }
    this.jobs.delete(m.id);
    if (m.type === 'result') job.resolve(m); else job.reject(new Error(m.message));
  },
  run(msg, progress) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.jobs.set(id, { resolve, reject, progress: progress || (() => {}) });
      this.worker.postMessage(Object.assign({ id }, msg));
    });
  },
  cancel() {
    if (this.jobs.size === 0) return;
    this.worker.terminate();
    for (const job of this.jobs.values()) job.reject(Object.assign(new Error('cancelled'), { cancelled: true }));
    this.jobs.clear();
    this.spawn();
  },
};

// ---- controls ----
// The library's parameter table (svw_params: param.h), from the worker's
// ready message: the defaults and bounds of d_k and seed are the library's.
// n, trials and d_k's largest are the page's own choices (a run that
// answers while a slider moves), not the experiment's.
const PAGE = { n: 256, trials: 20, dkMax: 4096 };
function param(name) { return engine.params.find((p) => p.name === name); }
function dflt(name) { return Number(param(name).default); }
function hiOf(name) { return Math.min(param(name).hi, Number.MAX_SAFE_INTEGER); }
// The fields the library gives a default (index.html leaves them empty),
// set to it; their bounds too.
function fillDefaults() {
  const dk = param('d_k'), seed = param('seed');
  $('scale').value = param('scale').default;
  $('dk').min = String(dk.lo);
  $('dk').value = dk.default;
  $('dk-slider').value = String(Math.round(Math.log2(dflt('d_k'))));
  $('seed').min = String(seed.lo);
  $('seed').value = seed.default;
}
// A field's whole number within its range; a value outside (n = 65 537) is
// refused: the field is set back to the nearest one allowed, which is what runs.
function int(id, lo, hi, dflt) {
  const v = Math.round(Number($(id).value));
  const x = Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : dflt;
  if (String(x) !== $(id).value) $(id).value = String(x);
  return x;
}
function options() {
  const scale = $('scale').value;
  return {
    // n up to 65 536: 2^32 scores, counted in 64 bits by the library.
    dk: int('dk', param('d_k').lo, PAGE.dkMax, dflt('d_k')), n: int('n', 2, N_MAX, PAGE.n), scale,
    // the field's text: the library reads it and says what is wrong with it
    custom: scale === 'custom' ? $('custom').value.trim() : 0,
    causal: $('causal').checked, trials: int('trials', 1, 100000, PAGE.trials),
    seed: int('seed', param('seed').lo, hiOf('seed'), dflt('seed')),
  };
}
function scaleArg(o) { return o.scale === 'custom' ? String(Number(o.custom)) : o.scale; }
function common(o) {
  return `--scale ${scaleArg(o)}${o.causal ? ' --causal' : ''} --seed ${o.seed}`;
}

// ---- formatting ----
function fmt(x, digits) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential((digits || 4) - 1);
  return Number(x.toPrecision(digits || 4)).toString();
}
function cell(col, value, se) {
  const td = document.createElement('td');
  if (col) { td.dataset.col = col; td.dataset.value = value === null ? 'null' : String(value); }
  td.textContent = fmt(value) + (se !== undefined ? ' ± ' + fmt(se, 2) : '');
  return td;
}

function setState(state, text) {
  sv.state = state;
  document.body.dataset.state = state;
  $('state').textContent = text;
}

// ---- plots (Chart.js 3) ----
const plots = {};
Chart.defaults.animation = false;
Chart.defaults.color = '#333';
Chart.defaults.font.family = 'system-ui, sans-serif';
// The panel's width (an empty plot div has none yet), at most 560 px.
function width(el) { return Math.max(240, Math.min(560, el.closest('.panel').clientWidth - 32)); }
// Datasets drawn in their order, a later one on top (Chart.js draws the
// first on top unless told); legend and tooltip keep their order.
const byIndex = (a, b) => a.datasetIndex - b.datasetIndex;
// The legend draws a line (dashed as its curve) for a line, a box for bars.
function legendLabels(chart) {
  return Chart.defaults.plugins.legend.labels.generateLabels(chart).sort(byIndex).map((item) => {
    const ds = chart.data.datasets[item.datasetIndex];
    const isBar = (ds.type || chart.config.type) === 'bar';
    return Object.assign(item, isBar ? { pointStyle: 'rect', lineWidth: 1 }
      : { pointStyle: 'line', lineWidth: Math.max(2, ds.borderWidth), lineDash: ds.borderDash, strokeStyle: ds.borderColor });
  });
}
function axis(title, more) {
  return Object.assign({ type: 'linear', title: { display: !!title, text: title } }, more);
}
// A chart in the div `id`: a fixed size canvas (the chart is drawn again
// for every run, not on resize), the title on top and the legend below.
function plot(id, title, type, datasets, scales, more) {
  const el = $(id);
  if (plots[id]) plots[id].destroy();
  el.textContent = '';
  const canvas = document.createElement('canvas');
  canvas.width = width(el);
  canvas.height = 280;
  el.append(canvas);
  plots[id] = new Chart(canvas, Object.assign({
    type, data: { datasets: datasets.map((d, i) => Object.assign({ order: -i }, d)) },
    options: {
      responsive: false,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      scales,
      plugins: {
        title: { display: true, text: title, font: { size: 15, weight: 'bold' } },
        tooltip: { itemSort: byIndex },
        legend: { position: 'bottom', labels: { usePointStyle: true, pointStyleWidth: 30, generateLabels: legendLabels } },
      },
    },
  }, more));
}
const xy = (xs, ys) => xs.map((x, i) => ({ x, y: ys[i] }));
function barSet(label, xs, ys, colour) {
  return { type: 'bar', label, data: xy(xs, ys), backgroundColor: colour + '66', borderColor: colour, borderWidth: 1,
    barPercentage: 1, categoryPercentage: 0.9 };
}
function lineSet(label, xs, ys, colour, o) {
  o = o || {};
  return { type: 'line', label, data: xy(xs, ys), borderColor: colour, backgroundColor: colour,
    borderWidth: o.width || 2, borderDash: o.dash || [], pointRadius: o.points ? 3 : 0,
    pointBackgroundColor: '#fff', pointBorderColor: colour, fill: false, tension: 0, clip: 5 };
}
// The axis spans the bins, symmetric about 0 when they straddle it, with
// round ticks inside (not widened to the next round number: -6 … 6, not -10 … 10).
function binAxis(bins) {
  let lo = bins[0][0], hi = bins[bins.length - 1][1];
  if (lo < 0 && hi > 0) hi = -(lo = -Math.max(-lo, hi));
  return axis('', { min: lo, max: hi, offset: false, grid: { offset: false }, ticks: { includeBounds: false } });
}
// bins: [lo, hi, count, theory], theory the library's expected count of
// normal draws in [lo, hi) (sv_theory_normal_counts).
function histPlot(id, title, bins, colour) {
  const x = bins.map(([lo, hi]) => (lo + hi) / 2);
  plot(id, title, 'bar', [
    barSet('engine count', x, bins.map((b) => b[2]), colour),
    lineSet('theory', x, bins.map((b) => b[3]), '#222', { dash: [6, 4] })],
  { x: binAxis(bins), y: axis('', { beginAtZero: true }) });
}
// d_k on a log axis, ticks at 1, 4, 16, ... 1024.
const LOG_TICKS = [1, 4, 16, 64, 256, 1024];
function sweepPlot(id, title, rows, series) {
  const dk = rows.map((r) => r.summary.dk);
  plot(id, title, 'line', series.map((s) => lineSet(s.label, dk, rows.map(s.get), s.colour,
    { dash: s.dash, points: !s.dash })), {
    x: { type: 'logarithmic', min: 1, max: 1024, title: { display: true, text: 'd_k' },
      afterBuildTicks: (a) => { a.ticks = LOG_TICKS.map((value) => ({ value })); },
      ticks: { callback: (v) => Number(v).toLocaleString('en-US') } },
    y: axis(''),
  });
}

// ---- panels ----
const TABLE = [
  ['mean', 'raw_mean', 'raw_mean_theory', 'scaled_mean', null],
  ['variance s²', 'raw_var', 'raw_var_expected', 'scaled_var', 'scaled_var_expected'],
  ['entropy H (nats)', 'raw_entropy', 'raw_entropy_approx', 'scaled_entropy', 'scaled_entropy_approx'],
  ['e^H (keys)', 'raw_eff_keys', null, 'scaled_eff_keys', null],
  ['max weight', 'raw_max_weight', null, 'scaled_max_weight', null],
  ['Jacobian trace', 'raw_jac_trace', null, 'scaled_jac_trace', null],
  ['max |logit|', 'raw_max_abs_logit', null, 'scaled_max_abs_logit', null],
];
function showNumbers(res, o) {
  const s = res.summary, se = res.se, body = $('numbers').tBodies[0];
  body.textContent = '';
  for (const [label, raw, rawT, sc, scT] of TABLE) {
    const tr = document.createElement('tr');
    const th = document.createElement('th');
    th.textContent = label;
    tr.append(th, cell(raw, s[raw], se[raw] === undefined ? undefined : se[raw]),
      rawT ? cell(rawT, s[rawT]) : cell(null, null),
      cell(sc, s[sc], se[sc] === undefined ? undefined : se[sc]), scT ? cell(scT, s[scT]) : cell(null, null));
    body.append(tr);
  }
  const base = `sdpa-var --dk ${o.dk} --n ${o.n} --trials ${o.trials} ${common(o)}`;
  $('cmd-numbers').textContent = base + ' --format json';
  $('cmd-hist').textContent = base + ` --histogram ${HIST_BINS}`;
  const h = res.hist;
  histPlot('plot-hist-raw', `raw scores vs N(0, ${fmt(s.raw_var_theory)})`, h.raw, '#d62728');
  histPlot('plot-hist-scaled', `scaled logits vs N(0, ${fmt(s.scaled_var_theory)})`, h.scaled,
    '#1f77b4');
  if (!$('row-scale').dataset.edited) $('row-scale').value = s.scale_factor;
}

function showRow(res, o) {
  const keys = res.logits.map((_, j) => j);
  const pts = keys.length <= 64;
  plot('plot-row', `query 0 against ${keys.length} keys`, 'line', [
    lineSet('raw', keys, res.raw.weights, '#d62728', { width: 1, points: pts }),
    lineSet('scaled', keys, res.scaled.weights, '#1f77b4', { width: 1, points: pts })],
  { x: axis('key', { min: 0, max: keys.length - 1 }), y: axis('weight', { min: 0, max: 1 }) });
  $('row-stats').textContent = `raw: max weight ${fmt(res.raw.max_weight)}, H = ${fmt(res.raw.entropy)} nats, ` +
    `e^H = ${fmt(res.raw.eff_keys)} keys · scaled: max weight ${fmt(res.scaled.max_weight)}, ` +
    `H = ${fmt(res.scaled.entropy)}, e^H = ${fmt(res.scaled.eff_keys)}`;
  $('cmd-row').textContent = `sdpa-var --dk ${o.dk} --n ${Math.min(o.n, 4096)} --scale ${scaleArg(o)} --seed ${o.seed} --example`;
}

function showSweep(rows, o) {
  const get = (k) => (r) => r.summary[k];
  sweepPlot('plot-entropy', 'entropy H (nats)', rows, [
    { label: 'raw', colour: '#d62728', get: get('raw_entropy') },
    { label: 'scaled', colour: '#1f77b4', get: get('scaled_entropy') },
    { label: 'ln n − σ²/2', colour: '#1f77b4', dash: [6, 4], get: get('scaled_entropy_approx') },
    { label: 'ln n', colour: '#555', dash: [2, 3], get: get('entropy_bound') }]);
  sweepPlot('plot-effkeys', 'e^H: keys that carry the attention', rows, [
    { label: 'raw', colour: '#d62728', get: get('raw_eff_keys') },
    { label: 'scaled', colour: '#1f77b4', get: get('scaled_eff_keys') },
    { label: 'exp(ln n − σ²/2)', colour: '#1f77b4', dash: [6, 4], get: (r) => Math.exp(r.summary.scaled_entropy_approx) }]);
  sweepPlot('plot-maxw', 'max weight of a row', rows, [
    { label: 'raw', colour: '#d62728', get: get('raw_max_weight') },
    { label: 'scaled', colour: '#1f77b4', get: get('scaled_max_weight') }]);
  sweepPlot('plot-grad', 'keys the gradient reaches', rows, [
    { label: 'raw', colour: '#d62728', get: get('raw_grad_keys') },
    { label: 'scaled', colour: '#1f77b4', get: get('scaled_grad_keys') }]);
  const n = Math.min(o.n, SWEEP_N);
  const cmd = `sdpa-var --dk 1:1024 --n ${n} --trials ${SWEEP_TRIALS} ${common(o)} --grad --format json`;
  $('cmd-sweep').textContent = cmd;
  $('cmd-sweep2').textContent = cmd;
}

// ---- the runs ----
let timer = null;
function schedule() {
  if (!engine.params) return; // the first run, once the table is in, reads the fields
  clearTimeout(timer);
  engine.cancel();
  setState('waiting', 'waiting…');
  timer = setTimeout(update, 120);
}

async function update() {
  const gen = ++sv.generation, o = options();
  const t0 = performance.now();
  const live = () => gen === sv.generation;
  const bar = (f) => { if (live()) $('progress').value = f; };
  try {
    setState('running', `running ${o.trials} trial${o.trials > 1 ? 's' : ''} of ${o.n} × ${o.n}, d_k = ${o.dk}…`);
    const main = await engine.run({ kind: 'run', opts: Object.assign({ hist: HIST_BINS }, o) }, bar);
    if (!live()) return;
    sv.last.main = main.data;
    sv.times.main = performance.now() - t0;
    if (sv.times.first === undefined) sv.times.first = performance.now();
    showNumbers(main.data, o);
    setState('running', 'one row…');
    const ex = await engine.run({ kind: 'example', opts: o });
    if (!live()) return;
    sv.last.example = ex.data;
    showRow(ex.data, o);
    setState('running', 'the d_k sweep…');
    const list = SWEEP_DK.map((dk) => Object.assign({}, o, { dk, n: Math.min(o.n, SWEEP_N), trials: SWEEP_TRIALS, grad: true,
      custom: o.scale === 'custom' ? o.custom : 0 }));
    const sweep = await engine.run({ kind: 'sweep', list }, bar);
    if (!live()) return;
    sv.last.sweep = sweep.data;
    showSweep(sweep.data, o);
    bar(1);
    $('timing').textContent = `first result ${Math.round(sv.times.first)} ms after load; ` +
      `this run ${Math.round(sv.times.main)} ms`;
    setState('idle', `done: ${o.trials} trials in ${Math.round(sv.times.main)} ms (engine self-check PCG32 = 0x${engine.pcg})`);
  } catch (err) {
    if (!err.cancelled && live()) setState('error', 'error: ' + err.message);
  }
}

async function puzzle() {
  if (!engine.params) return;
  engine.cancel();
  sv.generation++;
  setState('running', 'the puzzle: 100 000 trials of 2 × 2…');
  try {
    // the library's default seed and scale, as `sdpa-var --dk 2 --n 2 ...`
    const res = await engine.run({ kind: 'run', opts: { dk: 2, n: 2, causal: false, trials: 100000,
      observed: 1.6, s2_bins: 80, s2_hi: 8 } }, (f) => { $('progress').value = f; });
    const s = res.data.summary;
    sv.last.puzzle = res.data;
    const bins = res.data.s2, x = bins.map(([lo, hi]) => (lo + hi) / 2);
    const marks = [[1.6, '#2ca02c'], [s.raw_var_q50, '#ff7f0e'], [s.raw_var_theory, '#222']];
    // Vertical lines at 1.6, the median and the theory value.
    const markLines = { id: 'marks', afterDatasetsDraw(chart) {
      const c = chart.ctx, area = chart.chartArea;
      for (const [v, colour] of marks) {
        const px = chart.scales.x.getPixelForValue(v);
        c.save(); c.strokeStyle = colour; c.lineWidth = 2; c.beginPath();
        c.moveTo(px, area.top); c.lineTo(px, area.bottom); c.stroke(); c.restore();
      }
    } };
    plot('plot-puzzle', 's² of the 4 scores, 100 000 trials', 'bar',
      [barSet('trials', x, bins.map((b) => b[2]), '#9467bd')],
      { x: axis('s²', { offset: false, grid: { offset: false } }), y: axis('trials', { beginAtZero: true }) },
      { plugins: [markLines] });
    const ps = $('puzzle-stats');
    ps.textContent = '';
    const span = (col, label, v) => {
      const e = document.createElement('span');
      e.dataset.col = col; e.dataset.value = String(v);
      e.textContent = `${label} ${fmt(v)}`;
      ps.append(ps.childNodes.length ? ' · ' : '', e);
    };
    span('raw_var_q50', 'median s² (orange)', s.raw_var_q50);
    span('raw_var_cdf_observed', 'P(s² ≤ 1.6) (green)', s.raw_var_cdf_observed);
    span('raw_var', 'mean s²', s.raw_var);
    span('raw_var_expected', 'theory E s² =', s.raw_var_expected);
    span('raw_var_theory', 'σ² = d_k (black)', s.raw_var_theory);
    setState('idle', 'puzzle done');
  } catch (err) {
    if (!err.cancelled) setState('error', 'error: ' + err.message);
  }
}

async function editor() {
  const values = $('logits').value.split(/[\s,;]+/).filter((t) => t !== '').map(Number);
  const scale = Number($('row-scale').value);
  const out = $('editor-out');
  if (!values.length || values.some((v) => !Number.isFinite(v)) || !(scale > 0)) {
    out.textContent = 'logits: numbers separated by commas; scale: a positive number';
    return;
  }
  $('cmd-logits').textContent = `sdpa-var --logits=${values.join(',')} --scale none,${scale}`;
  try {
    const res = (await engine.run({ kind: 'logits', values, scale })).data;
    sv.last.logits = res;
    out.textContent = '';
    const t = document.createElement('table');
    t.id = 'editor-table';
    const head = t.createTHead().insertRow();
    for (const h of ['key', 'logit', 'raw weight', `weight at scale ${fmt(scale)}`]) head.append(Object.assign(document.createElement('th'), { textContent: h }));
    const body = t.createTBody();
    values.forEach((v, j) => {
      const tr = body.insertRow();
      tr.append(cell(null, j), cell(null, v), cell('raw_weight_' + j, res.raw.weights[j]), cell('scaled_weight_' + j, res.scaled.weights[j]));
    });
    for (const [label, k] of [['entropy (nats)', 'entropy'], ['e^H', 'eff_keys'], ['max weight', 'max_weight'], ['Jacobian trace', 'jac_trace'], ['‖J‖_F', 'jac_frob']]) {
      const tr = body.insertRow();
      tr.append(Object.assign(document.createElement('th'), { textContent: label }), cell(null, null), cell('raw_' + k, res.raw[k]), cell('scaled_' + k, res.scaled[k]));
    }
    out.append(t);
    if (res.raw.jacobian) {
      for (const k of ['raw', 'scaled']) {
        const jt = document.createElement('table');
        jt.className = 'jac';
        jt.createCaption().textContent = `Jacobian ∂p_i/∂s_j, ${k}`;
        for (const row of res[k].jacobian) {
          const tr = jt.insertRow();
          for (const v of row) tr.append(cell(null, v));
        }
        out.append(jt);
      }
    }
  } catch (err) {
    if (!err.cancelled) out.textContent = 'error: ' + err.message;
  }
}

// ---- wiring ----
function link(sliderId, fieldId) {
  $(sliderId).addEventListener('input', () => {
    $(fieldId).value = Math.min(Number($(fieldId).max), 2 ** Number($(sliderId).value));
    schedule();
  });
  $(fieldId).addEventListener('change', () => {
    const v = Number($(fieldId).value);
    if (v > 0) $(sliderId).value = Math.round(Math.log2(v));
    schedule();
  });
}

function start() {
  if (location.protocol === 'file:') {
    $('fileproto').hidden = false;
    setState('error', 'open this page through a web server (see above)');
    return;
  }
  engine.onReady = () => { fillDefaults(); update().then(editor); };
  engine.spawn();
  link('dk-slider', 'dk');
  link('n-slider', 'n');
  $('scale').addEventListener('change', () => { $('custom').hidden = $('scale').value !== 'custom'; schedule(); });
  for (const id of ['custom', 'causal', 'trials', 'seed']) $(id).addEventListener('change', schedule);
  $('puzzle').addEventListener('click', puzzle);
  $('logits').addEventListener('input', editor);
  $('row-scale').addEventListener('input', () => { $('row-scale').dataset.edited = '1'; editor(); });
}
start();
