#!/usr/bin/env python3
"""check_layers.py ROOT [BUILD]: every dependency in src/ points down.

The layers, lowest first, are the two lists of cmake/layers.cmake (the one
place their order is written): src/<layer>/ for the library, then
src/cli/<layer>/, then the program in src/cli/ itself (main.c; the
build-time tool tools/columns_doc.c uses only the public headers). Two checks, each printing what it found:

1. includes (source text): a quoted #include of a private header (not
   "sdpa_var/...") must name a header of the file's own folder or of a
   lower layer, never a path with "..". Files are grouped into units by
   name (a.c with a.h); the units' include graph must have no loop.
2. calls (BUILD's object files, read with nm): an object that uses a
   symbol another object defines depends on it. That object must be in
   the same or a lower layer, and the objects' graph must have no loop.
   This sees what includes cannot: two files that call each other through
   one shared header.

The public headers in include/sdpa_var/ are the library's interface and
hold types every layer may use; they are not units. Exit 1 on a finding,
2 on bad arguments. scripts/check_layers_test.sh puts a loop and an upward
call back on purpose and checks that both fail.
"""
import os
import re
import subprocess
import sys


def layers(root):
    text = open(os.path.join(root, "cmake", "layers.cmake")).read()

    def read(name):
        m = re.search(r"set\(%s ([a-z_ ]+)\)" % name, text)
        if not m:
            sys.exit("check_layers: %s not found in cmake/layers.cmake" % name)
        return m.group(1).split()

    order = ["src/" + x for x in read("SV_LAYERS")]
    order += ["src/cli/" + x for x in read("SV_CLI_LAYERS")]
    return order + ["src/cli"]


def rank_of(order, path):
    """The layer of a file (src/...): its folder's place in order."""
    folder = os.path.dirname(path)
    return order.index(folder) if folder in order else None


def cycles(graph):
    """Each loop once, as a list of nodes (Tarjan's components of size > 1,
    or a node with an edge to itself)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_includes(root, order):
    findings, files = [], []
    for folder in order:
        d = os.path.join(root, folder)
        files += [os.path.join(folder, f) for f in sorted(os.listdir(d))
                  if f.endswith((".c", ".h"))]
    headers = {}
    for f in files:
        if f.endswith(".h"):
            headers.setdefault(os.path.basename(f), []).append(f)
    unit = lambda f: f[:-2]  # src/core/rng.c and src/core/rng.h: src/core/rng
    graph, why = {}, {}
    for f in files:
        graph.setdefault(unit(f), set())
        for n, line in enumerate(open(os.path.join(root, f)), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m or m.group(1).startswith("sdpa_var/"):
                continue
            inc = m.group(1)
            if ".." in inc or "/" in inc:
                findings.append("%s:%d: includes \"%s\": name a header of a folder by its "
                                "name alone (the build puts only lower layers on the path)"
                                % (f, n, inc))
                continue
            local = os.path.join(os.path.dirname(f), inc)
            target = local if local in files else None
            if target is None:
                below = [h for h in headers.get(inc, [])
                         if rank_of(order, h) < rank_of(order, f)]
                above = [h for h in headers.get(inc, [])
                         if rank_of(order, h) > rank_of(order, f)]
                if above and not below:
                    findings.append("%s:%d: includes \"%s\" of %s, a higher layer"
                                    % (f, n, inc, os.path.dirname(above[0])))
                    continue
                target = below[0] if below else None
            if target is not None and unit(target) != unit(f):
                graph[unit(f)].add(unit(target))
                why.setdefault((unit(f), unit(target)), "%s:%d" % (f, n))
    for loop in cycles(graph):
        ties = ["%s -> %s (%s)" % (a, b, why[(a, b)]) for a in loop for b in loop
                if (a, b) in why]
        findings.append("include loop: %s" % "; ".join(ties))
    return findings, len(files)


def check_calls(root, order, build):
    objects = []
    for dirpath, _, names in os.walk(build):
        for n in names:
            if n.endswith(".c.o") and "/src/" in dirpath + "/":
                path = os.path.join(dirpath, n)
                src = "src/" + os.path.relpath(path, build).split("/src/", 1)[1][:-2]
                # objects of files that no longer exist (a moved file's
                # old object in a reused build tree) are not the code
                if rank_of(order, src) is not None and os.path.exists(os.path.join(root, src)):
                    objects.append((src, path))
    if not objects:
        return ["no object files of src/ under %s: build first" % build], 0
    defs, uses = {}, {}
    for src, path in objects:
        out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRC":
                defs[p[2]] = src
            elif len(p) == 2 and p[0] == "U":
                uses.setdefault(src, set()).add(p[1])
    graph, why, findings = {}, {}, []
    for src, _ in objects:
        graph.setdefault(src, set())
        for sym in sorted(uses.get(src, ())):
            dst = defs.get(sym)
            if dst is None or dst == src:
                continue
            graph[src].add(dst)
            why.setdefault((src, dst), []).append(sym)
    for (a, b), syms in sorted(why.items()):
        if rank_of(order, b) > rank_of(order, a):
            findings.append("upward call: %s -> %s (%s), a higher layer"
                            % (a, b, ", ".join(syms[:4])))
    for loop in cycles(graph):
        ties = ["%s -> %s (%s)" % (a, b, ", ".join(why[(a, b)][:3])) for a in loop
                for b in loop if (a, b) in why]
        findings.append("call loop: %s" % "; ".join(ties))
    return findings, len(objects)


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: check_layers.py ROOT [BUILD]", file=sys.stderr)
        return 2
    root = argv[1]
    order = layers(root)
    for folder in order:
        if not os.path.isdir(os.path.join(root, folder)):
            print("check_layers: %s is in cmake/layers.cmake but not a folder" % folder,
                  file=sys.stderr)
            return 1
    stray = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(root, "src"))
             for f in fs if f.endswith((".c", ".h"))
             and os.path.relpath(d, root) not in order]
    findings = ["%s: in no layer of cmake/layers.cmake" % os.path.relpath(f, root)
                for f in sorted(stray)]
    inc, n_files = check_includes(root, order)
    findings += inc
    n_objects = 0
    if len(argv) == 3:
        calls, n_objects = check_calls(root, order, argv[2])
        findings += calls
    for f in findings:
        print("check_layers: " + f, file=sys.stderr)
    if findings:
        return 1
    print("check_layers: %d layers (%s); %d files' includes%s point down, no loop"
          % (len(order), " < ".join(o[4:] for o in order), n_files,
             " and %d objects' calls" % n_objects if n_objects else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
