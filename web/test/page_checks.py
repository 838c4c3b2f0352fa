"""The page's checks of issue 34 (run by page_test.py after its own): what
the page DISPLAYS (the text of its cells, not their hidden full-precision
attributes) against the CLI (the built sdpa-var: SV_BIN, else
build/sdpa-var beside the site's build-web/), a causal run at scale dk, the
plots (one shared x axis in the histogram, the current d_k marked on the
sweeps, a log axis for the row, 16 px ticks, dashed legend lines), the row
editor's entropy and Jacobian against `sdpa-var --logits`, the views that
went stale (the puzzle after a change of d_k, a row typed during a long
run, an invalid field), the URL, the copy buttons, accessible names and
the estimate of a long run. Each check is named; all run, and the names of
those that failed are raised together.
"""
import json
import os
import subprocess

# The numbers table: the label and the columns of its four value cells (page main.js).
TABLE = [
    ("mean", "raw_mean", "raw_mean_theory", "scaled_mean", None),
    ("variance s²", "raw_var", "raw_var_expected", "scaled_var", "scaled_var_expected"),
    ("entropy H (nats)", "raw_entropy", "raw_entropy_approx", "scaled_entropy", "scaled_entropy_approx"),
    ("e^H (keys)", "raw_eff_keys", None, "scaled_eff_keys", None),
    ("max weight", "raw_max_weight", None, "scaled_max_weight", None),
    ("Jacobian trace", "raw_jac_trace", None, "scaled_jac_trace", None),
    ("max |logit|", "raw_max_abs_logit", None, "scaled_max_abs_logit", None),
]


def cli_bin(site):
    b = os.environ.get("SV_BIN") or os.path.join(os.path.dirname(os.path.dirname(site)), "build", "sdpa-var")
    if not os.access(b, os.X_OK):
        raise RuntimeError("no sdpa-var binary at %s (set SV_BIN)" % b)
    return b


