#!/usr/bin/env bash
# deb_test.sh CPACK BUILD_DIR WORK_DIR VERSION: builds the .deb with CPack, checks
# its Depends, unpacks it into a scratch root with dpkg -x and uses what it
# installed as a user would: the binary, the man page, the bash completion.
set -u
CPACK=$1 BUILD=$2 WORK=$3 VERSION=$4
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
root=$WORK/root
failed=0
fail() { printf 'FAIL: %s\n' "$*"; failed=$((failed + 1)); }
die() { printf 'FAIL: %s\n' "$*"; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || die "$tool not found: apt-get install dpkg-dev"
done

"$CPACK" -G DEB --config "$BUILD/CPackConfig.cmake" -B "$WORK" >"$WORK/cpack.log" 2>&1 ||
    { cat "$WORK/cpack.log"; die "cpack -G DEB"; }
debs=("$WORK"/sdpa-var_"$VERSION"_*.deb)
[ -f "${debs[0]}" ] || die "no sdpa-var_${VERSION}_*.deb in $WORK"
deb=${debs[0]}

# Depends: what dpkg-shlibdeps found in the binary and the library's
# DT_NEEDED (libopenblas.so.0 -> libopenblas0, libgomp.so.1 -> libgomp1,
# libcjson.so.1 -> libcjson1: README's list).
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# libopenblas0 is the alternatives' package; its -pthread, -openmp and
# -serial flavours each provide libopenblas.so.0 too.
for p in libc6 libgomp1 libcjson1 'libopenblas0(-pthread|-openmp|-serial)?'; do
    grep -qE "(^|, )$p( |,|$)" <<<"$depends" || fail "Depends lacks $p: $depends"
done
[ "$(dpkg-deb -f "$deb" Package)" = sdpa-var ] || fail "Package is not sdpa-var"
[ "$(dpkg-deb -f "$deb" Version)" = "$VERSION" ] || fail "Version is not $VERSION"

dpkg -x "$deb" "$root" || die "dpkg -x"
bin=$root/usr/bin/sdpa-var
[ -x "$bin" ] || die "no usr/bin/sdpa-var in the package"
# No LD_LIBRARY_PATH: the binary finds libsdpa_var through $ORIGIN/../lib.
[ "$(env -u LD_LIBRARY_PATH "$bin" --version | head -1)" = "sdpa-var $VERSION" ] ||
    fail "unpacked sdpa-var --version"
env -u LD_LIBRARY_PATH "$bin" --dk 64 --n 256 >"$WORK/run.csv" 2>"$WORK/run.err" ||
    fail "unpacked sdpa-var --dk 64 --n 256 exits $?: $(cat "$WORK/run.err")"
[ "$(wc -l <"$WORK/run.csv")" -eq 2 ] && head -1 "$WORK/run.csv" | grep -q '^dk,' ||
    fail "unpacked sdpa-var: not a header and one row of CSV"
for f in usr/share/sdpa-var/variance_vs_dk.gp usr/share/doc/sdpa-var/LICENSE \
         usr/share/doc/sdpa-var/lecture.md usr/share/doc/sdpa-var/theory.md \
         usr/include/sdpa_var/sdpa_var.h; do
    [ -f "$root/$f" ] || fail "not in the package: $f"
done
# --help names the scripts and docs beside the unpacked program (issue 41).
bash "$(dirname "$0")/help_paths.sh" "$bin" "$root" >"$WORK/help_paths.txt" ||
    { cat "$WORK/help_paths.txt"; fail "--help of the unpacked sdpa-var names a path outside it"; }

# The man page, as man shows it.
page=$root/usr/share/man/man1/sdpa-var.1.gz
if [ ! -f "$page" ]; then
    fail "no usr/share/man/man1/sdpa-var.1.gz in the package"
elif ! command -v man >/dev/null; then
    fail "man not found: apt-get install man-db"
else
    MANPAGER=cat MANWIDTH=80 man -l "$page" >"$WORK/man.txt" 2>"$WORK/man.err" ||
        fail "man -l sdpa-var.1.gz exits $?: $(cat "$WORK/man.err")"
    for section in NAME SYNOPSIS DESCRIPTION OPTIONS OUTPUT 'EXIT STATUS' ENVIRONMENT \
                   FILES EXAMPLES 'SEE ALSO'; do
        grep -qx "$section" "$WORK/man.txt" || fail "the man page has no $section section"
    done
    grep -qE '^ +sdpa-var - ' "$WORK/man.txt" || fail "the man page's NAME is not 'sdpa-var - ...'"
    grep -qE '^ +-d, --dk LIST$' "$WORK/man.txt" ||
        fail "the man page's OPTIONS do not show --dk"
    grep -q "sdpa-var $VERSION" "$WORK/man.txt" || fail "the man page's footer lacks 'sdpa-var $VERSION'"
    [ ! -s "$WORK/man.err" ] || fail "man -l warns: $(head -3 "$WORK/man.err")"
fi

# The bash completion, sourced as bash-completion would, then asked as bash
# asks it: COMP_WORDS and COMP_CWORD in, COMPREPLY out.
comp=$root/usr/share/bash-completion/completions/sdpa-var
complete_words() {
    bash -c 'source "$0" || exit 1; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
             _sdpa_var; printf "%s\n" "${COMPREPLY[@]}"' "$comp" sdpa-var "$@"
}
if [ ! -f "$comp" ]; then
    fail "no usr/share/bash-completion/completions/sdpa-var in the package"
else
    [ "$(complete_words --di)" = "--dist" ] || fail "completing '--di' gives '$(complete_words --di)'"
    got=$(complete_words --dist '' | tr '\n' ' ')
    [ "$got" = "normal uniform rademacher t " ] || fail "completing '--dist ' gives '$got'"
    bash -c 'source "$0" && complete -p sdpa-var' "$comp" >/dev/null 2>&1 ||
        fail "sourcing the completion does not register it for sdpa-var"
fi

[ "$failed" -eq 0 ] && echo "install.deb: passed"
exit $((failed > 0))
