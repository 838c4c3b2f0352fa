#!/usr/bin/python3
"""The page in a real browser (ctest web.page, through tests/web/page_test.sh).

Debian's headless Chromium driven by Debian's python3-selenium and
chromium-driver (no npm package: the npm registry may be out of reach).
Serves the built site on 127.0.0.1 (a free port, http.server in a thread),
waits for the first result, moves the d_k slider (twice, quickly: the first
run is cancelled), clicks the puzzle button, types a logits row, and writes
what the page shows to OUT/page.json for the wrapper to compare with the
CLI; n = 65 537, above the page's largest n, must be set back to 65 536 (the
run it starts is cancelled). Then page_checks.py (issue 34): what is displayed
against the CLI (SV_BIN, else build/sdpa-var), the plots, the stale views, the
URL, copy buttons, accessible names and a long run's estimate. Optional: SV_WEB_SHOTS=DIR saves screenshots,
SV_WEB_PERF=1 times one trial of 65 536 tokens at d_k 64 (the page's largest
n; minutes: scripts/web_bench.sh). SV_CHROMIUM and SV_CHROMEDRIVER name the
browser and its driver (default /usr/bin/chromium, /usr/bin/chromedriver).
  /usr/bin/python3 web/test/page_test.py SITE_DIR OUT_DIR
"""
import base64
import functools
import http.server
import json
import os
import sys
import threading

import page_checks
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait


class Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map,
                          **{".js": "text/javascript", ".css": "text/css",
                             ".html": "text/html", ".txt": "text/plain"})

    def log_message(self, *args):
        pass


def serve(site):
    handler = functools.partial(Quiet, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("SV_CHROMIUM", "/usr/bin/chromium")
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1280,900", "--hide-scrollbars"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(os.environ.get("SV_CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=opts)


def viewport(d, width, height):
    """The page's size in CSS pixels, one device pixel each."""
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def console_errors(d):
    """Print the page's errors (console.error, uncaught exceptions) so far."""
    for e in d.get_log("browser"):
        if e.get("level") == "SEVERE":
            print("page: " + e.get("message", ""), file=sys.stderr)


# The waits are hang guards, not deadlines: each is many times what it waits
# for on a quiet machine, and SV_TEST_TIMEOUT_SCALE (a whole number, README
# "Tests") multiplies them all, as it does ctest's timeouts.
SCALE = int(os.environ.get("SV_TEST_TIMEOUT_SCALE") or 1)


def wait_js(d, script, arg=None, timeout=30, what="the page"):
    """Wait until `script` (the body of a function of `arg`) returns truthy,
    for up to `timeout` s times SCALE."""
    body = "const arg = arguments[0];\n" + script
    timeout *= SCALE
    try:
        WebDriverWait(d, timeout, poll_frequency=0.05).until(lambda drv: drv.execute_script(body, arg))
    except TimeoutException:
        state = d.execute_script("return window.sv ? [window.sv.state, window.sv.generation, "
                                 "document.getElementById('state').textContent] : null")
        console_errors(d)
        raise RuntimeError("timed out after %s s waiting for %s (state, generation, status: %r)"
                           % (timeout, what, state)) from None


def idle(d, gen, timeout=240):
    wait_js(d, "return window.sv && window.sv.state === 'idle' && window.sv.generation >= arg;",
            gen, timeout, "state idle at generation >= %d" % gen)


def selector(d, sel, timeout=30):
    wait_js(d, "return document.querySelector(arg) !== null;", sel, timeout, sel)


def read(d, sel):
    """The page's numbers: every element with data-col inside `sel`."""
    return d.execute_script(
        "return Object.fromEntries(Array.from(document.querySelectorAll(arguments[0] + ' [data-col]'),"
        " (e) => [e.dataset.col, e.dataset.value === 'null' ? null : Number(e.dataset.value)]));", sel)


def controls(d):
    """The controls as the page read them."""
    return d.execute_script("return Object.fromEntries(['dk', 'n', 'trials', 'seed'].map("
                            "(id) => [id, Number(document.getElementById(id).value)]));")


def slide(d, sel, log2):
    d.execute_script("const el = document.querySelector(arguments[0]); el.value = String(arguments[1]);"
                     " el.dispatchEvent(new Event('input'));", sel, log2)


def fill(d, sel, value, change=False):
    """Set a field as typing would: its value, then an input event (and a
    change event when asked: the page's number fields listen to change)."""
    d.execute_script("const el = document.querySelector(arguments[0]); el.focus(); el.value = arguments[1];"
                     " el.dispatchEvent(new Event('input', { bubbles: true }));"
                     " if (arguments[2]) el.dispatchEvent(new Event('change', { bubbles: true }));",
                     sel, value, change)


def click(d, sel):
    el = d.find_element("css selector", sel)
    # Centred, so that the sticky bar of controls does not cover it.
    d.execute_script("arguments[0].scrollIntoView({ block: 'center' });", el)
    el.click()


