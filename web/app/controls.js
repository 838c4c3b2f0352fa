// The page's controls: the fields and sliders, their defaults and bounds
// from the library's parameter table, the settings in the URL, the
// library's message beside a field it refuses, the copy buttons of the
// shell commands, and the formatting of numbers. main.js runs the engine.
'use strict';

const $ = (id) => document.getElementById(id);

// ---- formatting ----
// digits significant digits; keep: with their trailing zeros (a measured
// 1.000 is not the exact 1), for the tables' cells.
function fmt(x, digits, keep) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  const a = Math.abs(x), d = digits || 4;
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(d - 1);
  if (keep && a < 10 ** d) return x.toPrecision(d);
  return Number(x.toPrecision(d)).toString();
}
function cell(col, value, se) {
  const td = document.createElement('td');
  if (col) { td.dataset.col = col; td.dataset.value = value === null ? 'null' : String(value); }
  // An exact integer (a key, a typed logit, 0) as it is; a measured value
  // with its four digits.
  td.textContent = fmt(value, 4, !Number.isInteger(value)) + (se !== undefined ? ' ± ' + fmt(se, 2, true) : '');
  return td;
}

// ---- the fields ----
// The library's parameter table (svw_params: param.h), from the worker's
// ready message: the defaults and bounds of d_k and seed are the library's.
// n, trials and d_k's largest are the page's own choices (a run that
// answers while a slider moves), not the experiment's.
const PAGE = { n: 256, trials: 20, dkMax: 4096, nMax: 65536, trialsMax: 100000, custom: '0.125' };
let PARAMS = null;
function param(name) { return PARAMS.find((p) => p.name === name); }
// Each field's default: an empty field goes back to it.
function defaults() {
  return { dk: param('d_k').default, n: String(PAGE.n), trials: String(PAGE.trials),
    seed: param('seed').default, custom: PAGE.custom };
}
function fillDefaults(params) {
  PARAMS = params;
  const d = defaults();
  $('scale').value = param('scale').default;
  for (const id of ['dk', 'n', 'trials', 'seed', 'custom']) $(id).value = d[id];
  syncSliders();
}
// The sliders and their spoken value follow the fields.
function syncSliders() {
  for (const [slider, field, name] of [['dk-slider', 'dk', 'd_k'], ['n-slider', 'n', 'n']]) {
    const v = Number($(field).value), s = $(slider);
    if (v > 0 && Number.isFinite(v)) s.value = String(Math.round(Math.log2(v)));
    s.setAttribute('aria-valuetext', `${name} = ${$(field).value}`);
  }
  $('custom').hidden = $('scale').value !== 'custom';
}
// The fields as text for the library, which reads and checks them: an
// empty field is set back to its default; a d_k or n above the page's own
// largest (n = 65 537, or 1e5) is set back to that largest, which is what
// runs; trials above the page's largest (1e9) are refused with a message,
// as is a number field the browser could not read (letters: its value is
// then ""), in o.problem: nothing runs.
const NAMES = { dk: 'd_k', n: 'n', trials: 'trials', seed: 'seed', custom: 'scale' };
function options() {
  const d = defaults();
  let problem = '';
  const text = (id) => {
    if ($(id).validity && $(id).validity.badInput) {
      problem = problem || `${NAMES[id]}: not a number (digits only, as 64 or 1e3)`;
      return d[id];
    }
    let t = $(id).value.trim();
    if (t === '') { t = d[id]; $(id).value = t; }
    return t;
  };
  const capped = (id, hi) => {
    const t = text(id), v = Number(t);
    if (Number.isFinite(v) && v > hi) { $(id).value = String(hi); return String(hi); }
    return t;
  };
  const trials = text('trials');
  if (!problem && Number(trials) > PAGE.trialsMax) {
    problem = `trials: '${trials}' is more than this page runs (at most ${PAGE.trialsMax.toLocaleString('en-US')}; ` +
      'the command-line program runs more)';
  }
  const scale = $('scale').value;
  const o = {
    dk: capped('dk', PAGE.dkMax), n: capped('n', PAGE.nMax), scale,
    custom: scale === 'custom' ? text('custom') : 0,
    causal: $('causal').checked, trials, seed: text('seed'),
  };
  syncSliders();
  if (problem) o.problem = problem;
  return o;
}
// The options as numbers, once the library accepted them.
function numeric(o) {
  return Object.assign({}, o, { dk: Number(o.dk), n: Number(o.n), trials: Number(o.trials), seed: o.seed });
}
function scaleArg(o) { return o.scale === 'custom' ? String(o.custom) : o.scale; }
function common(o) {
  return `--scale ${scaleArg(o)}${o.causal ? ' --causal' : ''} --seed ${o.seed}`;
}

