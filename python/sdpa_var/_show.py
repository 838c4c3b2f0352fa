"""How a Stats prints: a table of statistic x head, as pandas prints a frame.

print(stats) and a notebook cell show the numbers, not an object's name:
one row per statistic (every one, in the CLI's column order), one column
per head (the (batch, head) axes as two header rows when there are several
batches), the pooled row's values in a last column "all"; a summary
(random()) is one column "value". Many heads are cut as pandas cuts wide
frames: the first and last heads that fit in WIDTH characters (HTML:
HTML_COLUMNS columns) with "..." between them; to_pandas() has them all.
"""

import html
import math

import numpy as np

WIDTH = 80  # characters of print(stats), as pandas' display.width
HTML_COLUMNS = 20  # head columns of the notebook's table, as pandas' display.max_columns
GAP = 2  # spaces between the text's columns


def cell(v):
    """One value as the table writes it: integers whole, reals to six
    significant digits (%.6g, with a point: 64.0), undefined as nan, text
    as it is."""
    if isinstance(v, str):
        return v
    if hasattr(v, "dtype") and v.dtype.kind in "iub" or isinstance(v, int):
        return "%d" % int(v)
    x = float(v)
    if not math.isfinite(x):
        return "%s" % x  # nan, inf, -inf
    t = "%.6g" % x
    return t if any(c in t for c in ".e") else t + ".0"  # 64.0: a real, not a count


def title(s):
    """The table's first line: what it is, its axes and its configuration."""
    cfg = "".join(", %s %s" % kv for kv in s.config.items())
    if s.kind == "summary":
        what = "Stats summary"
    elif not s.dims:
        what = "Stats per head (pooled)"
    else:
        what = "Stats per head (%s%s)" % (" x ".join(
            "%s %d" % (d, n) for d, n in zip(s.dims, s.shape)), cfg)
        cfg = ""
    if s.kind == "summary" and cfg:
        what += " (%s)" % cfg[2:]
    n = len(s.columns)
    return "%s: %d statistic%s" % (what, n, "" if n == 1 else "s")


def _grid(s):
    """(header, rows) of the whole table: header is a list of (axis name,
    a label per column), rows a list of (statistic, a cell per column); the
    columns are the heads in (batch, head) order, then the pooled "all"."""
    if not s.dims:
        label = "value" if s.kind == "summary" else "all"
        rows = [(n, [cell(s.values[n])]) for n in s.columns]
        return [("", [label])], rows
    heads = list(np.ndindex(*s.shape))
    pooled = bool(s.pooled)
    rows = []
    for n in s.columns:
        v = s.values[n]
        cells = [cell(v) if isinstance(v, str) else cell(v[ix]) for ix in heads]
        if pooled:
            cells.append(cell(s.pooled[n]) if n in s.pooled else "")
        rows.append((n, cells))
    # one header row per axis; a single batch's row left out
    axes = (0, 1) if len(s.dims) == 2 and s.shape[0] > 1 else (len(s.dims) - 1,)
    header = [(s.dims[a], [str(ix[a]) for ix in heads]) for a in axes]
    if pooled:
        header = [(name, labels + (["all"] if i == len(header) - 1 else [""]))
                  for i, (name, labels) in enumerate(header)]
    return header, rows


def _keep(n_heads, pooled, fits):
    """Which head columns to show: all, or the first and last that fit
    (one more alternately at each end, as pandas), None marking the "...";
    the pooled column (index n_heads) always, one head each side at least."""
    tail = [n_heads] if pooled else []
    if n_heads < 3 or fits(list(range(n_heads)) + tail):
        return list(range(n_heads)) + tail
    front, back = [0], [n_heads - 1]
    while len(front) + len(back) + 1 < n_heads:
        if len(front) <= len(back):
            more = (front + [len(front)], back)
        else:
            more = (front, [n_heads - 1 - len(back)] + back)
        if not fits(more[0] + [None] + more[1] + tail):
            break
        front, back = more
    return front + [None] + back + tail


def _sparse(labels):
    """A batch header row as pandas writes it: each label once, at the first
    column of its group."""
    out, last = [], None
    for x in labels:
        out.append(x if x != last or x in ("", "...") else "")
        last = x if x != "..." else last
    return out


def _shown(s, fits):
    """(header, rows) of the columns shown: every head, or the first and
    last for which fits(header, rows, keep) holds (_keep), "..." between;
    every label in full (_sparsed blanks the repeated batch labels)."""
    header, rows = _grid(s)
    pooled = bool(s.dims) and bool(s.pooled)
    n_heads = len(header[-1][1]) - (1 if pooled else 0)
    keep = _keep(n_heads, pooled, lambda k: fits(header, rows, k)) if s.dims else [0]

    def pick(cells):
        return [cells[c] if c is not None else "..." for c in keep]

    return ([(name, pick(labels)) for name, labels in header],
            [(n, pick(cells)) for n, cells in rows])


def _sparsed(header):
    """@p header with each row but the last (the heads) as _sparse writes it."""
    return [(name, _sparse(labels) if i < len(header) - 1 else labels)
            for i, (name, labels) in enumerate(header)]


def _widths(header, rows, keep):
    """The text widths of the names, then of each column in @p keep (None,
    the "...": 3)."""
    return [max(len(n) for n, _ in header + rows)] + [
        max([len(labels[c]) for _, labels in header] + [len(cells[c]) for _, cells in rows])
        if c is not None else 3 for c in keep]


def text(s):
    """print(stats): the title, then the table in at most WIDTH characters
    (at least one head each side of the "...")."""
    if not s.columns:
        return title(s)
    header, rows = _shown(s, lambda h, r, keep: sum(_widths(h, r, keep)) + GAP * len(keep)
                          <= WIDTH)
    # widths of the full labels, as the columns were chosen by
    left, *w = _widths(header, rows, range(len(header[-1][1])))
    lines = [title(s)]
    for name, cells in _sparsed(header) + rows:
        lines.append(name.ljust(left) + "".join(" " * GAP + x.rjust(k) for x, k in zip(cells, w)))
    return "\n".join(line.rstrip() for line in lines)


def html_table(s):
    """A notebook's table (_repr_html_): the same grid as text(), at most
    HTML_COLUMNS head columns, in pandas' class "dataframe"."""
    e = html.escape
    out = ['<table class="dataframe sdpa-var-stats">', "<caption>%s</caption>" % e(title(s))]
    if not s.columns:
        return "".join(out + ["</table>"])
    n_heads = int(np.prod(s.shape))  # the pooled column's index
    header, rows = _shown(s, lambda header, rows, keep: len(
        [c for c in keep if c is not None and c < n_heads]) <= HTML_COLUMNS)
    out.append("<thead>")
    for name, labels in _sparsed(header):
        out.append("<tr><th>%s</th>%s</tr>" % (e(name), "".join(
            "<th>%s</th>" % e(x) for x in labels)))
    out.append("</thead><tbody>")
    for name, cells in rows:
        out.append("<tr><th>%s</th>%s</tr>" % (e(name), "".join(
            "<td>%s</td>" % e(x) for x in cells)))
    out.append("</tbody></table>")
    return "\n".join(out)
