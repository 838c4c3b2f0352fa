#!/usr/bin/env bash
# ctest install.wheel (issues 32 §1 and 41): the wheel one can publish.
# `pip wheel` builds it with scikit-build-core (pyproject.toml) from a copy
# of SRC's working tree, which is then deleted (nothing may need the clone);
# `auditwheel repair` (VENV's, pinned by requirements.txt) makes it a
# manylinux wheel with OpenBLAS, cJSON and libgomp inside, which
# `auditwheel show` finds clean; it goes into a new venv. Then, with no
# PYTHONPATH and from another directory: ldd of the engine library and of
# the program finds them in the wheel, none of Debian's; `import sdpa_var`
# comes from the venv and loads the wheel's library; the venv's sdpa-var
# prints the headline's bytes (the same as BIN's, this machine) and its
# --help names only paths in the venv, which exist (help_paths.sh); no
# staging path is left in the program or the man page; the README's Python
# block runs and its random() equals the wheel's CLI.
# PyPI packages: pinned by requirements.txt (-c); torch for the README's
# block comes from VENV/py (scripts/test.sh makes it), seen through a .pth
# file. Says SKIP (77) without that venv; without auditwheel in it, checks
# the unrepaired wheel, then says SKIP naming what it did not check.
#   wheel_test.sh SRC BIN VENV VERSION
set -euo pipefail
src=$1 bin=$2 venv=$3 version=$4
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$venv/stamp" ]; then
    echo "SKIP: no venv at $venv (scripts/test.sh makes it from requirements.txt)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset PYTHONPATH LD_LIBRARY_PATH
fail=0
pip=(-m pip --disable-pip-version-check --no-input)

# The clone: SRC's tracked and untracked (not ignored) files, as they are now.
mkdir "$tmp/src"
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
    tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$tmp/src"
python3 -m venv "$tmp/v"
start=$SECONDS
if ! "$tmp/v/bin/python" "${pip[@]}" wheel -q --no-deps -c "$src/requirements.txt" \
    -w "$tmp/dist" "$tmp/src" >"$tmp/pip.log" 2>&1; then
    grep -v '^WARNING: Location' "$tmp/pip.log" | tail -n 30
    echo "FAIL: pip wheel $src"
    exit 1
fi
rm -rf "$tmp/src" # the clone is gone: the wheel must not need it
raw=$(ls "$tmp"/dist/sdpa_var-*.whl)
echo "pip wheel: $(basename "$raw") in $((SECONDS - start)) s"

# The manylinux wheel: auditwheel repair, then show finds it clean.
repaired=
if [ -x "$venv/py/bin/auditwheel" ]; then
    if ! PATH=$venv/py/bin:$PATH "$venv/py/bin/auditwheel" repair -w "$tmp/wheelhouse" "$raw" \
        >"$tmp/repair.log" 2>&1; then
        tail -n 30 "$tmp/repair.log"
        echo "FAIL: auditwheel repair"
        exit 1
    fi
    repaired=$(ls "$tmp"/wheelhouse/sdpa_var-*.whl)
    case $(basename "$repaired") in
        sdpa_var-"$version"-py3-none-manylinux_*.whl) ;;
        *) echo "FAIL: the repaired wheel is $(basename "$repaired"), not py3-none-manylinux_*"; fail=1 ;;
    esac
    show=$(PATH=$venv/py/bin:$PATH "$venv/py/bin/auditwheel" show "$repaired" 2>&1 | tr -s ' \n' '  ')
    grep -q 'consistent with the following platform tag: "manylinux_' <<<"$show" ||
        { echo "$show"; echo "FAIL: auditwheel show: not a manylinux wheel"; fail=1; }
    ! grep -q 'external shared libraries are required' <<<"$show" ||
        { echo "$show"; echo "FAIL: auditwheel show: the wheel needs libraries outside the policy"; fail=1; }
    libs=$(unzip -Z1 "$repaired" | sed -n 's|^sdpa_var.libs/||p' | tr '\n' ' ')
    echo "repaired: $(basename "$repaired"), $(stat -c %s "$repaired") bytes; sdpa_var.libs: $libs"
    for want in libopenblas libcjson libgomp; do
        grep -q "$want" <<<"$libs" || { echo "FAIL: no $want in the wheel's sdpa_var.libs"; fail=1; }
    done
fi

