// The page: reads the controls (controls.js), asks the workers (worker.js)
// for runs of the engine and draws what comes back (plots.js). Every number
// shown is a value of the library's column table (or of the glue's softmax
// of one row); the only arithmetic here draws theory curves from theory
// values the engine returned. Two workers: `engine` runs the experiment of
// the controls and is cancelled (terminated) when a control moves; `quick`
// checks the fields, runs the row editor and the puzzle, and is never
// cancelled, so that neither waits behind a long run. A panel whose numbers
// no longer match the controls is marked stale until it is drawn again.
'use strict';

const SWEEP_DK = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
const SWEEP_N = 128, SWEEP_TRIALS = 4, HIST_BINS = 2400;
const LONG_MS = 60000; // a run expected to take longer is announced, with a shorter one offered
const sv = (window.sv = { state: 'loading', generation: 0, last: {}, times: {} });

// ---- the workers: one job at a time each; cancel = terminate and start afresh ----
function Engine(onReady) {
  return {
    worker: null, jobs: new Map(), next: 1, pcg: null, params: null, onReady,
    spawn() {
      this.worker = new Worker('worker.js');
      this.worker.onmessage = (e) => this.message(e.data);
      this.worker.onerror = (e) => setState('error', 'the engine failed to load: ' + (e.message || e));
    },
    message(m) {
      if (m.type === 'ready') {
        this.pcg = m.pcg;
        this.version = m.version;
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
}
const engine = Engine(null), quick = Engine(null);

function setState(state, text) {
  sv.state = state;
  document.body.dataset.state = state;
  $('state').textContent = text;
}

// ---- stale panels: their numbers are not those of the controls ----
const RUN_PANELS = ['p-numbers', 'p-hist', 'p-row', 'p-entropy', 'p-maxw'];
function markStale(ids, why) {
  for (const id of ids) {
    const panel = $(id);
    panel.classList.add('stale');
    let note = panel.querySelector('.stale-note');
    if (!note) {
      note = document.createElement('p');
      note.className = 'stale-note';
      panel.querySelector('h2').after(note);
    }
    note.textContent = why;
  }
}
function fresh(ids) {
  for (const id of ids) {
    $(id).classList.remove('stale');
    const note = $(id).querySelector('.stale-note');
    if (note) note.remove();
  }
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
  $('numbers-for').textContent = `d_k = ${o.dk}, n = ${o.n}, ${o.trials} trials, scale ${scaleArg(o)}` +
    `${o.causal ? ', causal' : ''}, seed ${o.seed}`;
  const base = `sdpa-var --dk ${o.dk} --n ${o.n} --trials ${o.trials} ${common(o)}`;
  // The table's columns, and the sd of those shown ± s.e. (s.e. = sd / √trials).
  const cols = [];
  for (const row of TABLE) {
    for (const c of row.slice(1)) {
      if (c && !cols.includes(c)) cols.push(c);
      if (c && se[c] !== undefined) cols.push(c + '_sd');
    }
  }
  $('cmd-numbers').textContent = base + ` --format json --columns ${cols.join(',')}`;
  $('se-note').textContent = o.trials > 1
    ? `± one standard error over the ${o.trials} trials: sd / √${o.trials}, ` +
      'the sd the shell prints (its *_sd columns).'
    : '± one standard error of one trial: the theory of its sd, as the shell\'s table.';
  const h = res.hist;
  $('plot-hist').hidden = !h;
  for (const id of ['cmd-hist', 'cmd-hist2']) $(id).closest('.shell').hidden = !h;
  if (!h) {
    if (plots['plot-hist']) { plots['plot-hist'].destroy(); delete plots['plot-hist']; }
    $('hist-outside').textContent = 'No histogram for logn with causal: each row has its own multiplier ' +
      'ln(n_i)/√d_k, and the engine\'s histogram takes one (sdpa-var --histogram refuses it too).';
    $('hist-see').textContent = '';
    $('hist-note').hidden = true;
    fresh(['p-numbers', 'p-hist']);
    editorFollows(s);
    return;
  }
  $('cmd-hist').textContent = base + ` --histogram ${h.raw_bins}`;
  $('cmd-hist2').textContent = base + ` --histogram ${h.scaled_bins}`;
  const total = h.raw.reduce((a, b) => a + b[2], 0) + h.outside[0];
  $('hist-outside').textContent = `Outside the drawn bins: ${h.outside[0].toLocaleString('en-US')} raw and ` +
    `${h.outside[1].toLocaleString('en-US')} scaled of ${total.toLocaleString('en-US')} scores.`;
  histPlot('plot-hist', `d_k = ${o.dk}: raw vs N(0, ${fmt(s.raw_var_theory)}), scaled vs N(0, ${fmt(s.scaled_var_theory)})`,
    res.hist, { raw: 'raw scores', rawTheory: `N(0, ${fmt(s.raw_var_theory)})`, scaled: 'scaled logits',
      scaledTheory: `N(0, ${fmt(s.scaled_var_theory)})` });
  $('hist-note').hidden = o.dk >= 8;
  $('hist-see').textContent = 'What to see: ' + ({
    sqrt: `the red bell is √d_k = ${fmt(Math.sqrt(o.dk))} times wider (and lower) than the blue one; move d_k and only the red one widens.`,
    dk: `1/d_k overshoots: the blue bell is ${fmt(Math.sqrt(o.dk))} times narrower than N(0, 1), so the softmax goes uniform at large d_k.`,
    none: 'no scale: the blue bell is the red one, as wide as √d_k.',
    logn: `ln n/√d_k scales by ${fmt(Math.log(o.n))} more than 1/√d_k: the blue bell is that much wider than N(0, 1).`,
  }[o.scale] || `the blue bell is the red one times ${scaleArg(o)}; 1/√d_k = ${fmt(1 / Math.sqrt(o.dk))} would make it N(0, 1).`);
  fresh(['p-numbers', 'p-hist']);
  editorFollows(s);
}
// The editor's scale follows the run's (unless typed), and its table with it.
function editorFollows(s) {
  if (!$('row-scale').dataset.edited && $('row-scale').value !== String(s.scale_factor)) {
    $('row-scale').value = s.scale_factor;
    editor();
  }
}

function showRow(res, o) {
  const keys = res.logits.map((_, j) => j);
  const pts = keys.length <= 64;
  const all = res.raw.weights.concat(res.scaled.weights).filter((w) => w > 0);
  const floor = 10 ** Math.floor(Math.log10(Math.max(1e-30, Math.min(...all))));
  plot('plot-row', `query 0 against ${keys.length} keys`, 'line', [
    lineSet('raw', keys, res.raw.weights, COLOURS.raw, { width: 1, points: pts }),
    lineSet('scaled', keys, res.scaled.weights, COLOURS.scaled, { width: 1, points: pts }),
    lineSet(`uniform 1/n = ${fmt(1 / keys.length)}`, [0, keys.length - 1], [1 / keys.length, 1 / keys.length], '#555', { dash: [2, 3] })],
  { x: axis('key', { min: 0, max: keys.length - 1 }),
    y: { type: 'logarithmic', min: Math.max(floor, 1e-30), max: 1, title: { display: true, text: 'weight (log scale)' },
      ticks: { callback: (v) => (Number.isInteger(Math.log10(v) + 1e-9) || Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9
        ? Number(v).toExponential(0) : '') } } });
  $('row-stats').textContent = `raw: max weight ${fmt(res.raw.max_weight)}, H = ${fmt(res.raw.entropy)} nats, ` +
    `e^H = ${fmt(res.raw.eff_keys)} keys · scaled: max weight ${fmt(res.scaled.max_weight)}, ` +
    `H = ${fmt(res.scaled.entropy)}, e^H = ${fmt(res.scaled.eff_keys)}`;
  $('cmd-row').closest('.shell').hidden = false;
  $('cmd-row').textContent = `sdpa-var --dk ${o.dk} --n ${Math.min(o.n, 4096)} --scale ${scaleArg(o)} --seed ${o.seed} --example`;
  fresh(['p-row']);
}

const PER_ROW_WHY = 'logn with causal scales each row by its own multiplier ln(n_i)/√d_k';
function noRow() {
  if (plots['plot-row']) { plots['plot-row'].destroy(); delete plots['plot-row']; }
  $('plot-row').textContent = '';
  $('row-stats').textContent = `No single row here: ${PER_ROW_WHY} (sdpa-var --example refuses it too).`;
  $('cmd-row').closest('.shell').hidden = true;
  fresh(['p-row']);
}

function showSweep(rows, o) {
  const grad = rows[0].summary.raw_grad_keys !== undefined;
  const get = (k) => (r) => r.summary[k];
  const dash = [8, 5];
  sweepPlot('plot-entropy', 'entropy H (nats)', rows, [
    { label: 'raw', colour: COLOURS.raw, get: get('raw_entropy') },
    { label: 'scaled', colour: COLOURS.scaled, get: get('scaled_entropy') },
    { label: 'ln n − σ²/2 (theory, scaled)', colour: COLOURS.scaled, dash, get: get('scaled_entropy_approx') },
    { label: 'ln n (uniform)', colour: '#555', dash: [2, 3], get: get('entropy_bound') }], o.dk, 'H (nats)');
  sweepPlot('plot-effkeys', 'e^H: keys that carry the attention', rows, [
    { label: 'raw', colour: COLOURS.raw, get: get('raw_eff_keys') },
    { label: 'scaled', colour: COLOURS.scaled, get: get('scaled_eff_keys') },
    { label: 'exp(ln n − σ²/2) (theory)', colour: COLOURS.scaled, dash, get: (r) => Math.exp(r.summary.scaled_entropy_approx) }],
  o.dk, 'keys');
  sweepPlot('plot-maxw', 'max weight of a row', rows, [
    { label: 'raw', colour: COLOURS.raw, get: get('raw_max_weight') },
    { label: 'scaled', colour: COLOURS.scaled, get: get('scaled_max_weight') }], o.dk, 'weight');
  const last = rows[rows.length - 1].summary;
  if (grad) {
    sweepPlot('plot-grad', 'keys the gradient reaches', rows, [
      { label: 'raw', colour: COLOURS.raw, get: get('raw_grad_keys') },
      { label: 'scaled', colour: COLOURS.scaled, get: get('scaled_grad_keys') }], o.dk, 'keys');
    $('grad-reach').textContent = `at d_k = 1024 the raw gradient reaches ${fmt(last.raw_grad_keys, 2)} keys, the scaled one ` +
      `${fmt(last.scaled_grad_keys, 2)}`;
  } else {
    if (plots['plot-grad']) { plots['plot-grad'].destroy(); delete plots['plot-grad']; }
    $('plot-grad').textContent = `No gradient here: ${PER_ROW_WHY} (sdpa-var --grad refuses it too).`;
    $('grad-reach').textContent = 'not run with logn and causal';
  }
  const n = Math.min(o.n, SWEEP_N);
  const cmd = `sdpa-var --dk 1:1024 --n ${n} --trials ${SWEEP_TRIALS} ${common(o)}${grad ? ' --grad' : ''} --format json`;
  $('cmd-sweep').textContent = cmd;
  $('cmd-sweep2').textContent = cmd;
  for (const id of ['sweep-mark', 'sweep-mark2']) {
    $(id).textContent = o.dk >= 1 && o.dk <= 1024 ? `The dotted green line marks the current d_k = ${o.dk}.`
      : `The current d_k = ${o.dk} is past the sweep's 1 … 1024.`;
  }
  fresh(['p-entropy', 'p-maxw']);
}

// ---- the runs ----
// A control moved or a value typed: the panels are stale at once, the run
// starts after a pause (delay ms: longer while typing). fromHistory: the
// settings came from Back or Forward, whose entry is not written again.
let timer = null;
function schedule(delay, fromHistory) {
  if (!engine.params) return; // the first run, once the table is in, reads the fields
  clearTimeout(timer);
  engine.cancel();
  sv.generation++;
  $('estimate').hidden = true;
  markStale(RUN_PANELS, 'Out of date: these numbers are for the settings before the change; rerunning…');
  setState('waiting', 'waiting…');
  timer = setTimeout(() => check(fromHistory), typeof delay === 'number' ? delay : 120);
}
const TYPING_MS = 700;

// The fields through the library's rules (quick worker): its message beside
// the field and no run, or the run.
async function check(fromHistory) {
  const gen = sv.generation, o = options();
  let message = o.problem;
  try {
    if (!message) message = (await quick.run({ kind: 'check', opts: Object.assign({ hist: HIST_BINS }, o) })).data;
  } catch (err) {
    message = err.message;
  }
  if (gen !== sv.generation) return;
  showFieldError(message);
  if (message) {
    markStale(RUN_PANELS, `Not run: ${message}. These numbers are for earlier settings.`);
    setState('error', 'not run: ' + message);
    return;
  }
  writeUrl(o, fromHistory);
  update(numeric(o));
}

// The work of a run in units of the products and the softmax (n² (d_k + 8)
// a trial), timed on the last run of the controls: ms a unit.
const work = (o) => o.trials * o.n * o.n * (o.dk + 8);
function offerShorter(o, expectedMs, how) {
  const perTrial = expectedMs / o.trials;
  const fit = Math.max(1, Math.floor(LONG_MS / perTrial));
  const est = $('estimate');
  est.hidden = false;
  est.textContent = `This run needs about ${Math.max(1, Math.round(expectedMs / 60000))} min ` +
    `(${fmt(perTrial / 1000, 2)} s a trial, ${how}). `;
  if (fit < o.trials) {
    const b = document.createElement('button');
    b.type = 'button';
    b.id = 'shorter';
    const mins = fit * perTrial / 60000;
    b.textContent = `run ${fit} trial${fit > 1 ? 's' : ''} instead` +
      (mins > 1.5 ? ` (about ${Math.round(mins)} min)` : '');
    b.addEventListener('click', () => { $('trials').value = String(fit); schedule(); });
    est.append(b);
  }
}

async function update(o) {
  const gen = sv.generation;
  const t0 = performance.now();
  const live = () => gen === sv.generation;
  $('estimate').hidden = true;
  $('progress').value = 0;
  let measured = false;
  const bar = (f) => { if (live()) $('progress').value = f; };
  if (sv.rate && sv.rate * work(o) > LONG_MS) offerShorter(o, sv.rate * work(o), 'from the last run\'s speed');
  const mainBar = (f) => {
    bar(f);
    const ms = performance.now() - t0;
    if (!measured && live() && f > 0 && ms > 1500) {
      measured = true;
      if (ms / f > LONG_MS) offerShorter(o, ms / f, 'measured on this run');
      else $('estimate').hidden = true;
    }
  };
  try {
    setState('running', `running ${o.trials} trial${o.trials > 1 ? 's' : ''} of ${o.n} × ${o.n}, d_k = ${o.dk}…`);
    const main = await engine.run({ kind: 'run', opts: Object.assign({ hist: HIST_BINS }, o) }, mainBar);
    if (!live()) return;
    $('estimate').hidden = true;
    sv.last.main = main.data;
    sv.times.main = performance.now() - t0;
    if (sv.times.main > 30) sv.rate = sv.times.main / work(o);
    if (sv.times.first === undefined) sv.times.first = performance.now();
    showNumbers(main.data, o);
    // logn with causal scales each row by its own multiplier: the engine
    // (as the CLI) runs neither one row (--example) nor the gradient then.
    const perRow = o.scale === 'logn' && o.causal;
    if (perRow) {
      noRow();
    } else {
      setState('running', 'one row…');
      const ex = await engine.run({ kind: 'example', opts: o });
      if (!live()) return;
      sv.last.example = ex.data;
      showRow(ex.data, o);
    }
    setState('running', 'the d_k sweep…');
    const list = SWEEP_DK.map((dk) => Object.assign({}, o, { dk, n: Math.min(o.n, SWEEP_N), trials: SWEEP_TRIALS, grad: !perRow }));
    const sweep = await engine.run({ kind: 'sweep', list }, bar);
    if (!live()) return;
    sv.last.sweep = sweep.data;
    showSweep(sweep.data, o);
    bar(1);
    $('timing').textContent = `first result ${Math.round(sv.times.first)} ms after load; ` +
      `this run ${Math.round(sv.times.main)} ms`;
    setState('idle', `done: ${o.trials} trials in ${Math.round(sv.times.main)} ms (engine self-check PCG32 = 0x${engine.pcg})`);
  } catch (err) {
    if (!err.cancelled && live()) {
      // Abandoned: nothing reruns; the panels not drawn say so.
      $('estimate').hidden = true;
      for (const id of RUN_PANELS) {
        if ($(id).classList.contains('stale')) markStale([id], `Not run: ${err.message}. These numbers are for earlier settings.`);
      }
      setState('error', 'error: ' + err.message);
    }
  }
}

// The puzzle on the quick worker: it neither cancels nor waits for the run
// of the controls, whose panels stay as they are.
async function puzzle() {
  if (!quick.params) return;
  $('puzzle').disabled = true;
  $('puzzle-state').textContent = 'running 100 000 trials of 2 × 2…';
  try {
    // the library's default seed and scale, as `sdpa-var --dk 2 --n 2 ...`
    const res = await quick.run({ kind: 'run', opts: { dk: 2, n: 2, causal: false, trials: 100000,
      observed: 1.6, s2_bins: 80, s2_hi: 8 } });
    const s = res.data.summary;
    sv.last.puzzle = res.data;
    const bins = res.data.s2, x = bins.map(([lo, hi]) => (lo + hi) / 2);
    // The marks as vertical lines (datasets: in the legend and the text alternative).
    const top = Math.max(...bins.map((b) => b[2]));
    const mark = (label, v, colour, dash) => lineSet(`${label} ${fmt(v)}`, [v, v], [0, top], colour, { dash });
    plot('plot-puzzle', 's² of the 4 scores, 100 000 trials', 'bar',
      [barSet('trials', x, bins.map((b) => b[2]), '#9467bd'), mark('numpy:', 1.6, COLOURS.mark),
        mark('median', s.raw_var_q50, '#ff7f0e', [6, 4]), mark('σ² = d_k =', s.raw_var_theory, COLOURS.theory, [2, 3])],
      { x: axis('sample variance s²', { offset: false, grid: { offset: false } }), y: axis('trials', { beginAtZero: true }) });
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
    $('puzzle-state').textContent = 'puzzle done';
  } catch (err) {
    $('puzzle-state').textContent = 'error: ' + err.message;
  } finally {
    $('puzzle').disabled = false;
  }
}

// The row editor on the quick worker, at once whatever the main run does;
// an answer to an older row is dropped.
let editorSeq = 0;
async function editor() {
  const seq = ++editorSeq;
  const values = $('logits').value.split(/[\s,;]+/).filter((t) => t !== '').map(Number);
  const scale = Number($('row-scale').value);
  const out = $('editor-out');
  if (!values.length || values.some((v) => !Number.isFinite(v)) || !(scale > 0)) {
    out.textContent = 'logits: numbers separated by commas; scale: a positive number';
    $('cmd-logits').textContent = '';
    return;
  }
  if (!quick.params) return; // the first call comes once the worker is ready
  try {
    const res = (await quick.run({ kind: 'logits', values, scale })).data;
    if (seq !== editorSeq) return;
    sv.last.logits = res;
    $('cmd-logits').textContent = `sdpa-var --logits=${values.join(',')} --scale none,${scale}`;
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
    if (seq === editorSeq) out.textContent = 'error: ' + err.message;
  }
}

// ---- wiring ----
function link(sliderId, fieldId) {
  $(sliderId).addEventListener('input', () => {
    $(fieldId).value = Math.min(Number($(fieldId).max), 2 ** Number($(sliderId).value));
    syncSliders(); // its spoken value at once
    schedule();
  });
  typed(fieldId);
}
// A number field: stale at once while typing, the run after a pause;
// change (Enter, leaving the field) runs at once.
function typed(id) {
  $(id).addEventListener('input', () => { syncSliders(); schedule(TYPING_MS); });
  $(id).addEventListener('change', () => schedule());
}

function start() {
  addCopyButtons();
  if (location.protocol === 'file:') {
    $('fileproto').hidden = false;
    setState('error', 'open this page through a web server (see above)');
    return;
  }
  // Both workers ready: the fields from the library's table and the URL, then the run.
  let ready = 0;
  const both = () => {
    if (++ready < 2) return;
    fillDefaults(engine.params);
    $('version').textContent = engine.version || '';
    readUrl();
    sv.generation++;
    check(true);
    editor();
  };
  engine.onReady = both;
  quick.onReady = both;
  engine.spawn();
  quick.spawn();
  link('dk-slider', 'dk');
  link('n-slider', 'n');
  $('scale').addEventListener('change', () => { syncSliders(); schedule(); });
  $('causal').addEventListener('change', () => schedule());
  for (const id of ['custom', 'trials', 'seed']) typed(id);
  // Back and Forward: the settings of that entry, run again.
  window.addEventListener('popstate', () => { readUrl(); schedule(0, true); });
  $('puzzle').addEventListener('click', puzzle);
  $('logits').addEventListener('input', editor);
  $('row-scale').addEventListener('input', () => { $('row-scale').dataset.edited = '1'; editor(); });
}
start();
