#!/usr/bin/env bash
# venv.sh VENV SCRIPT [ARGS...]: SCRIPT on VENV/py/bin/python, the venv of
# the pinned PyPI packages (requirements.txt; scripts/test.sh makes it with
# sv_ensure_venv). Says SKIP and exits 77 (ctest: skipped) where it is not
# made, so a bare ctest without scripts/test.sh still runs the rest.
set -u
venv=$1
shift
if [ ! -f "$venv/stamp" ] || [ ! -x "$venv/py/bin/python" ]; then
    echo "SKIP: no venv at $venv (scripts/test.sh makes it from requirements.txt)"
    exit 77
fi
exec "$venv/py/bin/python" "$@"