if ! "$tmp/v/bin/python" "${pip[@]}" install -q -c "$src/requirements.txt" "${repaired:-$raw}" \
    >"$tmp/pip.log" 2>&1; then
    grep -v '^WARNING: Location' "$tmp/pip.log" | tail -n 30
    echo "FAIL: pip install $(basename "${repaired:-$raw}")"
    exit 1
fi
site=$("$tmp/v/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$venv/py/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' >"$site/zz_build_venv.pth"
cd "$tmp"

# The engine and the program (the real one: auditwheel moves it to
# sdpa_var.scripts/ and leaves a shim in bin/): every library found, and
# in the manylinux wheel none of Debian's OpenBLAS or cJSON.
exe=$tmp/v/bin/sdpa-var
[ -n "$repaired" ] && exe=$site/sdpa_var.scripts/sdpa-var
for elf in "$site"/sdpa_var/libsdpa_var.so.* "$exe"; do
    ldd "$elf" >"$tmp/ldd.txt" 2>&1 || { cat "$tmp/ldd.txt"; echo "FAIL: ldd $elf"; fail=1; }
    if grep -q 'not found' "$tmp/ldd.txt"; then
        cat "$tmp/ldd.txt"
        echo "FAIL: $elf misses a library"
        fail=1
    fi
    if [ -n "$repaired" ] && grep -E '=> /(usr/)?lib/x86_64-linux-gnu/lib(openblas|cjson|gomp)' "$tmp/ldd.txt"; then
        echo "FAIL: $elf loads the system's OpenBLAS, cJSON or libgomp, not the wheel's"
        fail=1
    fi
done

# The module and its library: the wheel's, whatever else is on the machine.
got=$("$tmp/v/bin/python" -c 'import sdpa_var, sdpa_var._lib as l
print(sdpa_var.__version__); print(sdpa_var.__file__); print(l._library_path())')
{ read -r v; read -r file; read -r lib; } <<<"$got"
[ "$v" = "$version" ] || { echo "FAIL: sdpa_var.__version__ is $v, the project's $version"; fail=1; }
case $file in "$site"/sdpa_var/*) ;; *) echo "FAIL: sdpa_var imported from $file, not $site"; fail=1 ;; esac
case $lib in "$site"/sdpa_var/libsdpa_var.so.*) ;; *) echo "FAIL: the library loaded is $lib"; fail=1 ;; esac
echo "import sdpa_var $v from $file, library $lib"

# The program: the headline's bytes, its version, its --help's paths.
for fmt in csv table; do
    "$tmp/v/bin/sdpa-var" --dk 64 --n 1111 --format "$fmt" >"$tmp/wheel.$fmt"
    "$bin" --dk 64 --n 1111 --format "$fmt" >"$tmp/build.$fmt"
    cmp -s "$tmp/wheel.$fmt" "$tmp/build.$fmt" ||
        { diff "$tmp/build.$fmt" "$tmp/wheel.$fmt" | head; echo "FAIL: the wheel's headline ($fmt) differs"; fail=1; }
done
"$tmp/v/bin/sdpa-var" --version | grep -q "$version" || { echo "FAIL: sdpa-var --version"; fail=1; }
bash "$here/help_paths.sh" "$tmp/v/bin/sdpa-var" "$tmp/v" || fail=1
n_gp=$(find "$tmp/v/share/sdpa-var" -name '*.gp' | wc -l)
[ "$n_gp" -ge 1 ] || { echo "FAIL: no gnuplot scripts in the venv's share/sdpa-var"; fail=1; }
page=$tmp/v/share/man/man1/sdpa-var.1.gz
[ -f "$page" ] || { echo "FAIL: no man page in the venv"; fail=1; }
# No build path left: scikit-build-core's staging (.../wheel/platlib,
# ../data/share) nor the deleted clone, in the program or the man page.
staging="wheel/platlib|\.\./data/share|$tmp/src"
! grep -aqE "$staging" "$exe" || { echo "FAIL: $exe names a build directory"; fail=1; }
zcat "$page" >"$tmp/man.txt" || { echo "FAIL: zcat $page"; fail=1; }
! grep -aqE "$staging" "$tmp/man.txt" || { echo "FAIL: the man page names a build directory"; fail=1; }

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
[ "$fail" -eq 0 ] || exit 1
if [ -z "$repaired" ]; then
    echo "SKIP: no auditwheel in $venv/py (requirements.txt pins it; scripts/test.sh installs it):" \
         "the unrepaired wheel passed, the manylinux repair was not checked"
    exit 77
fi
echo "install.wheel: $(basename "$repaired") gives sdpa_var $v, bin/sdpa-var and its data, with the clone gone"
