"""How a Stats prints (issue 41): print(stats) is a table of statistic x
head with the pooled column "all", as pandas prints a frame, cut to 80
characters with "..." between the first and last heads; a notebook gets the
same table as HTML (_repr_html_, at most 20 heads). Exact strings for fixed
small Stats; then stats() and random() print their own numbers. And
to_pandas() without pandas names the install that fits this Python: pip in
a venv, apt-get on Debian's system Python (both branches simulated, and the
one where this test runs checked unpatched)."""

import os
import sys

import numpy as np

import sdpa_var
from sdpa_var import _result
from reference import Checker

chk = Checker("python.stats_repr")


def same(what, got, want):
    chk.ok(got == want, what, "got\n%s\nwant\n%s" % (got, want))


one = _result.make(
    "per_head", ("batch", "head"), (1, 3), ("kv_head", "dk", "raw_var"),
    {"kv_head": np.array([[0, 1, 2]], np.int64), "dk": np.array([[8, 8, 8]], np.uint64),
     "raw_var": np.array([[7.5, 9.25, np.nan]])},
    {"kv_head": "all", "dk": 8, "raw_var": 8.375}, {"scale": "sqrt"},
    {"kv_head": "", "dk": "", "raw_var": "score^2"})
same("repr, one batch", repr(one), """\
Stats per head (batch 1 x head 3, scale sqrt): 3 statistics
head       0     1    2    all
kv_head    0     1    2    all
dk         8     8    8      8
raw_var  7.5  9.25  nan  8.375""")
same("str is repr", str(one), repr(one))
same("html, one batch", one._repr_html_(), """\
<table class="dataframe sdpa-var-stats">
<caption>Stats per head (batch 1 x head 3, scale sqrt): 3 statistics</caption>
<thead>
<tr><th>head</th><th>0</th><th>1</th><th>2</th><th>all</th></tr>
</thead><tbody>
<tr><th>kv_head</th><td>0</td><td>1</td><td>2</td><td>all</td></tr>
<tr><th>dk</th><td>8</td><td>8</td><td>8</td><td>8</td></tr>
<tr><th>raw_var</th><td>7.5</td><td>9.25</td><td>nan</td><td>8.375</td></tr>
</tbody></table>""")

# Two batches of six heads: two header rows (batch written once per group,
# as pandas), too wide for 80 characters: the first two and the last two
# heads, "..." between, the pooled column kept.
wide = _result.make(
    "per_head", ("batch", "head"), (2, 6), ("dk", "scaled_entropy"),
    {"dk": np.full((2, 6), 64, np.uint64),
     "scaled_entropy": -1.23456789e-4 * np.arange(1, 13).reshape(2, 6)},
    {"dk": 64, "scaled_entropy": -0.5}, {"scale": "sqrt"}, {})
same("repr, cut to 80 characters", repr(wide), """\
Stats per head (batch 2 x head 6, scale sqrt): 2 statistics
batch                      0                ...            1
head                       0             1  ...            4            5   all
dk                        64            64  ...           64           64    64
scaled_entropy  -0.000123457  -0.000246914  ...  -0.00135802  -0.00148148  -0.5""")
chk.ok(max(len(line) for line in repr(wide).splitlines()) <= 80, "80 characters at most")

summary = _result.make(
    "summary", (), (), ("dk", "dist", "raw_var", "raw_var_theory", "raw_var_sd"),
    {"dk": 64, "dist": "normal", "raw_var": 66.55036, "raw_var_theory": 64.0,
     "raw_var_sd": float("nan")}, {}, {"dist": "normal", "scale": "sqrt"}, {})
same("repr, summary", repr(summary), """\
Stats summary (dist normal, scale sqrt): 5 statistics
                  value
dk                   64
dist             normal
raw_var         66.5504
raw_var_theory     64.0
raw_var_sd          nan""")

monitor_like = _result.make("per_head", ("head",), (2,), ("raw_entropy",),
                            {"raw_entropy": np.array([1.5, 2.0])}, {}, {"scale": "sqrt"}, {})
