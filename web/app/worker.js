// The page's worker: loads the engine (sdpa_var.js, the library compiled
// to WebAssembly with its glue web/src/sv_web.c) and runs the jobs the
// page posts (main.js runs two: one for the controls' runs, one for the
// checks, the row editor and the puzzle), trials in chunks, posting progress between them. No
// statistic is computed here: every number comes from the glue's JSON
// (the library's column table). The page cancels a job by terminating
// this worker and starting a new one (a chunk cannot be interrupted).
'use strict';
importScripts('sdpa_var.js');

let M = null;
let api = null;

function bind(mod) {
  const c = (name, ret, args) => mod.cwrap(name, ret, args);
  const N = 'number';
  return {
    begin: c('svw_begin', N, ['string', N, N, N, N]),
    step: c('svw_step', N, [N, N]),
    result: c('svw_result', N, [N]),
    free: c('svw_free', null, [N]),
    error: c('svw_error', 'string', []),
    logits: c('svw_logits', N, [N, N, N]),
    example: c('svw_example', N, ['string']),
    params: c('svw_params', 'string', []),
    check: c('svw_check', 'string', ['string', N]),
    version: c('svw_version', 'string', []),
  };
}

function text(ptr) {
  if (!ptr) throw new Error(api.error());
  return JSON.parse(M.UTF8ToString(ptr));
}

// Trials per chunk: about 2e7 multiply-adds each, so progress comes often.
function chunkOf(o) {
  const work = o.dk * o.n * o.n * (o.grad ? 4 : 1);
  return Math.max(1, Math.min(o.trials, Math.floor(2e7 / work)));
}

// The experiment of the page's options as the glue reads it: name=value
// pairs of the library's parameters (param.h), one a line. An option left
// out (seed in the puzzle) is the library's default; the library reads and
// checks each value, and its message names the pair at fault.
function pairs(o) {
  const p = [['d_k', o.dk], ['n_q', o.n], ['n_k', o.n],
    ['scale', o.scale === 'custom' ? o.custom : o.scale], ['trials', o.trials], ['seed', o.seed]];
  if (o.causal) p.push(['causal', 1]);
  if (o.grad) p.push(['grad', 1]);
  return p.filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`).join('\n');
}

// One configuration: {dk, n, scale, custom, causal, trials, seed, grad,
// hist, observed, s2_bins, s2_hi}; progress(fraction) between chunks.
function runOne(o, progress) {
  const r = api.begin(pairs(o), o.hist || 0, o.observed === undefined ? NaN : o.observed,
    o.s2_bins || 0, o.s2_hi || 0);
  if (!r) throw new Error(api.error());
  try {
    const chunk = chunkOf(o);
    let done = 0;
    M.onProgress = (d, t) => progress((done + d / t) / o.trials);
    while (done < o.trials) {
      done = api.step(r, chunk);
      if (done < 0) throw new Error(api.error());
      progress(done / o.trials);
    }
    return text(api.result(r));
  } finally {
    M.onProgress = null;
    api.free(r);
  }
}

function logits(values, scale) {
  const p = M._malloc(8 * Math.max(1, values.length));
  try {
    M.HEAPF64.set(values, p / 8);
    return text(api.logits(p, values.length, scale));
  } finally {
    M._free(p);
  }
}

function job(msg, post) {
  const t0 = performance.now();
  let last = 0;
  const progress = (f) => {
    const now = performance.now();
    if (now - last > 100) {
      last = now;
      post({ type: 'progress', fraction: f });
    }
  };
  let data;
  switch (msg.kind) {
    case 'run':
      data = runOne(msg.opts, progress);
      break;
    case 'sweep': // one configuration per d_k, in order
      data = msg.list.map((o, i) => runOne(o, (f) => progress((i + f) / msg.list.length)));
      break;
    case 'example':
      data = text(api.example(pairs(msg.opts)));
      break;
    case 'check': // "" or the library's message on the run's path: nothing runs
      data = api.check(pairs(msg.opts), msg.opts.hist || 0);
      break;
    case 'logits':
      data = logits(msg.values, msg.scale);
      break;
    default:
      throw new Error('unknown job ' + msg.kind);
  }
  post({ type: 'result', data, ms: performance.now() - t0 });
}

const ready = SdpaVar().then((mod) => {
  M = mod;
  api = bind(mod);
  postMessage({ type: 'ready', pcg: (mod._svw_pcg_check() >>> 0).toString(16),
    params: JSON.parse(api.params()), version: api.version() });
});

onmessage = (e) => {
  const msg = e.data;
  const post = (m) => postMessage(Object.assign({ id: msg.id }, m));
  ready.then(() => job(msg, post)).catch((err) => post({ type: 'error', message: String(err.message || err) }));
};
