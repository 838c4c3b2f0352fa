#!/usr/bin/env bash
# ctest install.wheel (issue 32 §1): `pip install SRC` into a new venv, as
# README's "From Python" says, builds the wheel with scikit-build-core
# (pyproject.toml) from the project's CMake; then, with no PYTHONPATH and
# from another directory: `import sdpa_var` comes from the venv and loads
# the wheel's own library; the venv's bin/sdpa-var prints the headline's
# bytes (the same as BIN's, this machine); the README's Python block runs
# and its random() equals the wheel's CLI; the man page is in the venv.
# PyPI packages: pinned by requirements.txt (-c); torch for the README's
# block comes from build-venv/py (scripts/test.sh makes it), seen through a
# .pth file. Says SKIP (77) without that venv.
#   wheel_test.sh SRC BIN VENV VERSION
set -euo pipefail
src=$1 bin=$2 venv=$3 version=$4
if [ ! -f "$venv/stamp" ]; then
    echo "SKIP: no venv at $venv (scripts/test.sh makes it from requirements.txt)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset PYTHONPATH LD_LIBRARY_PATH
fail=0
python3 -m venv "$tmp/v"
if ! "$tmp/v/bin/python" -m pip install -q --disable-pip-version-check --no-input \
    -c "$src/requirements.txt" "$src" >"$tmp/pip.log" 2>&1; then
    grep -v '^WARNING: Location' "$tmp/pip.log" | tail -n 30
    echo "FAIL: pip install $src"
    exit 1
fi
site=$("$tmp/v/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$venv/py/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' >"$site/zz_build_venv.pth"
cd "$tmp"

# the module and its library: the wheel's, whatever else is on the machine
got=$("$tmp/v/bin/python" -c 'import sdpa_var, sdpa_var._lib as l
print(sdpa_var.__version__); print(sdpa_var.__file__); print(l._library_path())')
{ read -r v; read -r file; read -r lib; } <<<"$got"
[ "$v" = "$version" ] || { echo "FAIL: sdpa_var.__version__ is $v, the project's $version"; fail=1; }
case $file in "$site"/sdpa_var/*) ;; *) echo "FAIL: sdpa_var imported from $file, not $site"; fail=1 ;; esac
case $lib in "$site"/sdpa_var/libsdpa_var.so.*) ;; *) echo "FAIL: the library loaded is $lib"; fail=1 ;; esac
echo "import sdpa_var $v from $file, library $lib"

# the program: in the venv's bin/, every library found, the headline's bytes
if ldd "$tmp/v/bin/sdpa-var" | grep -q 'not found'; then
    ldd "$tmp/v/bin/sdpa-var"
    echo "FAIL: the wheel's sdpa-var misses a library"
    fail=1
fi
for fmt in csv table; do
    "$tmp/v/bin/sdpa-var" --dk 64 --n 1111 --format "$fmt" >"$tmp/wheel.$fmt"
    "$bin" --dk 64 --n 1111 --format "$fmt" >"$tmp/build.$fmt"
    cmp -s "$tmp/wheel.$fmt" "$tmp/build.$fmt" ||
        { diff "$tmp/build.$fmt" "$tmp/wheel.$fmt" | head; echo "FAIL: the wheel's headline ($fmt) differs"; fail=1; }
done
"$tmp/v/bin/sdpa-var" --version | grep -q "$version" || { echo "FAIL: sdpa-var --version"; fail=1; }
[ -f "$tmp/v/share/man/man1/sdpa-var.1.gz" ] || { echo "FAIL: no man page in the venv"; fail=1; }

# README's Python block, as a user pastes it
awk '/wheel_test.sh run this block/ {on = 1; next} on && /^```python/ {next}
     on && /^```/ {exit} on' \
    "$src/README.md" >"$tmp/readme.py"
[ -s "$tmp/readme.py" ] || { echo "FAIL: no python block under README's \"From Python\""; exit 1; }
if ! "$tmp/v/bin/python" "$tmp/readme.py" >"$tmp/readme.out" 2>&1; then
    cat "$tmp/readme.out"
    echo "FAIL: README's Python block"
    fail=1
fi
want=$("$tmp/v/bin/sdpa-var" --dk 64 --n 200 --format csv --columns scaled_var | tail -n 1)
got=$(tail -n 1 "$tmp/readme.out")
"$tmp/v/bin/python" - "$want" "$got" <<'PY' || fail=1
import sys
want, got = float(sys.argv[1]), float(sys.argv[2])
if want != got:
    sys.exit("FAIL: README's random(dk=64, n=200) printed %r, the CLI %r" % (got, want))
print("README's block: random() = sdpa-var --dk 64 --n 200 = %r" % want)
PY
[ "$fail" -eq 0 ] && echo "install.wheel: pip install of the source gives sdpa_var $v and bin/sdpa-var"
exit "$fail"
