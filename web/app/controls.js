// The page's controls: the fields and sliders, their defaults and bounds
// from the library's parameter table, the settings in the URL, the
// library's message beside a field it refuses, the copy buttons of the
// shell commands, and the formatting of numbers. main.js runs the engine.
'use strict';

const $ = (id) => document.getElementById(id);

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
// empty field is set back to its default; a value above the page's own
// largest (n = 65 537) is set back to that largest, which is what runs.
function options() {
  const d = defaults();
  const text = (id) => {
    let t = $(id).value.trim();
    if (t === '') { t = d[id]; $(id).value = t; }
    return t;
  };
  const capped = (id, hi) => {
    const t = text(id);
    if (/^\d+$/.test(t) && Number(t) > hi) { $(id).value = String(hi); return String(hi); }
    return t;
  };
  const scale = $('scale').value;
  const o = {
    dk: capped('dk', PAGE.dkMax), n: capped('n', PAGE.nMax), scale,
    custom: scale === 'custom' ? text('custom') : 0,
    causal: $('causal').checked, trials: capped('trials', PAGE.trialsMax), seed: text('seed'),
  };
  syncSliders();
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
    if (['sqrt', 'dk', 'none'].includes(s)) $('scale').value = s;
    else { $('scale').value = 'custom'; $('custom').value = s; }
  }
  if (q.has('causal')) $('causal').checked = ['1', 'true', 'on'].includes(q.get('causal'));
  syncSliders();
}
function writeUrl(o) {
  const q = new URLSearchParams({ dk: o.dk, n: o.n, scale: scaleArg(o), causal: o.causal ? '1' : '0',
    seed: o.seed, trials: o.trials });
  history.replaceState(null, '', '?' + q.toString());
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
    b.setAttribute('aria-label', 'copy the shell command');
    b.addEventListener('click', () => copyText(code.textContent).then((ok) => {
      b.textContent = ok ? 'copied' : 'select and copy';
      setTimeout(() => { b.textContent = 'copy'; }, 1500);
    }));
    code.after(' ', b);
  }
}
