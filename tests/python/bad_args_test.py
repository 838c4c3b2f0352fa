"""Bad arguments to sdpa_var.stats and random raise TypeError/ValueError
naming the argument, never abort; and the library leaves the caller's
thread settings alone (torch, OpenBLAS)."""

import ctypes

import numpy as np
import torch

import sdpa_var
from reference import Checker

chk = Checker("python.bad_args")
rng = np.random.default_rng(5)
q = rng.standard_normal((2, 4, 10, 8))
k = rng.standard_normal((2, 2, 10, 8))


def raises(what, exc, word, f, *a, **kw):
    try:
        f(*a, **kw)
    except exc as e:
        chk.ok(word in str(e), what, "message %r does not name %r" % (str(e), word))
        return
    except Exception as e:  # the wrong kind
        chk.ok(False, what, "raised %s: %s, want %s" % (type(e).__name__, e, exc.__name__))
        return
    chk.ok(False, what, "no exception, want %s naming %r" % (exc.__name__, word))


nan_q = q.copy()
nan_q[1, 2, 3, 4] = np.nan
inf_k = k.copy()
inf_k[0, 1, 9, 0] = -np.inf
S = sdpa_var.stats
raises("1-D q", ValueError, "q", S, q[0, 0, 0], k)
raises("5-D k", ValueError, "k", S, q, k[None])
raises("d_k mismatch", ValueError, "k", S, q, k[..., :4])
raises("heads not dividing", ValueError, "heads", S, q[:, :3], k)
raises("batch mismatch", ValueError, "batch", S, q, k[:1])
# No inf from finite input (issue 23 section 2): entries whose sums of
# squares would overflow are refused naming the tensor and the quantity.
big_q = np.where(q > 0, 1e154, -1e154)
raises("q entries 1e154", ValueError, "q: entries up to 1e+154", S, big_q, k * 1e-100)
raises("q entries 1e154 names q_var", ValueError, "q_var", S, big_q, k * 1e-100)
raises("v entries 1e200", ValueError, "raw_out_var", S, q, k, np.where(k > 0, 1e200, -1e200))
chk.ok(np.isfinite(S(q * 1e150, k * 1e-100).q_var).all(), "q entries 1e150 finite q_var",
       "not finite")
raises("NaN in q", ValueError, "q: entry (batch 1, head 2, position 3, column 4) is nan", S,
       nan_q, k)
raises("Inf in k", ValueError, "k", S, q, inf_k)
raises("int q", TypeError, "q", S, q.astype(np.int32), k)
raises("int torch k", TypeError, "k", S, q, torch.ones(2, 2, 10, 8, dtype=torch.int64))
raises("complex q", TypeError, "q", S, q.astype(np.complex128), k)
raises("empty q", ValueError, "q", S, q[:, :, :0], k)
raises("d_k 0", ValueError, "q", S, q[..., :0], k[..., :0])
raises("string q", TypeError, "q", S, "abc", k)
raises("v n_k", ValueError, "v", S, q, k, k[:, :, :5])
raises("v heads", ValueError, "v", S, q, k, q)
# the library's words (sv_spec_check_param), as random() and the CLI say them
raises("causal n_q != n_k", ValueError, "causal: needs n_q = n_k (got n_q=10, n_k=7)", S, q,
       k[:, :, :7], causal=True)
raises("scale 0", ValueError, "scale", S, q, k, scale=0.0)
raises("scale nan", ValueError, "scale", S, q, k, scale=float("nan"))
raises("scale str", TypeError, "scale", S, q, k, scale="sqrt")
raises("scale 1-D tensor", TypeError, "scale", S, q, k, scale=torch.tensor([0.1, 0.2]))
# a 0-dim tensor or array is its number (issue 23)
for zero_dim in (torch.tensor(0.1), np.float64(0.1), np.array(0.1)):
    got = S(q, k, scale=zero_dim).scaled_entropy
    want = S(q, k, scale=float(zero_dim.item())).scaled_entropy  # float32 0.1 for the tensor
    chk.ok(np.array_equal(got, want), "scale 0-dim %r" % (zero_dim,), "differs from its item()")
raises("k None", TypeError, "k", S, q, None)
raises("q None", TypeError, "q", S, None, k)
raises("layout", ValueError, "layout: 'nhd' is not one of bhnd, bnhd", S, q, k, layout="nhd")
# 3-D n x heads x d in layout "bnhd", as the CLI's --layout reads it (the
# library's sv_array_to_bhnd): it was refused here, read there.
got = S(q[0].transpose(1, 0, 2), k[0].transpose(1, 0, 2), layout="bnhd", pool="none")
want = S(q[0], k[0], pool="none")
chk.ok(np.array_equal(got.scaled_entropy, want.scaled_entropy), "bnhd 3-D",
       "%s against %s" % (got.scaled_entropy, want.scaled_entropy))
