// One trial of the page's engine under node, timed in wall and CPU
// seconds (docs/performance.md: measured interleaved with the native
// program on a loaded machine, where CPU seconds compare better).
//   node web/test/node_bench.js build-web/site/sdpa_var.js [N (16384)] [D_K (64)]
'use strict';
const path = require('path');
const factory = require(path.resolve(process.argv[2]));
const n = Number(process.argv[3] || 16384), dk = Number(process.argv[4] || 64);
factory().then((M) => {
  const N = 'number';
  const begin = M.cwrap('svw_begin', N, ['string', N, N, N, N]);
  const step = M.cwrap('svw_step', N, [N, N]);
  const r = begin(`d_k=${dk}\nn_q=${n}\nn_k=${n}\ntrials=1`, 0, NaN, 0, 0);
  const c0 = process.cpuUsage(), t0 = Date.now();
  if (step(r, 1) !== 1) throw new Error('the trial failed');
  const c = process.cpuUsage(c0);
  console.log(`wasm d_k=${dk} n=${n}: wall ${(Date.now() - t0) / 1000} s, cpu ${(c.user + c.system) / 1e6} s`);
});
