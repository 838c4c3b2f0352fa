#!/usr/bin/env bash
# require.sh TOOL PACKAGE -- COMMAND...: run COMMAND if TOOL (a name on PATH
# or an absolute path) is there and executable; else one line naming the
# Debian package and exit 1. ctest registers test peers through this so they
# are looked up when the test runs, not cached at configure time.
#   tests/require.sh /usr/bin/python3 python3-numpy -- /usr/bin/python3 compare.py BIN
set -u
tool=$1 package=$2
shift 2
[ "${1-}" = -- ] && shift
if ! command -v "$tool" >/dev/null 2>&1 || { [ "${tool#/}" != "$tool" ] && [ ! -x "$tool" ]; }; then
    printf '%s not found: apt-get install %s (scripts/setup.sh installs it)\n' "$tool" "$package" >&2
    exit 1
fi
exec "$@"
