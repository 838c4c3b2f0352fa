#!/usr/bin/python3
"""Compare sdpa-var output with stored output, number by number, within the
tolerance that holds across CPUs and OpenBLAS kernels (README,
"Reproducibility"; docs/robustness.md derives it).

    tolerance.py csv EXPECTED.csv GOT.csv [LABEL]    field by field
    tolerance.py text EXPECTED GOT [LABEL]            token by token

Exit 0 when every value agrees, 1 otherwise, printing one line per
difference: the label, the row and column (csv) or line (text), both values
and their relative difference.  doc_commands.py and golden.sh import or call
this; so does anything else that compares with stored numbers.

The contract
------------
* Integer and text fields are exact: a token without '.', 'e' or 'E' on both
  sides (counts, d_k, seeds, labels, an integral value printed by %.17g on
  both machines) must be the same string.
* Every other number agrees within

      |a - b| <= RTOL * max(|a|, |b|, FLOOR * M) + unit(a) + unit(b)

  where M is the largest magnitude in the same CSV column of the expected
  output (0 for text), and unit(x) is one unit in the last digit printed
  (10^-3 for "0.241"; about 1e-17 relative for %.17g), since a value printed
  to a few digits may round the other way after a change in its last bits.
* nan matches only nan, inf only inf of the same sign.

Why RTOL = 1e-9: the results differ between machines only through the
order of additions (OpenBLAS's dgemm kernels, the row loops' vector width)
and the vector exp (libmvec, at most 4 ulp, or libm).  Reordering a sum of m
terms moves it by at most 2 gamma_m sum |x_i|, gamma_m = m u / (1 - m u),
u = 2^-53 (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
eqs. 3.4-3.5): a score is a sum of d_k products, a row's softmax sums and
moments sum n_k terms, and a weight exp(c (s - max)) turns an absolute error
e of a logit into a relative error c e.  For a statistic that is a sum of
positive terms (a variance, an entropy, a max weight) the relative change is
then at most 2 (d_k + n_k + 8) u (1 + L), L the largest logit range
c (max - min) of a row.  The largest stored case (README: d_k = 512,
n_k = 1111, raw logits within +-115, so L <= 230) gives 8.3e-11; RTOL is 12
times that.  Measured across the 6 OpenBLAS core types and 3 instruction
sets of this suite's portability step, the largest relative difference in
the golden cases was 4.3e-14.
A statistic that is a difference of such sums (a mean near 0) has the same
bound relative to its terms, not to itself: FLOOR * M stands for that scale.
"""
import csv
import io
import math
import re
import sys

RTOL = 1e-9
FLOOR = 1e-3

NUMBER = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)", re.I)


def is_integer(tok):
    return not any(c in tok for c in ".eEnNiI")


def unit(tok):
    """One unit in the last printed digit of tok (0 for nan, inf)."""
    m = re.fullmatch(r"[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?", tok)
    if not m:
        return 0.0
    decimals = len(m.group(2) or "")
    exp = int(m.group(3) or 0)
    return 10.0 ** (exp - decimals)


def number_differs(a, b, scale=0.0):
    """None when tokens a and b agree under the contract, else the relative
    difference (inf for a mismatch of kind)."""
    if a == b:
        return None
    if is_integer(a) and is_integer(b):
        return math.inf
    try:
        x, y = float(a), float(b)
    except ValueError:
        return math.inf
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or math.isinf(y):
        return None if (x == y or (math.isnan(x) and math.isnan(y))) else math.inf
    d = abs(x - y)
    top = max(abs(x), abs(y))
    if d <= RTOL * max(top, FLOOR * scale) + unit(a) + unit(b):
        return None
    return d / top if top > 0 else math.inf


def why(r):
    if math.isinf(r):
        return "integers, text, nan and inf must be equal"
    return "relative difference %.3g > %g" % (r, RTOL)


def split(line):
    """Alternating text and number tokens: [text, num, text, num, ..., text]."""
    parts, pos = [], 0
    for m in NUMBER.finditer(line):
        # A number glued to a word (d_k, x86-64, sha) is text.
        if m.start() > 0 and (line[m.start() - 1].isalpha() or line[m.start() - 1] == "_"):
            continue
        parts.append(line[pos:m.start()])
        parts.append(m.group(0))
        pos = m.end()
    parts.append(line[pos:])
    return parts


def compare_lines(want, got, label="", scale=None):
    """Differences between two lists of lines, as printable strings."""
    out = []
    if len(want) != len(got):
        out.append("%s: %d lines expected, %d printed" % (label, len(want), len(got)))
    for i, (w, g) in enumerate(zip(want, got)):
        pw, pg = split(w), split(g)
        if len(pw) != len(pg) or any(pw[k] != pg[k] for k in range(0, len(pw), 2)):
            out.append("%s: line %d: text differs:\n  want: %s\n  got:  %s" % (label, i + 1, w, g))
            continue
        for k in range(1, len(pw), 2):
            r = number_differs(pw[k], pg[k])
            if r is not None:
                out.append("%s: line %d: %s vs %s (%s)" % (label, i + 1, pw[k], pg[k], why(r)))
    return out


def lines_match(want, got):
    return not compare_lines(want, got)


def compare_csv(want_text, got_text, label=""):
    """Differences between two CSV texts (header exact, fields by tolerance)."""
    want = list(csv.reader(io.StringIO(want_text)))
    got = list(csv.reader(io.StringIO(got_text)))
    out = []
    if not want or not got:
        if want != got:
            out.append("%s: %d rows expected, %d printed" % (label, len(want), len(got)))
        return out
    header = want[0]
    if got[0] != header:
        return ["%s: header differs:\n  want: %s\n  got:  %s"
                % (label, ",".join(header), ",".join(got[0]))]
    if len(want) != len(got):
        out.append("%s: %d rows expected, %d printed" % (label, len(want) - 1, len(got) - 1))
    scale = []
    for c in range(len(header)):
        m = 0.0
        for row in want[1:]:
            try:
                v = abs(float(row[c]))
            except (ValueError, IndexError):
                continue
            if math.isfinite(v):
                m = max(m, v)
        scale.append(m)
    for i, (w, g) in enumerate(zip(want[1:], got[1:])):
        if len(w) != len(g):
            out.append("%s: row %d: %d fields expected, %d printed" % (label, i + 1, len(w), len(g)))
            continue
        for c, (a, b) in enumerate(zip(w, g)):
            r = number_differs(a, b, scale[c] if c < len(scale) else 0.0)
            if r is not None:
                out.append("%s: row %d, column %s: expected %s, got %s (%s)"
                           % (label, i + 1, header[c] if c < len(header) else c + 1, a, b, why(r)))
    return out


def main(argv):
    if len(argv) not in (4, 5) or argv[1] not in ("csv", "text"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    want = open(argv[2], encoding="utf-8", errors="replace").read()
    got = open(argv[3], encoding="utf-8", errors="replace").read()
    label = argv[4] if len(argv) == 5 else argv[3]
    if argv[1] == "csv":
        diffs = compare_csv(want, got, label)
    else:
        diffs = compare_lines(want.split("\n"), got.split("\n"), label)
    for d in diffs:
        print(d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