same("repr, one axis, no pooled row", repr(monitor_like), """\
Stats per head (head 2, scale sqrt): 1 statistic
head           0    1
raw_entropy  1.5  2.0""")

many = _result.make("per_head", ("batch", "head"), (1, 25), ("dk",),
                    {"dk": np.full((1, 25), 8, np.uint64)}, {"dk": 8}, {"scale": "<b>"}, {})
html = many._repr_html_()
heads = html.split("</thead>")[0].count("<th>") - 3  # less the axis name, "..." and "all"
same("html: 20 heads of 25", heads, 20)
chk.ok("<th>...</th>" in html and "<td>...</td>" in html, "html: '...' for the heads left out")
chk.ok("scale &lt;b&gt;" in html and "<b>" not in html, "html: text escaped")

# Columns are as wide as their full batch label, though only the group's
# first shows it (pandas' sparse header): batch 10's three columns are 2
# wide, not the first alone (as a refactor once printed them).
v = {"rows_empty": np.zeros((12, 3), np.uint64)}
batches = repr(_result.make("per_head", ("batch", "head"), (12, 3), list(v), v, {}, {}, {}))
same("many batches: every column of a two-digit batch 2 wide", batches.splitlines()[1:], [
    "batch       0        1        2        3  ...  9        10          11",
    "head        0  1  2  0  1  2  0  1  2  0  ...  0  1  2   0   1   2   0   1   2",
    "rows_empty  0  0  0  0  0  0  0  0  0  0  ...  0  0  0   0   0   0   0   0   0"])

# The engine's own results print their numbers.
rng = np.random.default_rng(41)
q, k = rng.standard_normal((1, 2, 16, 8)), rng.standard_normal((1, 2, 16, 8))
s = sdpa_var.stats(q, k)
text = repr(s)
chk.ok(text.startswith("Stats per head (batch 1 x head 2, scale sqrt): %d statistics\n"
                       % len(s.columns)), "stats(): the title", text.splitlines()[0])
row = [line.split() for line in text.splitlines() if line.split()[:1] == ["raw_var"]]
chk.ok(row == [["raw_var", "%.6g" % s.raw_var[0, 0], "%.6g" % s.raw_var[0, 1],
                "%.6g" % s.pooled["raw_var"]]], "stats(): raw_var's row", str(row))
chk.ok(len(text.splitlines()) == 2 + len(s.columns), "stats(): a row per statistic")
r = sdpa_var.random(dk=8, n=16)
row = [line.split() for line in repr(r).splitlines() if line.split()[:1] == ["scaled_var"]]
chk.ok(row == [["scaled_var", "%.6g" % r.scaled_var]], "random(): scaled_var's row", str(row))
chk.ok("<td>%.6g</td>" % r.scaled_var in r._repr_html_(), "random(): html")

# to_pandas() without pandas: the hint that fits this Python.
saved = sys.modules.get("pandas")
sys.modules["pandas"] = None  # `import pandas` raises ImportError


def hint():
    try:
        one.to_pandas()
    except ImportError as e:
        return str(e)
    return "no ImportError"


pip = "Stats.to_pandas needs pandas: %s -m pip install pandas" % sys.executable
apt = "Stats.to_pandas needs pandas: apt-get install python3-pandas"
in_venv = sys.prefix != sys.base_prefix
debian_system = not in_venv and sys.prefix == "/usr" and os.path.exists("/etc/debian_version")
same("hint where this runs (%s)" % ("venv" if in_venv else sys.prefix), hint(),
     pip if not debian_system else apt)
prefix, base = sys.prefix, sys.base_prefix
try:
    sys.prefix, sys.base_prefix = "/home/u/venv", "/usr"
    same("hint in a venv", hint(), pip)
    if os.path.exists("/etc/debian_version"):
        sys.prefix = sys.base_prefix = "/usr"
        same("hint on Debian's python3", hint(), apt)
    else:
        print("SKIP the Debian branch: no /etc/debian_version here")
finally:
    sys.prefix, sys.base_prefix = prefix, base
    if saved is None:
        del sys.modules["pandas"]
    else:
        sys.modules["pandas"] = saved
chk.done()
