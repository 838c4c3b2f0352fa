#!/usr/bin/env bash
# import_test.sh BUILD_DIR: `import sdpa_var` in a fresh /usr/bin/python3
# from the build tree and from a `cmake --install --prefix` scratch
# directory, without LD_LIBRARY_PATH, and a run of stats() in each; also
# that a package whose _config.py names another ABI refuses to import.
set -eu
build=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
unset LD_LIBRARY_PATH
run='import sdpa_var, numpy as np
s = sdpa_var.stats(np.eye(4), np.eye(4))
assert s.raw_var.shape == (1, 1), s
print(sdpa_var.__version__, sdpa_var.__file__)'
fail=0
PYTHONPATH=$build/python /usr/bin/python3 -c "$run" || { echo "FAIL: import from the build tree"; fail=1; }
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
PYTHONPATH=$scratch/prefix/lib/python3/dist-packages /usr/bin/python3 -c "$run" \
    | grep -q "$scratch/prefix" || { echo "FAIL: import from the install prefix"; fail=1; }
# a package configured for another ABI: a clear ImportError
cp -r "$build/python/sdpa_var" "$scratch/sdpa_var"
sed -i "s|^LIBRARY = \"|LIBRARY = \"$build/python/sdpa_var/|; s|^ABI_VERSION = .*|ABI_VERSION = 999999|" \
    "$scratch/sdpa_var/_config.py"
msg=$(PYTHONPATH=$scratch /usr/bin/python3 -c 'import sdpa_var' 2>&1 || true)
case $msg in *ImportError*"ABI version"*999999*) ;; *) echo "FAIL: ABI mismatch: $msg"; fail=1 ;; esac
# a mirror whose size differs from the library's: ImportError naming the struct
abi=$(sed -n 's/^ABI_VERSION = //p' "$build/python/sdpa_var/_config.py")
sed -i "s|^ABI_VERSION = .*|ABI_VERSION = $abi|" "$scratch/sdpa_var/_config.py"
sed -i 's|("kv_head", c_size)\]|("kv_head", c_size), ("extra", c_size)]|' \
    "$scratch/sdpa_var/_lib.py"
msg=$(PYTHONPATH=$scratch /usr/bin/python3 -c 'import sdpa_var' 2>&1 || true)
case $msg in
*ImportError*"sizeof(sv_head) is 24"*"but 32"*) ;;
*) echo "FAIL: size mismatch: $msg"; fail=1 ;;
esac
cp "$build/python/sdpa_var/_lib.py" "$scratch/sdpa_var/_lib.py"
# a library without the package's functions (libm): ImportError naming them
libm=$(ldd /usr/bin/python3 | awk '/libm\.so/ {print $3}')
sed -i "s|^LIBRARY = .*|LIBRARY = \"$libm\"|" "$scratch/sdpa_var/_config.py"
msg=$(PYTHONPATH=$scratch /usr/bin/python3 -c 'import sdpa_var' 2>&1 || true)
case $msg in
*ImportError*"lacks sv_status_str"*sv_struct_size*) ;;
*) echo "FAIL: missing functions: $msg"; fail=1 ;;
esac
# a missing library: ImportError naming the path
sed -i "s|^LIBRARY = .*|LIBRARY = \"/nonexistent/libsdpa_var.so.0.1\"|" "$scratch/sdpa_var/_config.py"
msg=$(PYTHONPATH=$scratch /usr/bin/python3 -c 'import sdpa_var' 2>&1 || true)
case $msg in *ImportError*/nonexistent/libsdpa_var.so.0.1*) ;; *) echo "FAIL: missing library: $msg"; fail=1 ;; esac
# README's five lines (its block marked "import_test.sh and ... run this block")
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$scratch/readme"
awk '/import_test.sh and tests\/install\/wheel_test.sh run this block/ {on = 1; next} on && /^```python/ {next}
     on && /^```/ {exit} on' "$src/README.md" >"$scratch/readme/readme.py"
[ -s "$scratch/readme/readme.py" ] || { echo "FAIL: no README block"; fail=1; }
PYTHONPATH=$build/python /usr/bin/python3 "$scratch/readme/readme.py" >/dev/null \
    || { echo "FAIL: README's python block"; fail=1; }
[ $fail = 0 ] && echo "python.import: passed"
exit $fail