def png(d, path, full):
    """A screenshot: the whole page (full) or what the viewport shows."""
    args = {"format": "png"}
    if full:
        m = d.execute_cdp_cmd("Page.getLayoutMetrics", {})
        size = m.get("cssContentSize") or m["contentSize"]
        args.update(captureBeyondViewport=True,
                    clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
    data = d.execute_cdp_cmd("Page.captureScreenshot", args)["data"]
    with open(path, "wb") as f:
        f.write(base64.b64decode(data))


def shot(d, path):
    d.execute_script("document.body.classList.add('shot'); window.scrollTo(0, 0);")
    png(d, path, True)
    d.execute_script("document.body.classList.remove('shot');")


def new_tab(d, width, height, url):
    d.switch_to.new_window("tab")
    viewport(d, width, height)
    d.get(url)


def run(d, url, site, shots, perf):
    out = {"main": [], "options": []}
    viewport(d, 1280, 900)
    d.get(url)
    idle(d, 1)
    out["first_result_ms"] = d.execute_script("return window.sv.times.first;")
    out["pcg"] = d.execute_script("return document.getElementById('state').textContent;")
    out["options"].append(controls(d))
    out["main"].append(read(d, "#numbers"))
    if shots:
        shot(d, os.path.join(shots, "desktop-dk64.png"))

    # Move d_k: 1024 then at once 256; the first run is cancelled.
    gen = d.execute_script("return window.sv.generation;")
    slide(d, "#dk-slider", 10)
    wait_js(d, "return window.sv.state === 'running';", None, 10, "the d_k = 1024 run")
    slide(d, "#dk-slider", 8)
    idle(d, gen + 2)
    out["options"].append(controls(d))
    out["main"].append(read(d, "#numbers"))
    if out["options"][1]["dk"] != 256:
        raise RuntimeError("the d_k field reads %s, not 256" % out["options"][1]["dk"])

    # The puzzle.
    click(d, "#puzzle")
    selector(d, "#puzzle-stats [data-col]", 120)
    idle(d, 0)
    out["puzzle"] = read(d, "#puzzle-stats")

    # The row editor: the lecture's row at scale 0.5.
    fill(d, "#row-scale", "0.5")
    fill(d, "#logits", "-20,3,25,-15")
    wait_js(d, "const l = window.sv.last.logits; return !!l && l.logits.length === 4 && l.scale === 0.5;",
            None, 30, "the row editor's result")
    selector(d, "#editor-table [data-col=scaled_weight_3]")
    out["logits"] = read(d, "#editor-table")
    if shots:
        shot(d, os.path.join(shots, "desktop-dk256-puzzle.png"))
        main_tab = d.current_window_handle
        new_tab(d, 390, 844, url)
        idle(d, 1)
        shot(d, os.path.join(shots, "phone-dk64.png"))
        d.close()
        d.switch_to.window(main_tab)
        new_tab(d, 1280, 500, "file://" + os.path.join(site, "index.html"))
        selector(d, "#fileproto:not([hidden])")
        png(d, os.path.join(shots, "file-protocol.png"), False)
        d.close()
        d.switch_to.window(main_tab)

    # Above the largest n: the field is set back to 65 536, which starts;
    # n = 256 then cancels it (the worker is terminated).
    g0 = d.execute_script("return window.sv.generation;")
    fill(d, "#n", "65537", change=True)
    wait_js(d, "return window.sv.generation > arg && window.sv.state === 'running';", g0, 10,
            "the n = 65 536 run")
    out["n_above"] = d.execute_script("return { field: document.getElementById('n').value,"
                                      " state: document.getElementById('state').textContent };")
    if out["n_above"]["field"] != "65536" or "65536 × 65536" not in out["n_above"]["state"]:
        raise RuntimeError("n = 65537 was not set back to 65536: " + json.dumps(out["n_above"]))
    fill(d, "#n", "256", change=True)
    idle(d, g0 + 2)
    # Issue 34's checks: what is displayed, the plots, the stale views.
    page_checks.run(d, url, site, sys.modules[__name__], shots)
    out["browser"] = d.capabilities.get("browserVersion", "?")
    if perf:
        g = d.execute_script("return window.sv.generation;")
        fill(d, "#trials", "1", change=True)
        idle(d, g + 1)
        slide(d, "#dk-slider", 6)
        slide(d, "#n-slider", 16)
        idle(d, g + 2, 1800)
        out["perf_65536_ms"] = d.execute_script("return window.sv.times.main;")
    console_errors(d)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: page_test.py SITE_DIR OUT_DIR")
    site, out_dir = (os.path.abspath(p) for p in sys.argv[1:])
    shots = os.environ.get("SV_WEB_SHOTS")
    if shots:
        shots = os.path.abspath(shots)
        os.makedirs(shots, exist_ok=True)
    server = serve(site)
    url = "http://127.0.0.1:%d/" % server.server_address[1]
    d = browser()
    try:
        out = run(d, url, site, shots, bool(os.environ.get("SV_WEB_PERF")))
    finally:
        d.quit()
        server.shutdown()
        server.server_close()
    with open(os.path.join(out_dir, "page.json"), "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
    print("web.page: first result %d ms after load; n = 65 537 set back to %s%s"
          % (round(out["first_result_ms"]), out["n_above"]["field"],
             "; 65 536 tokens at d_k 64: %d ms" % round(out["perf_65536_ms"]) if out.get("perf_65536_ms") else ""))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # one line, as the JS test printed
        print("page_test: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
