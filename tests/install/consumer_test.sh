#!/usr/bin/env bash
# consumer_test.sh CMAKE BUILD_DIR SOURCE_DIR WORK_DIR VERSION CC [C_FLAGS]
# Installs the build into a scratch prefix, then configures, builds and runs
# tests/install/consumer against it, as a user of find_package(sdpa_var)
# would. C_FLAGS carries the sanitizer flags of an ASan build (a program
# that loads an ASan-built library must itself be built with ASan).
set -u
CMAKE=$1 BUILD=$2 SRC=$3 WORK=$4 VERSION=$5 CC=$6 FLAGS=${7:-}
prefix=$WORK/prefix
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
die() { printf 'FAIL: %s\n' "$*"; exit 1; }

"$CMAKE" --install "$BUILD" --prefix "$prefix" >"$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log"; die "cmake --install exits non-zero"; }

# What a user finds after the install.
for f in bin/sdpa-var include/sdpa_var/sdpa_var.h include/sdpa_var/version.h \
         share/sdpa-var/variance_vs_dk.gp share/doc/sdpa-var/LICENSE \
         share/doc/sdpa-var/README.md share/doc/sdpa-var/lecture.md \
         share/doc/sdpa-var/theory.md share/doc/sdpa-var/columns.md share/man/man1/sdpa-var.1.gz \
         share/bash-completion/completions/sdpa-var; do
    [ -f "$prefix/$f" ] || die "not installed: $f"
done
ls "$prefix"/lib*/cmake/sdpa_var/sdpa_varConfig.cmake >/dev/null 2>&1 ||
    die "no lib/cmake/sdpa_var/sdpa_varConfig.cmake"
# --help names the data of its own prefix (issue 34: it named
# /usr/local/share whatever the prefix), and they are there.
help=$(env -u LD_LIBRARY_PATH "$prefix/bin/sdpa-var" --help)
real=$(cd "$prefix" && pwd -P)
grep -qx "  $real/share/sdpa-var/\*.gp" <<<"$help" || die "--help does not name $real/share/sdpa-var"
grep -qx "  $real/share/doc/sdpa-var" <<<"$help" || die "--help does not name $real/share/doc/sdpa-var"
# The installed binary runs from the prefix with no LD_LIBRARY_PATH.
[ "$(env -u LD_LIBRARY_PATH "$prefix/bin/sdpa-var" --version | head -1)" = "sdpa-var $VERSION" ] ||
    die "installed bin/sdpa-var --version"

"$CMAKE" -S "$SRC/tests/install/consumer" -B "$WORK/consumer" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_EXE_LINKER_FLAGS="$FLAGS" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$WORK/configure.log" 2>&1 ||
    { cat "$WORK/configure.log"; die "the consumer does not configure"; }
# The package found must be the one just installed.
grep -q "sdpa_var $VERSION from $prefix/" "$WORK/configure.log" ||
    { cat "$WORK/configure.log"; die "find_package(sdpa_var) did not find $prefix"; }
"$CMAKE" --build "$WORK/consumer" >"$WORK/build.log" 2>&1 ||
    { cat "$WORK/build.log"; die "the consumer does not build"; }
"$WORK/consumer/consumer" || die "the consumer's experiment"
echo "install.consumer: passed"
