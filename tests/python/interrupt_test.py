"""Ctrl-C stops a long stats() (issue 23): a child process runs one head of
n 32768 x d_k 64 (several seconds here), the test sends it SIGINT a second
after the call started (the child says when, on a marker line), and the
child's KeyboardInterrupt must come within the bound: the engine call runs
in a worker thread and stops within one tile per thread (sv_exec.cancel,
SV_ECANCELED). Without that, the signal waits for the whole call.

Also: after the interrupt (one SIGINT, or two) no worker thread is left
and the next call works; an exception the worker's call raises reaches the caller unchanged;
the threaded path gives the inline path's bits.

Bound: the issue asks for 0.5 s, on a quiet machine. A busy one (load 4-12
on 2 cores: other builds, or the suite twice, issue 42) stretches a tile's
time and the wake-ups as much as the whole call, so the bound follows the
machine's speed now: the child first times the same call on n/8 rows (1/64
of the work: the call is quadratic in n) and the bound is max(0.5 s, 1/20
of the whole call estimated from it). It still tells a stop from the call's
end: without the stop the interrupt waits for the whole call, 19/20 of it
past the bound after the 1 s wait, whenever the call takes over 1.5 s (4 s
quiet and 50 s at load 10 here). SV_INTERRUPT_BOUND (seconds) replaces the
0.5. The latency, the estimate and the load are printed either way.
"""

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np

import sdpa_var
from sdpa_var import _core
from sdpa_var import _lib as L

BOUND = float(os.environ.get("SV_INTERRUPT_BOUND", "0.5"))
# A hang guard for the child (its whole call: 50 s at load 10 here), times
# SV_TEST_TIMEOUT_SCALE (a whole number, README "Tests").
GUARD = 300 * int(os.environ.get("SV_TEST_TIMEOUT_SCALE") or 1)

CHILD = r"""
import signal, sys, threading, time
import numpy as np
import sdpa_var
n = int(sys.argv[1])
rng = np.random.default_rng(0)
q, k = rng.standard_normal((n, 64)), rng.standard_normal((n, 64))
t0 = time.monotonic()
sdpa_var.stats(q[:n // 8], k[:n // 8])
print("started %.6f ref %.6f" % (time.monotonic(), time.monotonic() - t0), flush=True)
t = None
try:
    try:
        sdpa_var.stats(q, k)
        print("finished %.6f" % time.monotonic(), flush=True)
        sys.exit(3)
    except KeyboardInterrupt:
        t = time.monotonic()
        signal.signal(signal.SIGINT, signal.SIG_IGN)
except KeyboardInterrupt:  # a second SIGINT after stats() raised the first
    t = t or time.monotonic()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
print("interrupted %.6f threads %d" % (t, threading.active_count()), flush=True)
small = sdpa_var.stats(q[:64], k[:64])
print("after %.6f" % float(small.scaled_entropy.ravel()[0]), flush=True)
"""

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: %s" % what)
    return cond


def interrupt_once(n=32768, wait=1.0, signals=1):
    """(latency, estimate): seconds from SIGINT to the child's
    KeyboardInterrupt, and the whole call's time estimated from the child's
    call on n/8 rows; @p signals SIGINTs 2 ms apart (a second Ctrl-C during
    the stop)."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(n)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, OMP_WAIT_POLICY="passive"))
    line = child.stdout.readline().split()
    if not check(line[:1] == ["started"] and line[2:3] == ["ref"], "child marker: %r" % (line,)):
        child.kill()
        return None
    time.sleep(wait)
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    for _ in range(signals - 1):
        time.sleep(0.002)
        child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=GUARD)
    lines = out.split("\n")
    got = lines[0].split()
    if not check(child.returncode == 0 and got[:1] == ["interrupted"],
                 "child: exit %d, %r, stderr %s" % (child.returncode, out, err[-500:])):
        return None
    check(got[3] == "1", "threads left after the interrupt: %s" % got[3])
    check(lines[1].startswith("after "), "the next call after the interrupt: %r" % lines[1:])
    return float(got[1]) - sent, 64 * float(line[3])


def worker_exception():
    """An exception from the ctypes call reaches the caller unchanged."""
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((1024, 64)), rng.standard_normal((1024, 64))
    assert _core._work(_spec(1024, 64), 1) >= _core._INLINE_WORK  # the threaded path
    real = L.lib.sv_run  # stats() runs the driver (run.h)

    class Boom(Exception):
        pass

    def boom(*args):
        raise Boom("from the worker")

    L.lib.sv_run = boom
    try:
        sdpa_var.stats(q, k)
        check(False, "the worker's exception was lost")
    except Boom as e:
        check(str(e) == "from the worker", "exception changed: %r" % e)
    finally:
        L.lib.sv_run = real


def _spec(n, d):
    s = L.sv_spec()
    s.n_q = s.n_k = n
    s.d_k = d
    return s


def same_bits():
    """Threaded (main thread, large) and inline (another thread) calls agree."""
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal((2, 3, 1024, 32)), rng.standard_normal((2, 3, 1024, 32))
    a = sdpa_var.stats(q, k)
    box = []
    t = threading.Thread(target=lambda: box.append(sdpa_var.stats(q, k)))
    t.start()
    t.join()
    for name in ("raw_var", "scaled_entropy", "scaled_max_weight"):
        check(np.array_equal(getattr(a, name), getattr(box[0], name)), "bits differ: %s" % name)


def main():
    worker_exception()
    same_bits()
    got = interrupt_once()
    if got is not None:
        lat, whole = got
        bound = max(BOUND, whole / 20)
        print("SIGINT to KeyboardInterrupt: %.3f s (bound %.2f s: max(%.2f, 1/20 of the whole"
              " call, %.1f s by its 1/64); load %s)"
              % (lat, bound, BOUND, whole, " ".join("%.1f" % x for x in os.getloadavg())))
        check(lat < bound, "latency %.3f s >= %.2f s" % (lat, bound))
    # Ctrl-C twice: one KeyboardInterrupt, once the worker is done.
    got = interrupt_once(n=16384, wait=0.5, signals=2)
    if got is not None:
        print("two SIGINTs: %.3f s" % got[0])
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
