#!/usr/bin/env bash
# Shared by run.sh and test.sh (sourced, not run): install the Debian packages
# that are missing, then configure and build a CMake preset.
#
# Why dpkg-query and not `command -v`: libraries such as libopenblas-dev have no
# command to look for, and a second run must not call apt-get at all.

SV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Packages the build needs. gcc, cmake and git are assumed (they fetched us).
# scdoc builds the man page.
SV_BUILD_PACKAGES=(make libopenblas-dev scdoc libcjson-dev)
# Packages only the test suite needs: numpy as the independent reference,
# gnuplot to render the figures from our CSV, dpkg-dev (dpkg-shlibdeps) for
# CPack's .deb, man-db (man -l) and bash-completion to try what it installs.
SV_TEST_PACKAGES=(python3 python3-numpy gnuplot-nox dpkg-dev man-db bash-completion time jq)

sv_missing_packages() {
    local p
    for p in "$@"; do
        if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" != installed ]; then
            printf '%s\n' "$p"
        fi
    done
}

# sv_ensure_packages PKG...: install what is missing, or print the exact
# command and fail when we cannot (not root and no password-less sudo).
sv_ensure_packages() {
    local missing
    mapfile -t missing < <(sv_missing_packages "$@")
    [ "${#missing[@]}" -eq 0 ] && return 0
    local apt=(apt-get)
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            apt=(sudo -n apt-get)
        else
            printf 'sdpa-var: missing Debian packages: %s\n' "${missing[*]}" >&2
            printf 'sdpa-var: run this, then try again:\n  sudo apt-get update && sudo apt-get install -y %s\n' "${missing[*]}" >&2
            return 1
        fi
    fi
    printf 'sdpa-var: installing Debian packages: %s\n' "${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    "${apt[@]}" update -qq >&2 &&
        "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >&2 </dev/null || {
        printf 'sdpa-var: apt-get failed; run this, then try again:\n  apt-get update && apt-get install -y %s\n' "${missing[*]}" >&2
        return 1
    }
}

# sv_build PRESET: configure once, then an incremental build.
sv_build() {
    local preset=$1 dir
    dir=$(sv_preset_dir "$preset")
    if [ ! -f "$SV_ROOT/$dir/CMakeCache.txt" ]; then
        # CI exports SV_WERROR=ON: warnings fail the build there.
        (cd "$SV_ROOT" && cmake --preset "$preset" -DSV_WERROR="${SV_WERROR:-OFF}" >&2) || return 1
    fi
    (cd "$SV_ROOT" && cmake --build --preset "$preset" >&2) || return 1
}

sv_preset_dir() {
    case $1 in
        release) echo build ;;
        *) echo "build-$1" ;;
    esac
}
