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
import csv
import io
import json
import math
import os
import shlex
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


def cli_text(site, args):
    """The CLI's stdout for args (a list, the program first dropped)."""
    out = subprocess.run([cli_bin(site)] + [str(a) for a in args], check=True, capture_output=True, text=True)
    return out.stdout


def shell_args(cmd):
    """A command the page shows ('sdpa-var --dk 64 ...') as the CLI's arguments."""
    words = shlex.split(cmd)
    if not words or words[0] != "sdpa-var":
        raise RuntimeError("not an sdpa-var command: %r" % cmd)
    return words[1:]


def sig_digits(text):
    """Significant digits of a displayed number ('0.007641' -> 4, '1.000' -> 4)."""
    m = text.strip().lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    return len(m)


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
                      " return [!!p, c.canvas.closest('.plot').dataset.markDk || null];")
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

    # ---- issue 41 (the page) ----
    RUN_PANELS = ("p-numbers", "p-hist", "p-row", "p-entropy", "p-maxw")

    def stale_panels(self):
        return self.d.execute_script("return arguments[0].filter((id) => document.getElementById(id)"
                                     ".classList.contains('stale'));", list(self.RUN_PANELS))

    def typed_stale(self):
        """d_k typed (input events, no change): every dependent panel stale at
        once, then a run of the typed value after a pause, in the URL."""
        d, h, bad = self.d, self.h, []
        g = self.gen()
        d.execute_script("const el = document.getElementById('dk'); el.focus(); el.value = '32';"
                         " el.dispatchEvent(new Event('input', { bubbles: true }));")
        stale = self.stale_panels()
        if len(stale) != len(self.RUN_PANELS):
            bad.append("typing 32 marked %r stale, not all of %r" % (stale, self.RUN_PANELS))
        h.wait_js(d, "return window.sv.state === 'idle' && window.sv.generation > arg"
                  " && document.getElementById('cmd-numbers').textContent.includes('--dk 32 ');", g, 60,
                  "the run of the typed d_k 32")
        if "dk=32" not in d.execute_script("return location.search;"):
            bad.append("the URL %r lacks dk=32" % d.execute_script("return location.search;"))
        if self.stale_panels():
            bad.append("still stale after the run: %r" % self.stale_panels())
        return bad

    def history_back(self):
        """New settings are a history entry: Back returns to the earlier
        settings on the same page, and runs them."""
        d, h = self.d, self.h
        d.execute_script("window.__same = 1;")
        before = page_options(d)
        g = self.gen()
        h.fill(d, "#dk", "16", change=True)
        h.idle(d, g + 1, 60)
        g = self.gen()
        d.back()
        try:
            h.wait_js(d, "return window.__same === 1 && window.sv.state === 'idle' && window.sv.generation > arg"
                      " && document.getElementById('dk').value === arg2;".replace("arg2", repr(before["dk"])),
                      g, 60, "Back to d_k %s" % before["dk"])
        except RuntimeError as e:
            return [str(e)]
        o = page_options(d)
        return [] if o == before else ["after Back the controls read %r, not %r" % (o, before)]

    def letters(self):
        """Letters in a number field: refused with a message, nothing run, the
        field not silently set to its default."""
        d, h, bad = self.d, self.h, []
        el = d.find_element("css selector", "#seed")
        d.execute_script("arguments[0].scrollIntoView({ block: 'center' }); arguments[0].value = '';", el)
        el.click()
        el.send_keys("4e")
        d.execute_script("arguments[0].dispatchEvent(new Event('change', { bubbles: true }));", el)
        try:
            h.wait_js(d, "return window.sv.state === 'error' && !!document.querySelector('#error-seed');", None, 10,
                      "the message of letters in seed")
        except RuntimeError as e:
            bad.append(str(e))
        msg = d.execute_script("const e = document.querySelector('.field-error'); return e ? e.textContent : '';")
        if "not a number" not in msg:
            bad.append("letters in seed: message %r" % msg)
        if self.stale_panels() != list(self.RUN_PANELS):
            bad.append("letters in seed: the old panels are not all stale")
        g = self.gen()
        h.fill(d, "#seed", "42", change=True)
        h.idle(d, g + 1, 60)
        return bad

    def trials_cap(self):
        """trials 1e9: refused with its message, nothing running, no panel
        saying it reruns, no estimate or shorter run offered."""
        d, h, bad = self.d, self.h, []
        g = self.gen()
        h.fill(d, "#trials", "1e9", change=True)
        try:
            h.wait_js(d, "return window.sv.generation > arg && window.sv.state === 'error';", g, 20,
                      "the refusal of trials 1e9")
        except RuntimeError as e:
            bad.append(str(e))
        import time
        time.sleep(1.0)  # anything still to come (a run, an estimate) comes now
        st = d.execute_script(
            "return { state: window.sv.state, status: document.getElementById('state').textContent,"
            " msg: (document.querySelector('#error-trials') || {}).textContent || '',"
            " notes: Array.from(document.querySelectorAll('.stale-note'), (e) => e.textContent),"
            " estimate: !document.getElementById('estimate').hidden, shorter: !!document.getElementById('shorter')"
            " && !document.getElementById('estimate').hidden };")
        if "more than this page runs" not in st["msg"]:
            bad.append("trials 1e9: the message beside the field is %r" % st["msg"])
        if st["state"] != "error" or "run: invalid argument" in st["status"]:
            bad.append("trials 1e9: state %r, status %r" % (st["state"], st["status"]))
        if any("rerunning" in n for n in st["notes"]) or len(st["notes"]) != len(self.RUN_PANELS):
            bad.append("trials 1e9: the panels' notes %r" % st["notes"])
        if st["estimate"] or st["shorter"]:
            bad.append("trials 1e9: an estimate or a shorter run is offered with nothing to run")
        self.shot("desktop-trials-1e9.png")
        g = self.gen()
        h.fill(d, "#trials", "20", change=True)
        h.idle(d, g + 1, 60)
        return bad

    def logn_causal(self):
        """logn in the scale menu; logn with causal runs as the CLI (no
        histogram: the CLI refuses it too, the panel says why)."""
        d, h = self.d, self.h
        if not d.execute_script("return !!document.querySelector('#scale option[value=logn]');"):
            return ["no logn in the scale menu"]
        g = self.gen()
        d.execute_script("const s = document.getElementById('scale'); s.value = 'logn';"
                         " s.dispatchEvent(new Event('change')); const c = document.getElementById('causal');"
                         " if (!c.checked) c.click();")
        try:
            h.wait_js(d, "return window.sv.generation > arg && (window.sv.state === 'idle' || window.sv.state === 'error');",
                      g, 120, "the logn causal run")
        except RuntimeError as e:
            return [str(e)]
        bad = []
        st = d.execute_script("return [window.sv.state, document.getElementById('state').textContent,"
                              " document.getElementById('hist-outside').textContent];")
        if st[0] != "idle":
            return ["logn with causal: %r" % st[:2]]
        if "logn" not in st[2]:
            bad.append("the histogram panel does not say why it is empty: %r" % st[2])
        o = page_options(d)
        bad += check_table(d, self.site, options_args(o), "logn, causal")
        g = self.gen()
        d.execute_script("const s = document.getElementById('scale'); s.value = 'sqrt'; s.dispatchEvent(new Event('change'));"
                         " document.getElementById('causal').click();")
        h.idle(d, g + 1, 60)
        return bad

    def resize(self):
        """1 366 px, then 390 px: the page no wider than the window, each plot
        inside its panel and redrawn at the new width."""
        d, h, bad = self.d, self.h, []
        measure = ("return { page: document.documentElement.scrollWidth, plots: Array.from(document.querySelectorAll("
                   "'.plot canvas'), (c) => { const r = c.getBoundingClientRect(), p = c.closest('.panel')"
                   ".getBoundingClientRect(); return [c.closest('.plot').id, Math.round(r.width), r.right <= p.right + 0.5"
                   " && r.left >= p.left - 0.5]; }) };")
        try:
            h.viewport(d, 1366, 900)
            h.wait_js(d, "return document.documentElement.clientWidth === 1366;", None, 5, "1366 px")
            import time
            time.sleep(0.5)
            wide = d.execute_script(measure)
            self.shot("desktop-1366.png")
            h.viewport(d, 390, 844)
            h.wait_js(d, "return Array.from(document.querySelectorAll('.plot canvas')).every((c) =>"
                      " c.getBoundingClientRect().right <= c.closest('.panel').getBoundingClientRect().right + 0.5);",
                      None, 5, "the plots inside their panels at 390 px")
        except RuntimeError as e:
            bad.append(str(e))
        narrow = d.execute_script(measure)
        if self.shots:
            d.execute_script("document.body.classList.add('shot'); window.scrollTo(0, 0);")
            self.h.png(d, os.path.join(self.shots, "phone-390-resized.png"), True)
            d.execute_script("document.body.classList.remove('shot');")
        if narrow["page"] > 390:
            bad.append("at 390 px the page is %d px wide" % narrow["page"])
        for pid, w, inside in narrow["plots"]:
            if not inside:
                bad.append("at 390 px %s sticks out of its panel" % pid)
        widths = {p[0]: p[1] for p in wide["plots"]}
        for pid, w, _ in narrow["plots"]:
            if pid in widths and w >= widths[pid] and w > 360:
                bad.append("%s stayed %d px wide" % (pid, w))
        self.nowrap_at_390(bad)
        h.viewport(d, 1280, 900)
        return bad

    def nowrap_at_390(self, bad):
        """Numbers never wrap: each table cell's text is one line (at 390 px)."""
        lines = self.d.execute_script(
            "return Array.from(document.querySelectorAll('#numbers td, #editor-table td'), (td) => {"
            " const r = document.createRange(); r.selectNodeContents(td);"
            " const tops = new Set(Array.from(r.getClientRects(), (x) => Math.round(x.top)));"
            " return [td.textContent, tops.size]; }).filter((x) => x[1] > 1);")
        for text, n in lines:
            bad.append("the cell %r wraps over %d lines" % (text, n))

    def shell_matches(self):
        """The shell commands print what the panels show: the table's columns
        and its ± s.e. (sd / √trials), the histogram's bins and counts."""
        d, bad = self.d, []
        cmd, trials = d.execute_script("return [document.getElementById('cmd-numbers').textContent,"
                                       " Number(document.getElementById('trials').value)];")
        row = json.loads(cli_text(self.site, shell_args(cmd)))["rows"][0]
        cells = d.execute_script("return Array.from(document.querySelectorAll('#numbers td[data-col]'),"
                                 " (td) => [td.dataset.col, td.textContent]);")
        for col, text in cells:
            if col not in row:
                bad.append("the command does not print %s" % col)
                continue
            if not agrees(number(text), row[col]):
                bad.append("%s shows %r, the command %r" % (col, text, row[col]))
            if "±" in text:
                se = float(text.split("±")[1])
                want = row.get(col + "_sd", float("nan")) / math.sqrt(trials)
                if not abs(se - want) <= 5.01e-2 * abs(want):
                    bad.append("%s shows ± %r, the command's sd / √%d = %r" % (col, se, trials, want))
        h = d.execute_script("return window.sv.last.main.hist;")
        cmds = d.execute_script("return [document.getElementById('cmd-hist').textContent,"
                                " document.getElementById('cmd-hist2').textContent];")
        for (kind, key), c in zip((("raw", "raw_count"), ("scaled", "scaled_count")), cmds):
            rows = list(csv.DictReader(io.StringIO(cli_text(self.site, shell_args(c)))))
            by_lo = [(float(r["bin_lo"]), float(r["bin_hi"]), int(r[key])) for r in rows]
            for lo, hi, count, _ in h[kind]:
                match = [b for b in by_lo if abs(b[0] - lo) <= 1e-9 * (1 + abs(lo)) and abs(b[1] - hi) <= 1e-9 * (1 + abs(hi))]
                if len(match) != 1 or match[0][2] != count:
                    bad.append("%s bin [%g, %g): the page %d, the command %r" % (kind, lo, hi, count, match[:1]))
                    break
        total = sum(b[2] for b in h["raw"]) + h["outside"][0]
        scaled = sum(b[2] for b in h["scaled"]) + h["outside"][1]
        if scaled != total:
            bad.append("scaled bins + outside = %d, not the %d scores" % (scaled, total))
        shown = d.execute_script("return document.getElementById('hist-outside').textContent;")
        if "{:,}".format(h["outside"][1]) not in shown:
            bad.append("the scaled outside count %d is not shown: %r" % (h["outside"][1], shown))
        return bad

    def outside_dk2(self):
        """d_k 2 at scale dk: the scaled scores beyond ±6 σ counted outside."""
        d, h = self.d, self.h
        main_tab = d.current_window_handle
        h.new_tab(d, 1280, 900, self.url + "?dk=2&n=256&scale=dk&trials=20&seed=42")
        try:
            h.idle(d, 1, 60)
            hist = d.execute_script("return window.sv.last.main.hist;")
            total = sum(b[2] for b in hist["raw"]) + hist["outside"][0]
            scaled = sum(b[2] for b in hist["scaled"]) + hist["outside"][1]
            bad = [] if scaled == total else ["d_k 2: scaled bins + outside = %d of %d scores" % (scaled, total)]
            return bad + self.shell_matches()
        finally:
            d.close()
            d.switch_to.window(main_tab)

    def raw_hist_visible(self):
        """d_k 4096: the raw histogram is a bell, not a flat line (its peak
        at least a third of the plot's height)."""
        d, h = self.d, self.h
        main_tab = d.current_window_handle
        h.new_tab(d, 1280, 900, self.url + "?dk=4096&n=64&trials=4")
        try:
            h.idle(d, 1, 120)
            f = chart(d, "#plot-hist", "const ds = c.data.datasets.find((s) => s.label === 'raw scores');"
                      " const ax = c.scales[ds.yAxisID || 'y'], a = c.chartArea;"
                      " const top = Math.max(...ds.data.map((p) => p.y || 0));"
                      " return (a.bottom - ax.getPixelForValue(top)) / (a.bottom - a.top);")
            self.shot("desktop-dk4096.png")
            return [] if f is not None and f >= 1 / 3 else ["d_k 4096: the raw bell's peak is %r of the height" % f]
        finally:
            d.close()
            d.switch_to.window(main_tab)

    def cells_digits(self):
        """A measured 1.000 shows its four digits: 1.000 ± 4.5e-4, not 1 ± 4.5e-4."""
        d, bad = self.d, []
        t = d.execute_script("return cell('x', 1.0000213, 0.00045).textContent;")
        if t != "1.000 ± 4.5e-4":
            bad.append("cell(1.0000213, 4.5e-4) shows %r" % t)
        for col, text in d.execute_script("return Array.from(document.querySelectorAll('#numbers td[data-col]'),"
                                          " (td) => [td.dataset.col, td.textContent.split('±')[0].trim()]);"):
            v = number(text)
            if v is not None and v != 0 and abs(v) < 1e4 and sig_digits(text) != 4:
                bad.append("%s shows %r" % (col, text))
        return bad

    def copy_names(self):
        names = self.d.execute_script("return Array.from(document.querySelectorAll('button.copy'),"
                                      " (b) => b.getAttribute('aria-label') || b.textContent);")
        return [] if len(set(names)) == len(names) else ["copy buttons share names: %r" % names]

    def focus_ring(self):
        """A focus ring seen from the back of the room: 3 px at least."""
        d, bad = self.d, []
        for sel in ("#trials", "#scale", "#puzzle"):
            w = d.execute_script("const e = document.querySelector(arguments[0]); e.focus();"
                                 " const s = getComputedStyle(e); const w = s.outlineStyle === 'none' ? 0 :"
                                 " parseFloat(s.outlineWidth); e.blur(); return w;", sel)
            if w < 3:
                bad.append("%s: a %s px focus ring" % (sel, w))
        return bad

    def version(self):
        want = cli_text(self.site, ["--version"]).split()[1]
        got = self.d.execute_script("return document.getElementById('version').textContent.trim();")
        return [] if got == want else ["the footer's version %r, the CLI's %r" % (got, want)]

    def run(self):
        for name in ("a11y", "copy", "displayed", "editor_vs_cli", "causal_dk", "histogram", "sweeps", "row_log",
                     "fonts", "url_written", "puzzle_after_dk", "editor_follows", "long_run", "invalid",
                     "url_read", "version", "copy_names", "focus_ring", "cells_digits", "typed_stale",
                     "history_back", "letters", "trials_cap", "shell_matches", "resize", "logn_causal",
                     "outside_dk2", "raw_hist_visible"):
            self.check(name, getattr(self, name))
        print("page checks: %d passed, %d failed%s" % (len(self.passed), len(self.failed),
                                                      (": " + ", ".join(self.failed)) if self.failed else ""))
        return self.failed


def run(d, url, site, helpers, shots=None):
    failed = Checks(d, url, site, helpers, shots).run()
    if failed:
        raise RuntimeError("page checks failed: " + ", ".join(failed))
