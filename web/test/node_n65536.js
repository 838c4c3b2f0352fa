// The page's largest n under Node (ctest web.n65536, through
// tests/web/node_test.sh): the engine compiled to 32-bit WebAssembly takes
// n = 65 536 (2^32 scores, a count the library keeps in 64 bits) and still
// refuses what cannot be allocated. A whole trial of 65 536 x 65 536 takes
// about a minute even at d_k 1, so this runs its plan and its first 4096
// query rows (as --q-rows 0:4096); the wrapper compares a whole trial with
// the CLI when SV_WEB_FULL=1.
//   node web/test/node_n65536.js MODULE.js
'use strict';
const path = require('path');
const factory = require(path.resolve(process.argv[2]));

factory().then((M) => {
  const N = 'number';
  const begin = M.cwrap('svw_begin', N, ['string', N, N, N, N]);
  const bytes = M.cwrap('svw_bytes', N, [N]);
  const rows = M.cwrap('svw_rows', N, [N, N]);
  const free = M.cwrap('svw_free', null, [N]);
  const error = M.cwrap('svw_error', 'string', []);
  // dk, n, the library's defaults otherwise (one trial), no extras
  const run = (dk, n) => begin(`d_k=${dk}\nn_q=${n}\nn_k=${n}`, 0, NaN, 0, 0);
  let bad = 0;
  const check = (ok, what) => {
    console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
    if (!ok) bad = 1;
  };

  // The page's largest run: accepted, and its workspace small (no n^2).
  let r = run(64, 65536);
  check(r !== 0, `n = 65536, d_k = 64 accepted${r ? '' : ': ' + error()}`);
  if (r) {
    const b = bytes(r);
    check(b > 0 && b < 64 * 2 ** 20, `its plan: ${b} bytes per trial${b < 0 ? ': ' + error() : ''}`);
    free(r);
  }
  // Query rows 0 .. 4095 of a trial of 65 536 keys each: 2^28 scores.
  r = run(1, 65536);
  if (r) {
    const t0 = Date.now();
    const nb = rows(r, 4096);
    check(nb === 1, `n = 65536, d_k = 1, rows 0:4096 ran${nb < 0 ? ': ' + error() : ''} (${Date.now() - t0} ms)`);
    free(r);
  } else {
    check(false, 'n = 65536, d_k = 1 accepted: ' + error());
  }
  // Beyond 32-bit sizes: (n_q + n_k) d_k doubles = 2^32 bytes at d_k 4096.
  r = run(4096, 65536);
  check(r === 0 && error() === 'n_q: the sizes overflow 32 bits',
    `n = 65536, d_k = 4096 refused: ${r ? 'accepted' : error()}`);
  if (r) free(r);
  process.exit(bad);
}).catch((e) => { console.error('node_n65536: ' + (e.stack || e)); process.exit(1); });
