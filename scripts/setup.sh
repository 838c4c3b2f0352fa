#!/usr/bin/env bash
# Shared by run.sh and test.sh (sourced, not run): install the Debian packages
# that are missing, then configure and build a CMake preset.
#
# Why dpkg-query and not `command -v`: libraries such as libopenblas-dev have no
# command to look for, and a second run must not call apt-get at all.

SV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Packages the build needs. gcc, cmake and git are assumed (they fetched us).
# One package per line, so lists from several changes merge cleanly.
SV_BUILD_PACKAGES=(
    make
    libopenblas-dev
    scdoc            # the man page sdpa-var(1)
    libcjson-dev     # JSON output
)
# Packages only the test suite needs. Test tools are looked up when the tests
# run (tests/require.sh), not when build/ is configured, so installing them
# after scripts/run.sh configured build/ is enough.
SV_TEST_PACKAGES=(
    python3
    python3-venv     # build-venv/: the pinned PyPI packages (requirements.txt)
    python3-numpy    # the independent reference (tests/numpy)
    python3-torch    # PyTorch's attention as a second peer
    python3-pandas   # sdpa_var Stats.to_pandas() (tests/python)
    gnuplot-nox      # renders the figures from our CSV
    jq               # checks the JSON output
    dpkg-dev         # dpkg-shlibdeps for CPack's .deb
    man-db           # man -l on the built man page
    bash-completion  # tries the completion it installs
    time             # /usr/bin/time -f %M: peak memory of a run
    clang            # libFuzzer harnesses (tests/fuzz); the runtime: sv_clang_rt_package
    libomp-dev       # OpenMP for clang (the fuzz build)
    clang-tidy       # static analysis (.clang-tidy)
    clang-format     # style check (.clang-format)
    cppcheck         # static analysis
    valgrind         # memcheck over CLI cases (tests/valgrind)
    gcovr            # line and branch coverage (scripts/coverage.sh)
    tmux             # a real terminal for the progress line (cli.sigint)
    parallel         # GNU parallel: the shards example of docs/scaling.md (cli.parallel)
    libopenmpi-dev   # the optional -DSV_MPI=ON build (cli.mpi builds it)
    openmpi-bin      # mpirun for cli.mpi
)
# Packages of the web page (scripts/web.sh; installed by test.sh's release
# step, not by run.sh): without them the web.page test is skipped, visibly.
SV_WEB_PACKAGES=(
    emscripten       # the library in WebAssembly (3.1.6 on Debian 12)
    libjs-chart.js   # Chart.js 3.9, the page's plots
    chromium         # the browser test drives it headless (web.page)
    chromium-driver  # chromedriver, for selenium
    python3-selenium # the browser test (web/test/page_test.py)
)

# libFuzzer and the sanitizer runtimes ship in libclang-rt-N-dev, N the major
# version of the distribution's clang: 14 on Debian 12, 18 on Ubuntu 24.04.
# Call after clang is installed.
sv_clang_rt_package() {
    local v
    v=$(clang -dumpversion 2>/dev/null) || return 1
    printf 'libclang-rt-%s-dev\n' "${v%%.*}"
}

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

# sv_ensure_venv: build-venv/py, a venv of python3 (the first on PATH) with
# the PyPI packages pinned in requirements.txt, build-venv/hf4, the "#hf4 "
# lines of that file (transformers 4), and build-venv/tl4, its "#tl4 " lines
# (TransformerLens 4), each to put first on PYTHONPATH.
# The stamp (the file's hash and Python's version) is written last: a
# second run with the same file installs nothing, a cut run starts over.
sv_ensure_venv() {
    local venv=$SV_ROOT/build-venv req=$SV_ROOT/requirements.txt stamp pip
    stamp="$(sha256sum "$req" | cut -c1-16) $(python3 -c 'import sys; print(sys.version.split()[0])')" ||
        return 1
    [ "$(cat "$venv/stamp" 2>/dev/null)" = "$stamp" ] && return 0
    printf 'sdpa-var: installing the pinned PyPI packages of requirements.txt into %s\n' "$venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv/py" >&2 || return 1
    pip=("$venv/py/bin/python" -m pip --disable-pip-version-check --no-input)
    # torch first and alone (requirements.txt says why).
    "${pip[@]}" install -q "$(grep -m1 '^torch==' "$req" | cut -d' ' -f1)" >&2 &&
        "${pip[@]}" install -q -r "$req" >&2 &&
        sed -n 's/^#hf4 //p' "$req" >"$venv/hf4.txt" &&
        "${pip[@]}" install -q --no-deps --target "$venv/hf4" -r "$venv/hf4.txt" >&2 &&
        sed -n 's/^#tl4 //p' "$req" >"$venv/tl4.txt" &&
        "${pip[@]}" install -q --no-deps --target "$venv/tl4" -r "$venv/tl4.txt" >&2 || {
        echo "sdpa-var: pip could not install requirements.txt into $venv" >&2
        return 1
    }
    printf '%s\n' "$stamp" >"$venv/stamp"
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