// ---- the library's message beside the field it names ----
const FIELD_OF = { d_k: 'dk', n_q: 'n', n_k: 'n', scale: 'custom', trials: 'trials', seed: 'seed', causal: 'causal' };
function showFieldError(message) {
  for (const e of document.querySelectorAll('.field-error')) e.remove();
  for (const e of document.querySelectorAll('[aria-invalid]')) e.removeAttribute('aria-invalid');
  if (!message) return;
  const id = FIELD_OF[message.split(':')[0]] || 'dk';
  const field = $(id).closest('.field');
  const p = document.createElement('span');
  p.className = 'field-error';
  p.id = 'error-' + id;
  p.setAttribute('role', 'alert');
  p.textContent = message;
  field.append(p);
  $(id).setAttribute('aria-invalid', 'true');
  $(id).setAttribute('aria-describedby', p.id);
}

// ---- the settings in the URL: ?dk=128&n=256&scale=sqrt&causal=1&seed=42&trials=20 ----
function readUrl() {
  const q = new URLSearchParams(location.search);
  const set = (id, k) => { if (q.has(k)) $(id).value = q.get(k); };
  set('dk', 'dk'); set('n', 'n'); set('trials', 'trials'); set('seed', 'seed');
  if (q.has('scale')) {
    const s = q.get('scale');
    // a name the menu offers (the scale rules), else a custom multiplier
    if (s !== 'custom' && [...$('scale').options].some((o) => o.value === s)) $('scale').value = s;
    else { $('scale').value = 'custom'; $('custom').value = s; }
  }
  if (q.has('causal')) $('causal').checked = ['1', 'true', 'on'].includes(q.get('causal'));
  syncSliders();
}
// A new entry in the history for new settings (Back returns to the
// previous ones: main.js listens to popstate); the first load, and a
// return through the history, replace.
function writeUrl(o, replace) {
  const q = '?' + new URLSearchParams({ dk: o.dk, n: o.n, scale: scaleArg(o), causal: o.causal ? '1' : '0',
    seed: o.seed, trials: o.trials }).toString();
  if (q === location.search) return;
  if (replace || !location.search) history.replaceState(null, '', q);
  else history.pushState(null, '', q);
}

// ---- copy buttons on the shell commands ----
function copyText(text) {
  const fallback = () => {
    const ta = document.createElement('textarea');
    ta.value = text;
    document.body.append(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    return ok;
  };
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text).then(() => true, fallback);
  return Promise.resolve(fallback());
}
function addCopyButtons() {
  for (const code of document.querySelectorAll('.shell code')) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'copy';
    b.textContent = 'copy';
    // A name of its own: the panel's title (and which command, if two).
    const title = code.closest('.panel').querySelector('h2').textContent.trim();
    b.setAttribute('aria-label', `copy the shell command of “${title}”` +
      (code.dataset.what ? `, ${code.dataset.what}` : ''));
    b.addEventListener('click', () => copyText(code.textContent).then((ok) => {
      b.textContent = ok ? 'copied' : 'select and copy';
      setTimeout(() => { b.textContent = 'copy'; }, 1500);
    }));
    code.after(' ', b);
  }
}
