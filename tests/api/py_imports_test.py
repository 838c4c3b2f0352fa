#!/usr/bin/env python3
"""style.py_imports: the Python package's modules (python/sdpa_var) import
one another without a circle, no module uses another's underscored names
(`from ._x import _y`, `_x._y`), and every ctypes signature (restype,
argtypes) is set in _lib.py, as llama-cpp-python's llama_cpp.py holds all
of its own (issue 40 item 5). Imports inside functions count: a lazy
import is still a circle of the design.
  tests/api/py_imports_test.py SOURCE_DIR"""
import ast
import glob
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
pkg = os.path.join(root, "python", "sdpa_var")
mods = {os.path.basename(p)[:-3]: p for p in glob.glob(os.path.join(pkg, "*.py"))}
mods["_config"] = None  # _config.py.in: written by CMake, imports nothing
bad, edges = [], {m: set() for m in mods}


def private(name):
    return name.startswith("_") and not name.startswith("__")


for mod, path in sorted(mods.items()):
    if path is None:
        continue
    tree = ast.parse(open(path).read(), path)
    alias = {}  # local name -> package module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module is None:  # from . import _x [as y]
                for a in node.names:
                    if a.name in mods:
                        edges[mod].add(a.name)
                        alias[a.asname or a.name] = a.name
            elif node.module in mods:  # from ._x import y
                edges[mod].add(node.module)
                for a in node.names:
                    if private(a.name):
                        bad.append("%s.py:%d: from .%s import %s (another module's private name)"
                                   % (mod, node.lineno, node.module, a.name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in alias and alias[node.value.id] != mod \
                and private(node.attr):
            bad.append("%s.py:%d: %s.%s (another module's private name)"
                       % (mod, node.lineno, node.value.id, node.attr))
        if mod != "_lib" and isinstance(node, ast.Attribute) \
                and node.attr in ("restype", "argtypes") and isinstance(node.ctx, ast.Store):
            bad.append("%s.py:%d: sets %s: ctypes signatures belong in _lib.py"
                       % (mod, node.lineno, node.attr))

# cycles: a depth-first search that reports each back edge's circle once
seen, stack, cycles = set(), [], set()


def visit(m):
    stack.append(m)
    for n in sorted(edges[m]):
        if n in stack:
            c = stack[stack.index(n):]
            i = c.index(min(c))
            cycles.add(tuple(c[i:] + c[:i]))
        elif n not in seen:
            visit(n)
    stack.pop()
    seen.add(m)


for m in sorted(edges):
    if m not in seen:
        visit(m)
for c in sorted(cycles):
    bad.append("import circle: %s" % " -> ".join(c + (c[0],)))

for b in bad:
    print("FAIL:", b)
n_edges = sum(len(e) for e in edges.values())
print("%d modules, %d imports between them, %d problems" % (len(mods), n_edges, len(bad)))
if len(mods) < 10 or n_edges < 10:
    print("FAIL: too few modules or imports read from %s" % pkg)
    sys.exit(1)
sys.exit(1 if bad else 0)
