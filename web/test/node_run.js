// The glue under Node (no browser): runs one configuration as the page's
// worker does and prints the result JSON on stdout. tests/web/compare.py
// compares it with `sdpa-var --format json` for the same options.
//   node web/test/node_run.js MODULE.js '{"dk":64,"n":64,"trials":3,"seed":42,"scale":"sqrt"}'
'use strict';
const path = require('path');
const factory = require(path.resolve(process.argv[2]));
const o = JSON.parse(process.argv[3]);
const kinds = { sqrt: 0, dk: 1, none: 2 };
factory().then((M) => {
  const begin = M.cwrap('svw_begin', 'number', ['number', 'number', 'number', 'number', 'number',
    'number', 'number', 'number', 'number', 'number', 'number', 'number', 'number']);
  const step = M.cwrap('svw_step', 'number', ['number', 'number']);
  const result = M.cwrap('svw_result', 'number', ['number']);
  const error = M.cwrap('svw_error', 'string', []);
  const kind = o.scale in kinds ? kinds[o.scale] : 3;
  const custom = kind === 3 ? Number(o.scale) : 0;
  const r = begin(o.dk, o.n, o.n, kind, custom, o.causal ? 1 : 0, o.trials, o.seed,
    o.grad ? 1 : 0, o.hist || 0, o.observed === undefined ? NaN : o.observed, 0, 0);
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
