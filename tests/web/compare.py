#!/usr/bin/python3
"""Compare numbers the web page (or its glue under node) showed with
`sdpa-var --format json` for the same options, value by value, within the
cross-machine tolerance of tests/tolerance.py (relative 1e-9: the
WebAssembly build adds its plain-loop products in another order).

    compare.py CLI.json GOT.json [LABEL]

CLI.json is the CLI's document ({"rows": [row, ...]}); GOT.json is
{"rows": [row, ...]} of the same length, each row a subset of the CLI's
keys (the page shows some columns). Every key of a GOT row must be in the
CLI's row and agree. Exit 0 when all agree, 1 otherwise."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tolerance  # noqa: E402


def token(v):
    if v is None:
        return "nan"  # JSON null: undefined (nan) or infinite
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "%.17g" % v if not v.is_integer() or abs(v) >= 1e16 else "%d" % v
    return str(v)


def compare(want_rows, got_rows, label):
    out, n = [], 0
    if len(want_rows) != len(got_rows):
        return ["%s: %d rows expected, %d got" % (label, len(want_rows), len(got_rows))], 0
    for i, (w, g) in enumerate(zip(want_rows, got_rows)):
        for k, v in g.items():
            if k not in w:
                out.append("%s: row %d: %s is not a column of the CLI's output" % (label, i, k))
                continue
            a, b = token(w[k]), token(v)
            r = tolerance.number_differs(a, b) if not isinstance(w[k], str) else (
                None if a == b else float("inf"))
            n += 1
            if r is not None:
                out.append("%s: row %d: %s: CLI %s, page %s (%s)" % (label, i, k, a, b, tolerance.why(r)))
    return out, n


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        want = json.load(f)["rows"]
    with open(argv[2]) as f:
        got = json.load(f)["rows"]
    label = argv[3] if len(argv) > 3 else argv[2]
    out, n = compare(want, got, label)
    for line in out:
        print(line)
    if not out:
        print("%s: %d values agree with the CLI within relative %g" % (label, n, tolerance.RTOL))
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
