// The glue under Node (no browser): runs one configuration as the page's
// worker does and prints the result JSON on stdout. tests/web/compare.py
// compares it with `sdpa-var --format json` for the same options.
//   node web/test/node_run.js MODULE.js '{"dk":64,"n":64,"trials":3,"seed":7,"scale":"sqrt"}'
'use strict';
const path = require('path');
const factory = require(path.resolve(process.argv[2]));
const o = JSON.parse(process.argv[3]);
factory().then((M) => {
  const begin = M.cwrap('svw_begin', 'number', ['string', 'number', 'number', 'number', 'number']);
  const step = M.cwrap('svw_step', 'number', ['number', 'number']);
  const result = M.cwrap('svw_result', 'number', ['number']);
  const error = M.cwrap('svw_error', 'string', []);
  // the worker's pairs (web/app/worker.js): the library reads each value
  const pairs = [['d_k', o.dk], ['n_q', o.n], ['n_k', o.n], ['scale', o.scale],
    ['trials', o.trials], ['seed', o.seed], ['causal', o.causal ? 1 : undefined],
    ['grad', o.grad ? 1 : undefined]].filter(([, v]) => v !== undefined);
  const r = begin(pairs.map(([k, v]) => `${k}=${v}`).join('\n'), o.hist || 0,
    o.observed === undefined ? NaN : o.observed, 0, 0);
  if (!r) throw new Error(error());
  let done = 0;
  while (done < o.trials) {
    done = step(r, 1000);
    if (done < 0) throw new Error(error());
  }
  const p = result(r);
  if (!p) throw new Error(error());
  process.stdout.write(M.UTF8ToString(p) + '\n');
  console.error('pcg32(42, 54) = 0x' + (M._svw_pcg_check() >>> 0).toString(16));
}).catch((e) => { console.error('node_run: ' + e.message); process.exit(1); });