def cli(site, *args):
    out = subprocess.run([cli_bin(site)] + [str(a) for a in args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["rows"]


def number(text):
    """The number a cell shows: '0.007641 ± 0.0068' -> 0.007641; '—' -> None."""
    t = text.split("±")[0].strip()
    return None if t in ("—", "") else float(t)


def agrees(shown, want):
    """Shown with 4 significant digits (page fmt): within half a unit of the 4th."""
    if want is None:
        return shown is None
    if shown is None:
        return False
    return abs(shown - want) <= 5.01e-4 * abs(want) + 1e-300


def jsfmt(x):
    """The page's fmt(x): 4 significant digits, exponent below 1e-3."""
    a = abs(x)
    if a and (a < 1e-3 or a >= 1e6):
        m, e = ("%.3e" % x).split("e")
        return "%se%s%d" % (m, "+" if int(e) >= 0 else "-", abs(int(e)))
    r = repr(float("%.4g" % x))
    return r[:-2] if r.endswith(".0") else r


def shown_table(d):
    return d.execute_script(
        "return Array.from(document.querySelectorAll('#numbers tbody tr'),"
        " (tr) => Array.from(tr.cells, (c) => c.textContent));")


def check_table(d, site, args, what):
    """The displayed numbers table against the CLI's run of args."""
    want = cli(site, *(list(args) + ["--format", "json", "--columns", "all"]))[0]
    rows = shown_table(d)
    bad = []
    if len(rows) != len(TABLE):
        return ["%s: %d rows shown" % (what, len(rows))]
    for (label, *cols), row in zip(TABLE, rows):
        for col, text in zip(cols, row[1:]):
            if col is None:
                continue
            if not agrees(number(text), want.get(col)):
                bad.append("%s: %s shows %r, CLI %r" % (what, col, text, want.get(col)))
    return bad


def options_args(o):
    a = ["--dk", o["dk"], "--n", o["n"], "--trials", o["trials"], "--seed", o["seed"], "--scale", o["scale"]]
    return a + (["--causal"] if o["causal"] else [])


def page_options(d):
    return d.execute_script(
        "const v = (id) => document.getElementById(id).value, s = v('scale');"
        " return { dk: v('dk'), n: v('n'), trials: v('trials'), seed: v('seed'),"
        " scale: s === 'custom' ? v('custom') : s, causal: document.getElementById('causal').checked };")


def chart(d, sel, script):
    """script over `c`, the Chart.js chart of the canvas in sel (null: none)."""
    return d.execute_script("const cv = document.querySelector(arguments[0] + ' canvas');"
                            " const c = cv && window.Chart ? Chart.getChart(cv) : null;"
                            " if (!c) return null; " + script, sel)


class Checks:
    def __init__(self, d, url, site, h, shots=None):
        self.d, self.url, self.site, self.h, self.shots = d, url, site, h, shots
        self.failed, self.passed = [], []

    def check(self, name, fn):
        try:
            problems = fn() or []
        except Exception as e:  # a timeout on an old page is a failure of this check
            problems = ["%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")]
        if problems:
            self.failed.append(name)
            for p in problems:
                print("page check %s: %s" % (name, p))
        else:
            self.passed.append(name)

    def shot(self, name):
        """With SV_WEB_SHOTS: what the viewport shows now, from the top."""
        if self.shots:
            self.d.execute_script("window.scrollTo(0, 0);")
            self.h.png(self.d, os.path.join(self.shots, name), False)

    def gen(self):
        return self.d.execute_script("return window.sv.generation;")

    # ---- the checks ----
    def a11y(self):
        d, bad = self.d, []
        names = d.execute_script(
            "const name = (e) => (e.getAttribute('aria-label') || (e.labels && e.labels[0] ? e.labels[0].textContent : '')"
            " || (e.tagName === 'BUTTON' ? e.textContent : '')).trim();"
            " return Array.from(document.querySelectorAll('input, select, button, progress'), (e) => [e.id || e.className, name(e)]);")
        for ident, name in names:
            if not name:
                bad.append("%s has no accessible name" % ident)
        by = dict(names)
        scale_names = [by.get("scale"), by.get("custom"), by.get("row-scale")]
        if len(set(scale_names)) != 3:
            bad.append("the scale fields' names are not distinct: %r" % scale_names)
        vt = d.execute_script("return [document.getElementById('dk-slider').getAttribute('aria-valuetext'),"
                              " document.getElementById('dk').value];")
        if vt[0] != "d_k = %s" % vt[1]:
            bad.append("the d_k slider's aria-valuetext is %r for d_k %s" % (vt[0], vt[1]))
        canvases = d.execute_script("return Array.from(document.querySelectorAll('canvas'),"
                                    " (c) => [c.parentNode.id, c.getAttribute('role'), c.getAttribute('aria-label') || '']);")
        for pid, role, label in canvases:
            if role != "img" or len(label) < 20:
                bad.append("plot %s has no text alternative (role %r, label %r)" % (pid, role, label[:40]))
        return bad

    def copy(self):
        d = self.d
        codes = d.execute_script("return Array.from(document.querySelectorAll('.shell code'),"
                                 " (c) => !!(c.nextElementSibling && c.nextElementSibling.matches('button.copy'))).length;")
        missing = d.execute_script("return Array.from(document.querySelectorAll('.shell code'))"
                                   ".filter((c) => !(c.nextElementSibling && c.nextElementSibling.matches('button.copy'))).length;")
        if not codes or missing:
            return ["%d of %d shell commands have no copy button" % (missing, codes)]
        self.h.click(d, "#p-numbers button.copy")
        self.h.wait_js(d, "return document.querySelector('#p-numbers button.copy').textContent !== 'copy';", None, 5,
                       "the copy button's answer")
        return []

    def displayed(self):
        o = page_options(self.d)
        return check_table(self.d, self.site, options_args(o), "d_k %s" % o["dk"])

    def editor_vs_cli(self):
        """The editor's entropy, e^H, max weight, Jacobian trace and norm and its
        Jacobians as shown, against `sdpa-var --logits`."""
        d, bad = self.d, []
        scale = d.execute_script("return document.getElementById('row-scale').value;")
        logits = d.execute_script("return document.getElementById('logits').value;")
        rows = cli(self.site, "--logits=" + logits, "--scale", "none," + scale, "--format", "json")
        got = d.execute_script(
            "const t = document.getElementById('editor-table'); if (!t) return null;"
            " const stats = {}; for (const tr of t.tBodies[0].rows) if (tr.cells[0].tagName === 'TH')"
            " stats[tr.cells[0].textContent] = [tr.cells[2].textContent, tr.cells[3].textContent];"
            " const jac = Array.from(document.querySelectorAll('#editor-out table.jac'), (j) =>"
            " Array.from(j.rows, (r) => Array.from(r.cells, (c) => c.textContent)));"
            " return { stats, jac, head: t.tHead.textContent };")
        if not got:
            return ["no editor table"]
        for label, key in (("entropy (nats)", "entropy"), ("e^H", "eff_keys"), ("max weight", "max_weight"),
                           ("Jacobian trace", "jac_trace"), ("‖J‖_F", "jac_frob")):
            for i, row in enumerate(rows):
                text = got["stats"].get(label, [None, None])[i]
                if text is None or not agrees(number(text), row[key]):
                    bad.append("%s (%s): shown %r, CLI %r" % (label, row["scale"], text, row[key]))
        if len(got["jac"]) != 2:
            bad.append("%d Jacobians shown" % len(got["jac"]))
        for jac, row in zip(got["jac"], rows):
            for i, r in enumerate(row["jacobian"]):
                for j, v in enumerate(r):
                    if not agrees(number(jac[i][j]), v):
                        bad.append("Jacobian %s [%d][%d]: shown %r, CLI %r" % (row["scale"], i, j, jac[i][j], v))
        return bad

    def causal_dk(self):
        """A causal run at --scale dk, displayed against the CLI."""
        d, h, g = self.d, self.h, self.gen()
        d.execute_script("const s = document.getElementById('scale'); s.value = 'dk';"
                         " s.dispatchEvent(new Event('change'));")
        h.click(d, "#causal")
        h.wait_js(d, "return window.sv.state === 'idle' && window.sv.generation > arg && document.getElementById("
                  "'cmd-numbers').textContent.includes('--scale dk --causal');", g, 60, "the causal run at scale dk")
        o = page_options(d)
        if o["scale"] != "dk" or not o["causal"]:
            return ["the controls read %r" % o]
        return check_table(d, self.site, options_args(o), "causal, scale dk")

    def histogram(self):
        r = chart(self.d, "#plot-hist",
                  "const span = (label) => { const ds = c.data.datasets.find((s) => s.label === label);"
                  " const xs = ds.data.filter((p) => p.y > 0).map((p) => p.x);"
                  " return [Math.min(...xs), Math.max(...xs), ds.xAxisID || 'x']; };"
                  " return { raw: span('raw scores'), scaled: span('scaled logits'),"
                  " axis: [c.scales.x.min, c.scales.x.max], title: c.scales.x.options.title.display };")
        if not r:
            return ["no one chart of both histograms in #plot-hist"]
        bad = []
        (rl, rh, ra), (sl, sh, sa) = r["raw"], r["scaled"]
        if ra != sa:
            bad.append("raw and scaled on different x axes")
        if not (sh - sl < rh - rl):
            bad.append("the scaled range %r is not narrower than the raw %r" % ((sl, sh), (rl, rh)))
        if not (r["axis"][0] <= rl and r["axis"][1] >= rh):
            bad.append("the axis %r does not span the raw scores" % r["axis"])
        if not r["title"]:
            bad.append("the x axis has no title")
        return bad

    def sweeps(self):
        d, bad = self.d, []
        dk = d.execute_script("return document.getElementById('dk').value;")
        for pid, note in (("plot-entropy", "sweep-mark"), ("plot-maxw", "sweep-mark2")):
            m = chart(d, "#" + pid, "const p = (c.config.plugins || []).find((p) => p.id === 'marks');"
                      " return [!!p, c.canvas.parentNode.dataset.markDk || null];")
            if not m or not m[0] or m[1] != dk:
                bad.append("%s does not mark d_k = %s: %r" % (pid, dk, m))
            text = d.execute_script("const e = document.getElementById(arguments[0]); return e ? e.textContent : '';", note)
            if "d_k = %s" % dk not in text:
                bad.append("%s says %r" % (note, text))
        leg = d.execute_script("return Array.from(document.querySelectorAll('#plot-entropy .legend li'),"
                               " (li) => [li.textContent.trim(), li.dataset.dash]);")
        kinds = dict(leg)
        theory = [k for k in kinds if k.startswith("ln n − σ²/2")]
        if not theory or kinds[theory[0]] != "dashed" or kinds.get("scaled") != "solid":
            bad.append("the legend does not tell dashed theory from solid data: %r" % leg)
        return bad

    def row_log(self):
        t = chart(self.d, "#plot-row", "return c.scales.y.type;")
        return [] if t == "logarithmic" else ["the row plot's y axis is %r" % t]

    def fonts(self):
        sizes = self.d.execute_script(
            "return Array.from(document.querySelectorAll('canvas'), (cv) => { const c = Chart.getChart(cv);"
            " return c ? [cv.parentNode.id, Math.min(...Object.values(c.scales).map((s) => s._resolveTickFontOptions(0).size))] : null; })"
            ".filter(Boolean);")
        return ["%s: %s px ticks" % (i, s) for i, s in sizes if s < 16] or ([] if sizes else ["no charts"])

    def url_written(self):
        q = self.d.execute_script("return location.search;")
        o = page_options(self.d)
        want = ["dk=%s" % o["dk"], "n=%s" % o["n"], "scale=%s" % o["scale"], "causal=%d" % int(o["causal"])]
        return [] if all(w in q for w in want) else ["location.search %r lacks %r" % (q, want)]

    def puzzle_after_dk(self):
        """d_k moved, then the puzzle at once: the numbers end up those of the field."""
        d, h = self.d, self.h
        h.fill(d, "#dk", "1024", change=True)
        h.click(d, "#puzzle")
        h.wait_js(d, "return window.sv.state === 'idle' && !document.getElementById('puzzle').disabled"
                  " && !document.querySelector('.panel.stale');", None, 60, "the run and the puzzle")
        o = page_options(d)
        cmd = d.execute_script("return document.getElementById('cmd-numbers').textContent;")
        bad = [] if o["dk"] == "1024" and "--dk 1024 " in cmd else ["field d_k %s, command %r" % (o["dk"], cmd)]
        return bad + check_table(d, self.site, options_args(o), "after the puzzle")

    def editor_scale_agrees(self):
        d = self.d
        field, head = d.execute_script("return [document.getElementById('row-scale').value,"
                                       " document.querySelector('#editor-table thead').textContent];")
        want = "weight at scale %s" % jsfmt(float(field))
        return [] if head.endswith(want) else ["the editor's scale field %r, its table %r" % (field, head)]

    def editor_follows(self):
        """A fresh page, d_k moved to 1024: the editor's scale field and its
        table both say 1/32."""
        d, h = self.d, self.h
        main_tab = d.current_window_handle
        h.new_tab(d, 1280, 900, self.url)
        try:
            h.idle(d, 1, 60)
            g = self.gen()
            h.slide(d, "#dk-slider", 10)
            h.wait_js(d, "return window.sv.state === 'idle' && window.sv.generation > arg"
                      " && document.getElementById('row-scale').value === '0.03125';", g, 60, "the run at d_k 1024")
            h.wait_js(d, "return /scale 0.03125$/.test(document.querySelector('#editor-table thead').textContent);",
                      None, 10, "the editor's table at scale 0.03125")
            return self.editor_scale_agrees()
        finally:
            d.close()
            d.switch_to.window(main_tab)

    def long_run(self):
        """n = 65 536: an estimate with a shorter run offered; a row typed
        meanwhile is answered at once; n back to 256 cancels."""
        d, h, bad = self.d, self.h, []
        g = self.gen()
        h.fill(d, "#n", "65536", change=True)
        h.wait_js(d, "return window.sv.generation > arg && window.sv.state === 'running';", g, 10, "the long run")
        h.fill(d, "#logits", "1,2,3")
        for script, timeout, what in (
                ("const t = document.getElementById('editor-table'); return !!t && t.tBodies[0].rows.length === 3 + 5"
                 " && t.tBodies[0].rows[2].cells[1].textContent === '3';", 5, "the editor during the run"),
                ("const e = document.getElementById('estimate'); return !!e && !e.hidden && /min/.test(e.textContent)"
                 " && !!document.getElementById('shorter');", 20, "the estimate of the long run")):
            try:
                h.wait_js(d, script, None, timeout, what)
            except RuntimeError as e:
                bad.append(str(e))
        self.shot("desktop-long-run.png")
        g = self.gen()
        h.fill(d, "#n", "256", change=True)
        h.idle(d, g + 1, 60)
        h.fill(d, "#logits", "-20,3,25,-15")
        return bad

    def invalid(self):
        """Custom scale 0: the library's message beside it, panels stale, no run;
        empty: its default, which runs; d_k -1 refused; d_k empty: 64, slider too."""
        d, h, bad = self.d, self.h, []
        d.execute_script("window.__before = window.sv.last.main; const s = document.getElementById('scale');"
                         " s.value = 'custom'; s.dispatchEvent(new Event('change'));")
        h.idle(d, self.gen(), 60)
        d.execute_script("window.__before = window.sv.last.main;")
        h.fill(d, "#custom", "0", change=True)
        h.wait_js(d, "return !!document.querySelector('.field-error');", None, 10, "the message of scale 0")
        h.wait_js(d, "return window.sv.state === 'error';", None, 10, "the state error")
        msg, stale, same, cmd = d.execute_script(
            "return [document.querySelector('.field-error').textContent, !!document.querySelector('#p-numbers.stale'),"
            " window.sv.last.main === window.__before, document.getElementById('cmd-numbers').textContent];")
        self.shot("desktop-invalid-scale.png")
        if "'0'" not in msg or "positive number" not in msg:
            bad.append("the message of scale 0: %r" % msg)
        if not stale:
            bad.append("the old numbers are not marked stale")
        if not same or "--scale 0 " in cmd:
            bad.append("scale 0 ran (%r)" % cmd)
        g = self.gen()
        h.fill(d, "#custom", "", change=True)
        h.idle(d, g + 1, 60)
        if d.execute_script("return document.getElementById('custom').value;") != "0.125":
            bad.append("an empty custom scale is not back to 0.125")
        h.fill(d, "#dk", "-1", change=True)
        h.wait_js(d, "return window.sv.state === 'error' && !!document.querySelector('.field-error');", None, 10,
                  "the message of d_k -1")
        if "'-1'" not in d.execute_script("return document.querySelector('.field-error').textContent;"):
            bad.append("d_k -1: no message of the library")
        g = self.gen()
        h.fill(d, "#dk", "", change=True)
        h.idle(d, g + 1, 60)
        st = d.execute_script("return [document.getElementById('dk').value, document.getElementById('dk-slider').value,"
                              " document.getElementById('dk-slider').getAttribute('aria-valuetext'),"
                              " !!document.querySelector('.field-error')];")
        if st != ["64", "6", "d_k = 64", False]:
            bad.append("an empty d_k: field, slider, valuetext, error %r" % st)
        o = page_options(d)
        return bad + check_table(d, self.site, options_args(o), "custom 0.125 after errors")

    def url_read(self):
        """A URL handed out: its settings, its numbers; the editor follows the scale."""
        d, h = self.d, self.h
        main_tab = d.current_window_handle
        h.new_tab(d, 1280, 900, self.url + "?dk=128&n=64&scale=sqrt&causal=1&seed=7&trials=3")
        try:
            h.idle(d, 1, 60)
            o = page_options(d)
            want = {"dk": "128", "n": "64", "trials": "3", "seed": "7", "scale": "sqrt", "causal": True}
            bad = [] if o == want else ["the URL's settings read as %r" % o]
            bad += check_table(d, self.site, options_args(o), "from the URL")
            h.wait_js(d, "return !!document.getElementById('editor-table');", None, 10, "the editor")
            field = d.execute_script("return document.getElementById('row-scale').value;")
            if abs(float(field) - 128 ** -0.5) > 1e-12:
                bad.append("the editor's scale %r does not follow d_k 128" % field)
            return bad + self.editor_scale_agrees()
        finally:
            d.close()
            d.switch_to.window(main_tab)

    def run(self):
        for name in ("a11y", "copy", "displayed", "editor_vs_cli", "causal_dk", "histogram", "sweeps", "row_log",
                     "fonts", "url_written", "puzzle_after_dk", "editor_follows", "long_run", "invalid",
                     "url_read"):
            self.check(name, getattr(self, name))
        print("page checks: %d passed, %d failed%s" % (len(self.passed), len(self.failed),
                                                      (": " + ", ".join(self.failed)) if self.failed else ""))
        return self.failed


def run(d, url, site, helpers, shots=None):
    failed = Checks(d, url, site, helpers, shots).run()
    if failed:
        raise RuntimeError("page checks failed: " + ", ".join(failed))