raises("pool", ValueError, "pool", S, q, k, pool="max")
raises("ddof too big", ValueError, "ddof", S, q[:, :, :1, :], k[:, :, :1, :], ddof=1)
raises("ddof negative", ValueError, "ddof", S, q, k, ddof=-1)
raises("threads", ValueError, "threads", S, q, k, threads=-2)
# bounded as the CLI's --threads, before c_int (2**32 + 1 would wrap to 1)
raises("threads 5000", ValueError, "threads", S, q, k, threads=5000)
raises("threads 2**32+1", ValueError, "threads", S, q, k, threads=2**32 + 1)
raises("threads float", TypeError, "threads", S, q, k, threads=1.5)
raises("huge values", ValueError, "q, k", S, q * 1e40, k * 1e40)
raises("1x1 ddof 1", ValueError, "ddof", S, np.ones((1, 1)), np.ones((1, 1)), ddof=1)
R = sdpa_var.random
raises("random dk 0", ValueError, "dk", R, 0, 10)
raises("random dist", ValueError, "dist", R, 4, 10, dist="cauchy")
raises("random unknown", TypeError, "bogus", R, 4, 10, bogus=1)
raises("random causal nq", ValueError, "causal", R, 4, 10, n_q=3, causal=True)
raises("random nu", ValueError, "nu", R, 4, 10, dist="t", nu=3.0)
raises("random q_mean", ValueError, "q_mean", R, 4, 10, q_mean=1e300)
raises("random scale", ValueError, "scale", R, 4, 10, scale="cube")
raises("random trials", ValueError, "trials: '1.5' is not a positive integer", R, 4, 10,
       trials=1.5)
raises("random trials str", TypeError, "trials", R, 4, 10, trials="3")
raises("random ddof 2**40", ValueError, "ddof", R, 4, 10, ddof=2**40)
raises("random causal 2", ValueError, "causal: '2' is not 0 or 1", R, 4, 10, causal=2)
# stats() reads causal as random() does (it took bool(causal): 2 and "no"
# ran causal), and text with a NUL is refused (C would stop at it).
raises("stats causal 2", ValueError, "causal: '2' is not 0 or 1", S, q, k, causal=2)
raises("stats causal 'no'", TypeError, "causal", S, q, k, causal="no")
raises("random dist NUL", ValueError, "NUL", R, 4, 10, dist="normal\x00x")
raises("random scale NUL", ValueError, "NUL", R, 4, 10, scale="1\x00b")
raises("random cross", ValueError, "cross", R, 4, 10, cross=True)
raises("random logn n_k 1", ValueError, "n_k >= 2", R, 4, 1, scale="logn")
raises("random logn causal values", ValueError, "not with values", R, 4, 10, scale="logn",
       causal=True, values=True)
raises("random logn window grad", ValueError, "not with grad", R, 4, 10, scale="logn", window=3,
       grad=True)
raises("random logn causal plant", ValueError, "not with plant", R, 4, 10, scale="logn",
       causal=True, plant=0.5)
raises("random window grad", ValueError, "window", R, 4, 10, window=3, grad=True)
# a size-1 problem with ddof 0 is fine
s = S(np.ones((1, 1)), np.ones((1, 1)), ddof=0)
chk.ok(s.raw_var[0, 0] == 0.0, "1x1 ddof 0", str(s.raw_var))

# Thread settings: the caller's torch and OpenBLAS counts survive stats().
torch.set_num_threads(2)
before = torch.get_num_threads()
S(q, k)
chk.ok(torch.get_num_threads() == before, "torch threads",
       "%d before, %d after" % (before, torch.get_num_threads()))
blas = None
for path in open("/proc/self/maps").read().split():
    if "libopenblas" in path and path.startswith("/"):
        blas = ctypes.CDLL(path)
        break
if blas is None:
    chk.ok(False, "openblas loaded", "no libopenblas in /proc/self/maps")
else:
    blas.openblas_set_num_threads(2)
    S(q, k)
    after = blas.openblas_get_num_threads()
    # sv_engine_run restores the caller's count (engine.h).
    chk.ok(after == 2, "openblas threads", "2 before, %d after" % after)
    # Issue 23: 8 Python threads x 5 overlapping calls leave it (and the
    # bits) as they were; the first call in saves it, the last out restores.
    import threading
    blas.openblas_set_num_threads(3)
    omp = ctypes.CDLL("libgomp.so.1")
    omp_before = omp.omp_get_max_threads()
    big_q = rng.standard_normal((1, 4, 600, 32))
    want = S(big_q, big_q, threads=2).scaled_entropy
    results, errors = [], []

    def worker():
        try:
            for _ in range(5):
                results.append(S(big_q, big_q, threads=2).scaled_entropy)
        except Exception as e:  # reported below
            errors.append(e)

    pool = [threading.Thread(target=worker) for _ in range(8)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    chk.ok(not errors, "8 threads x 5 calls", repr(errors[:1]))
    chk.ok(len(results) == 40 and all(np.array_equal(r, want) for r in results),
           "8 threads x 5 calls: same bits", "%d results" % len(results))
    after = blas.openblas_get_num_threads()
    chk.ok(after == 3, "openblas threads after 8 x 5", "3 before, %d after" % after)
    chk.ok(omp.omp_get_max_threads() == omp_before, "omp threads after 8 x 5",
           "%d before, %d after" % (omp_before, omp.omp_get_max_threads()))
chk.done()
