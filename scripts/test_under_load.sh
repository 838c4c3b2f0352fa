#!/usr/bin/env bash
# On demand (issue 42): the suite's verdict does not depend on how busy the
# machine is. Runs scripts/test.sh in fresh clones of this checkout's HEAD,
# two at once (each has the machine half the time, as on a 2-core machine
# shared with another build), or one beside `stress-ng --cpu $(nproc)`
# (Debian's stress-ng, installed here when missing); passes only if every
# copy passes, and prints each copy's time and its summary.
#   scripts/test_under_load.sh [--copies N | --stress-ng] [STEP...]
# STEPs go to test.sh (default: all six). Not part of scripts/test.sh: it
# takes two suites' time (about twice one's on 2 cores). Each copy builds
# its own trees; the packages and the venv (requirements.txt) are installed
# once, first, into this checkout, and each clone links to that venv, so
# the copies neither race for apt's lock nor download PyTorch twice. The
# clones and their logs stay in the directory printed at the start.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
copies=2 stress=0
while [ $# -gt 0 ]; do
    case $1 in
        --copies) copies=${2:?--copies N}; shift 2 ;;
        --stress-ng) stress=1 copies=1; shift ;;
        -h | --help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done
case $copies in '' | *[!0-9]* | 0) echo "test_under_load.sh: --copies: a whole number >= 1" >&2; exit 2 ;; esac

cd "$SV_ROOT"
# What test.sh and its steps install, once, before the copies start.
sv_ensure_packages "${SV_BUILD_PACKAGES[@]}" "${SV_TEST_PACKAGES[@]}" clang libomp-dev gcovr
sv_ensure_packages "$(sv_clang_rt_package)"
sv_ensure_packages "${SV_WEB_PACKAGES[@]}" ||
    echo "test_under_load.sh: the web page's packages cannot be installed: web.page will say SKIP" >&2
[ "$stress" -eq 0 ] || sv_ensure_packages stress-ng
sv_ensure_venv

work=$(mktemp -d "${TMPDIR:-/tmp}/sv-under-load.XXXXXX")
echo "test_under_load.sh: $copies cop$([ "$copies" -eq 1 ] && echo y || echo ies) of scripts/test.sh $*" \
    "$([ "$stress" -eq 1 ] && echo "beside stress-ng --cpu $(nproc)"), in $work"
pids=() starts=()
for ((i = 1; i <= copies; i++)); do
    git clone --quiet "$SV_ROOT" "$work/copy$i"
    ln -s "$SV_ROOT/build-venv" "$work/copy$i/build-venv"
done
stress_pid=
if [ "$stress" -eq 1 ]; then
    stress-ng --cpu "$(nproc)" --timeout 0 --quiet &
    stress_pid=$!
    trap '[ -z "$stress_pid" ] || kill "$stress_pid" 2>/dev/null' EXIT
fi
for ((i = 1; i <= copies; i++)); do
    (cd "$work/copy$i" && exec scripts/test.sh "$@" </dev/null >"$work/copy$i.log" 2>&1) &
    pids+=($!) starts+=("$SECONDS")
done
# Each copy's load average, every minute, beside the logs.
(while sleep 60; do echo "$(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)"; done >"$work/load.log") &
sampler=$!

failed=0
for ((i = 1; i <= copies; i++)); do
    rc=0
    wait "${pids[i - 1]}" || rc=$?
    t=$((SECONDS - starts[i - 1]))
    if [ "$rc" -eq 0 ]; then
        echo "copy $i: passed in $t s ($((t / 60)) min)"
    else
        echo "copy $i: FAILED (exit $rc) in $t s; log: $work/copy$i.log"
        failed=1
    fi
    sed -n '/^== summary ==$/,$p' "$work/copy$i.log" | sed 's/^/  /'
done
kill "$sampler" 2>/dev/null || true
if [ -n "$stress_pid" ]; then
    kill "$stress_pid" 2>/dev/null || true
    stress_pid=
fi
echo "load average, each minute: $work/load.log (highest 1-min: $(sort -k2 -g "$work/load.log" | tail -1 | cut -d' ' -f2))"
[ "$failed" -eq 0 ] || { echo "test_under_load.sh: a copy failed under load" >&2; exit 1; }
echo "test_under_load.sh: every copy passed under load"
