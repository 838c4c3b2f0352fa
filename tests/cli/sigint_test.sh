#!/usr/bin/env bash
# cli.sigint: Ctrl-C (and SIGTERM) while the progress line shows leave no
# progress text on the terminal, and the exit status stays 128 + signal
# (issue 9 section 4). Runs sdpa-var in a real pseudo-terminal: a tmux
# session on a private server, so stderr is a terminal and the line is
# drawn; then sends C-c as a keystroke and reads the screen back.
#   tests/cli/sigint_test.sh BIN
# Skipped (exit 77) without tmux.
set -u
bin=$1
if ! command -v tmux >/dev/null 2>&1; then
    echo "cli.sigint skipped: tmux not found: apt-get install tmux (scripts/setup.sh installs it)" >&2
    exit 77
fi
tmp=$(mktemp -d)
sock="sv-sigint-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server >/dev/null 2>&1; rm -rf "$tmp"' EXIT
fails=0
# The waits below are for a hang, not a deadline (SV_TEST_TIMEOUT_SCALE, a
# whole number, README "Tests", multiplies them): the line appears after
# 0.5 s and the run ends within a tile of the signal.
scale=${SV_TEST_TIMEOUT_SCALE:-1}

# Runs sdpa-var in a fresh pane, waits for its progress line, delivers
# the signal ($1: "C-c" as a key, or TERM with kill), then checks the
# screen and the exit status ($2).
check() {
    local how=$1 want=$2 status="$tmp/status.$1" pidf="$tmp/pid.$1"
    # The pane's bash catches INT itself (trap :), so it survives the
    # keystroke and records the status; sdpa-var, exec'd in the foreground
    # by a child shell that says its pid, gets the default action back.
    cat > "$tmp/run.$how.sh" <<RUN
trap : INT
sh -c 'echo \$\$ > "$pidf"; exec "$bin" --dk 64 --n 4000 --trials 1000 --threads 1 >/dev/null'
echo "exit=\$?" > "$status"
sleep 60
RUN
    tm new-session -d -s "$how" -x 160 -y 8 "bash $tmp/run.$how.sh"
    local shown=0 i
    for i in $(seq $((100 * scale))); do # up to 20 s; the line appears after 0.5 s
        if tm capture-pane -p -t "$how" | grep -q 's left'; then
            shown=1
            break
        fi
        sleep 0.2
    done
    if [ $shown = 0 ]; then
        echo "FAIL $how: no progress line within $((20 * scale)) s" >&2
        tm capture-pane -p -t "$how" >&2
        fails=$((fails + 1))
        return
    fi
    # The line estimates the whole run (issue 15): "d_k=64 (1 of 1): 12%
    # of the run, about 9 s left".
    if ! tm capture-pane -p -t "$how" | grep -qE 'd_k=64 \(1 of 1\): +[0-9]+% of the run, about [0-9]+ s left'; then
        echo "FAIL $how: the progress line does not estimate the run:" >&2
        tm capture-pane -p -t "$how" >&2
        fails=$((fails + 1))
    fi
    sleep 0.3 # a redraw or two, so the signal may land mid-line too
    if [ "$how" = C-c ]; then
        tm send-keys -t "$how" C-c
    else
        kill -TERM "$(cat "$pidf")"
    fi
    for i in $(seq $((50 * scale))); do # up to 10 s
        [ -s "$status" ] && break
        sleep 0.2
    done
    local screen
    screen=$(tm capture-pane -p -t "$how")
    if printf '%s\n' "$screen" | grep -q 'sdpa-var\|s left\|%'; then
        echo "FAIL $how: progress text left on the terminal:" >&2
        printf '%s\n' "$screen" >&2
        fails=$((fails + 1))
    fi
    if [ "$(cat "$status" 2>/dev/null)" != "exit=$want" ]; then
        echo "FAIL $how: status '$(cat "$status" 2>/dev/null)', want exit=$want" >&2
        fails=$((fails + 1))
    fi
}

check C-c 130
check TERM 143
[ $fails = 0 ] && echo "cli.sigint: progress line erased on SIGINT and SIGTERM, status 130 and 143"
exit $((fails > 0))
