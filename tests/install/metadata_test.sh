#!/usr/bin/env bash
# metadata_test.sh BIN SOURCE_DIR VERSION: the version, licence and citation
# agree. VERSION is CMake's project(VERSION), the one version source; the
# CITATION.cff and --version must say the same, and --version's copyright
# line must be LICENSE's.
set -u
BIN=$1 SRC=$2 VERSION=$3
failed=0
fail() { printf 'FAIL: %s\n' "$*"; failed=$((failed + 1)); }

cff=$SRC/CITATION.cff
[ -f "$cff" ] || fail "no CITATION.cff"
got=$(sed -n 's/^version: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$cff")
[ "$got" = "$VERSION" ] || fail "CITATION.cff version '$got', CMake project version '$VERSION'"
grep -qx 'cff-version: 1.2.0' "$cff" || fail "CITATION.cff: cff-version is not 1.2.0"
grep -qx 'license: MIT' "$cff" || fail "CITATION.cff: license is not MIT"
grep -q '^message: ' "$cff" || fail "CITATION.cff: no message"
grep -q '^title: ' "$cff" || fail "CITATION.cff: no title"
grep -q 'name: "the sdpa-var authors"' "$cff" || fail "CITATION.cff: authors"

lic=$SRC/LICENSE
grep -qx 'MIT License' "$lic" || fail "LICENSE is not the MIT licence"
"$BIN" --version >version.out 2>&1 || fail "--version exits $?"
[ "$(sed -n 1p version.out)" = "sdpa-var $VERSION" ] || fail "--version first line: $(sed -n 1p version.out)"
copyright=$(sed -n 2p version.out)
case $copyright in Copyright*) grep -qxF "$copyright" "$lic" ;; *) false ;; esac || fail "--version's '$copyright' is not LICENSE's copyright line"
grep -q '^License MIT: ' version.out || fail "--version has no licence line"

[ "$failed" -eq 0 ] && echo "metadata: all checks passed"
exit $((failed > 0))
