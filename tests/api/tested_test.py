#!/usr/bin/env python3
"""api.tested (issue 14 section 3, issue 40 item 7): every public function
is called by some test.

The public functions are the sv_* declared in include/sdpa_var/*.h (a line
that starts a declaration: return type, then sv_name followed by '('). A
test calls one where its name is followed by '(' in code: C files
(.c, .h) and Python files (.py) under tests/, with comments and string
literals removed first, so a name in a comment, a docstring or a message
counts for nothing. Prints the number of calls of the least-called
functions, fails naming each function no test calls.

Before the real check it runs the check on a small tree of its own: a
function named only in a comment and a string there must be reported
(a check that could not fail would prove nothing).
    tests/api/tested_test.py SOURCE_DIR
"""
import io
import os
import re
import sys
import tempfile
import tokenize

DECL = re.compile(r"^[a-z_][a-z0-9_ ]*[ *]+(sv_[a-z0-9_]+)\(", re.M)
CALL = re.compile(r"\b(sv_[a-z0-9_]+)\s*\(")
# C: comments and literals, in the order the lexer meets them.
C_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def c_code(text):
    """C source without comments and string or character literals."""
    return C_TOKENS.sub(lambda m: " " if m.group(0)[0] in "/" else '""', text)


def py_code(text):
    """Python source without comments and strings (docstrings included)."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.COMMENT, tokenize.STRING):
                continue
            if tok.type == getattr(tokenize, "FSTRING_MIDDLE", None):
                continue
            out.append(tok.string)
    except (tokenize.TokenError, SyntaxError):
        return ""
    return " ".join(out)


def declared(root):
    names = set()
    folder = os.path.join(root, "include", "sdpa_var")
    for f in sorted(os.listdir(folder)):
        if f.endswith(".h"):
            names.update(DECL.findall(open(os.path.join(folder, f)).read()))
    return names


def calls(root):
    """Calls of each sv_* name in the code of tests/ (golden/ is data)."""
    count = {}
    for d, subdirs, files in os.walk(os.path.join(root, "tests")):
        subdirs[:] = sorted(s for s in subdirs if s not in ("golden", "__pycache__"))
        for f in sorted(files):
            path = os.path.join(d, f)
            if f.endswith((".c", ".h")):
                code = c_code(open(path, errors="replace").read())
            elif f.endswith(".py") and os.path.abspath(path) != os.path.abspath(__file__):
                code = py_code(open(path, errors="replace").read())
            else:
                continue
            for name in CALL.findall(code):
                count[name] = count.get(name, 0) + 1
    return count


def check(root, least=50, quiet=False):
    """Names declared but never called; None when fewer than `least` are
    declared (a broken pattern would check nothing)."""
    fns = declared(root)
    if len(fns) < least:
        print("api.tested: found only %d declarations in include/sdpa_var/*.h" % len(fns),
              file=sys.stderr)
        return None
    count = calls(root)
    missing = sorted(f for f in fns if not count.get(f))
    if not quiet:
        for f in missing:
            print("api.tested: %s is declared in include/sdpa_var/ but no test under tests/ "
                  "calls it (a name in a comment or string does not count)" % f, file=sys.stderr)
        fewest = sorted((count[f], f) for f in fns if count.get(f))[:5]
        print("api.tested: %d of %d public functions called by a test; fewest calls: %s"
              % (len(fns) - len(missing), len(fns),
                 ", ".join("%s %d" % (f, n) for n, f in fewest)))
    return missing


def self_test():
    """A function named only in a comment, a string and a docstring is not
    called; one called once is."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "include", "sdpa_var"))
        os.makedirs(os.path.join(root, "tests"))
        with open(os.path.join(root, "include", "sdpa_var", "a.h"), "w") as h:
            h.write("/** sv_a_doc(x) in a docstring is no declaration. */\n"
                    "sv_status sv_a_called(int x);\nconst char *sv_a_mentioned(void);\n"
                    "double sv_a_python(double x);\n")
        with open(os.path.join(root, "tests", "test_a.c"), "w") as c:
            c.write("/* sv_a_mentioned() is only mentioned here */\n"
                    "// and here: sv_a_mentioned(\n"
                    "int main(void) { puts(\"sv_a_mentioned()\"); return sv_a_called(1); }\n")
        with open(os.path.join(root, "tests", "a_test.py"), "w") as p:
            p.write('"""sv_a_mentioned() in a docstring."""\n'
                    "# sv_a_mentioned() in a comment\n"
                    "lib.sv_a_python(1.0)  # called\n"
                    "print('sv_a_mentioned(')\n")
        missing = check(root, least=3, quiet=True)
    if missing != ["sv_a_mentioned"]:
        print("api.tested: self-test: expected only sv_a_mentioned uncalled, got %s" % missing,
              file=sys.stderr)
        return False
    return True


def main(argv):
    if len(argv) != 2:
        print("usage: tested_test.py SOURCE_DIR", file=sys.stderr)
        return 2
    if not self_test():
        return 1
    missing = check(argv[1])
    return 1 if missing is None or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
