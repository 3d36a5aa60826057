# Shared helpers for the integration tests (sourced, not run).
#
# Environment (set by CTest, see tests/CMakeLists.txt):
#   PFMTOP          the pfmtop binary under test
#   PFMTOP_HELPERS  directory with the workload programs (touch_pages, spin, ...)
#   PFMTOP_SRCDIR   the source tree
#
# Exit codes: 0 pass, 1 fail, 77 skip.
# shellcheck shell=bash

set -euo pipefail

: "${PFMTOP:?PFMTOP must point at the pfmtop binary}"
: "${PFMTOP_HELPERS:?PFMTOP_HELPERS must point at the built test helpers}"
[ -x "$PFMTOP" ] || {
	echo "FAIL: PFMTOP=$PFMTOP is not an executable" >&2
	exit 1
}

TEST_NAME=$(basename "$0" .sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pfmtop-$TEST_NAME.XXXXXX")
chmod 755 "$TMP"

# Commands to run at exit, newest first (kill background jobs, tmux servers...).
_CLEANUPS=()
cleanup_add() { _CLEANUPS+=("$*"); }

_lib_on_exit() {
	local rc=$? i
	set +e
	for ((i = ${#_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${_CLEANUPS[$i]}" >/dev/null 2>&1
	done
	rm -rf "$TMP"
	exit "$rc"
}
trap _lib_on_exit EXIT

# skip REASON: the test cannot run, for a reason the suite could remove (a
# missing package, not root): in CI as root, tests/summary counts it failed.
# skip_host REASON: this machine lacks a kernel feature or state the test
# needs; allowed anywhere.
skip() {
	echo "SKIP: $*"
	exit 77
}
skip_host() {
	echo "SKIP(host): $*"
	exit 77
}

# fail MSG [FILE...]: report MSG and show each FILE (the output the check was about).
fail() {
	local msg=$1 f
	shift
	{
		echo "FAIL: $TEST_NAME: $msg"
		for f in "$@"; do
			echo "----- $(basename "$f") -----"
			if [ -s "$f" ]; then cat "$f"; else echo "(empty)"; fi
		done
		[ $# -eq 0 ] || echo "-----"
	} >&2
	exit 1
}

info() { echo "  $*"; }
pass() { echo "ok: $*"; }

need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "$c is not installed"
	done
}

# helper NAME: path of a built workload program.
helper() {
	local p="$PFMTOP_HELPERS/$1"
	[ -x "$p" ] || fail "helper $1 not built (expected $p)"
	printf '%s\n' "$p"
}

paranoid() { cat /proc/sys/kernel/perf_event_paranoid; }

# nobody_setup: run things as the user nobody: as_nobody CMD... runs CMD
# from $TMP/bin, where copies of pfmtop and spin are (the build tree may not
# be reachable for nobody); group holds nobody's group.
nobody_setup() {
	need_cmd setpriv
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	group=$(id -gn nobody)
	mkdir -m 755 "$TMP/bin"
	install -m 755 "$PFMTOP" "$TMP/bin/pfmtop"
	install -m 755 "$(helper spin)" "$TMP/bin/spin"
	as_nobody true || skip "setpriv cannot switch to nobody here"
}
as_nobody() { (cd "$TMP/bin" && exec setpriv --reuid=nobody --regid="$group" --clear-groups "$@"); }

# paranoid_at_most N / paranoid_is N: set kernel.perf_event_paranoid to N
# for the test when it is above N / not N, and put it back on every exit.
paranoid_at_most() { [ "$(paranoid)" -le "$1" ] || _set_paranoid "$1"; }
paranoid_is() { [ "$(paranoid)" -eq "$1" ] || _set_paranoid "$1"; }
_set_paranoid() {
	local f=/proc/sys/kernel/perf_event_paranoid was
	was=$(paranoid)
	[ -w "$f" ] || skip_host "$f is $was and not writable here"
	cleanup_add "echo $was >$f"
	echo "$1" >"$f"
	info "perf_event_paranoid set to $1 for the test (was $was)"
}

# run OUT ERR CMD...: run CMD with stdout in OUT and stderr in ERR, without
# letting set -e stop the script; the exit status is left in RC.
RC=0
run() {
	local out=$1 err=$2
	shift 2
	set +e
	"$@" >"$out" 2>"$err"
	RC=$?
	set -e
}

# expect_rc WANT WHAT FILE...: fail unless the last run() exited with WANT.
expect_rc() {
	local want=$1 what=$2
	shift 2
	[ "$RC" -eq "$want" ] || fail "$what: exit status $RC, expected $want" "$@"
}

# py EXPR [ARGS...]: print the value of a Python expression; ARGS are in
# the list a (strings). Booleans print as 1/0.
py() {
	python3 - "$@" <<'EOF'
import sys
expr, a = sys.argv[1], sys.argv[2:]
v = eval(expr, {"a": a, "float": float, "int": int, "abs": abs})
print(int(v) if isinstance(v, bool) else v)
EOF
}

# check EXPR MSG [FILE...]: fail with MSG unless the Python expression is true.
# Numbers go in through the expression text, e.g. check "$x >= 20000" "...".
check() {
	local expr=$1 msg=$2
	shift 2
	[ "$(py "$expr")" = 1 ] || fail "$msg (checked: $expr)" "$@"
}

# within A B PCT: true if A and B differ by at most PCT percent of B.
within() { [ "$(py "abs(float(a[0]) - float(a[1])) <= float(a[2]) / 100 * abs(float(a[1]))" "$1" "$2" "$3")" = 1 ]; }

# json FILE EXPR: parse FILE as JSON Lines and print the Python expression
# EXPR, evaluated with:
#   lines        every parsed line, in order
#   final        the last line with "final": true (None if there is none)
#   last         the last line
#   ctr(row, ev) row["counters"][ev]["value"] (row: a snapshot's "total",
#                a "cpus" entry or a "tasks" entry)
#   state(row, ev) row["counters"][ev]["state"]
# A line that is not JSON, or an EXPR that raises, makes it exit 3 with the
# reason on stderr. Booleans print as 1/0, None as "null".
json() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
path, expr = sys.argv[1], sys.argv[2]
lines = []
with open(path) as f:
    for i, l in enumerate(f, 1):
        if not l.strip():
            continue
        try:
            lines.append(json.loads(l))
        except ValueError as e:
            print("line %d is not JSON: %s: %.200s" % (i, e, l), file=sys.stderr)
            sys.exit(3)
finals = [x for x in lines if x.get("final") is True]
env = {
    "lines": lines,
    "final": finals[-1] if finals else None,
    "last": lines[-1] if lines else None,
    "ctr": lambda row, ev: row["counters"][ev]["value"],
    "state": lambda row, ev: row["counters"][ev]["state"],
    "json": json,
}
try:
    v = eval(expr, env)
except Exception as e:
    print("cannot evaluate %s: %s: %s" % (expr, type(e).__name__, e), file=sys.stderr)
    sys.exit(3)
if isinstance(v, bool):
    v = int(v)
print("null" if v is None else v)
EOF
}

# json_check FILE EXPR MSG: fail with MSG (showing FILE) unless EXPR is true.
json_check() {
	local v
	v=$(json "$1" "$2" 2>"$TMP/json.err") || fail "$3: $(cat "$TMP/json.err")" "$1"
	[ "$v" = 1 ] || fail "$3 (checked: $2 -> $v)" "$1"
}

# perf_stat EVENT CMD...: the count perf stat gives for EVENT over CMD
# (msec for task-clock). Skips the test if perf is missing or cannot count it.
perf_stat() {
	local ev=$1 v
	shift
	need_cmd perf
	perf stat -x, -e "$ev" -o "$TMP/perf.$ev" -- "$@" >/dev/null 2>&1 ||
		fail "perf stat -e $ev $* failed" "$TMP/perf.$ev"
	v=$(awk -F, -v ev="$ev" '$3 == ev { print $1 }' "$TMP/perf.$ev")
	case "$v" in
	'' | '<not supported>' | '<not counted>') skip "perf stat cannot count $ev here: '$v'" ;;
	esac
	printf '%s\n' "$v"
}

# wait_gone PID SECS: wait up to SECS for PID to exit; 1 if it is still there.
# signal_and_wait SIG PID: send SIG to PID (a child of this shell) and wait
# for its end (20 s at most); its exit status goes to RC.
signal_and_wait() {
	kill "-$1" "$2"
	set +e
	timeout 20 tail --pid="$2" -f /dev/null
	wait "$2"
	RC=$?
	set -e
}

wait_gone() {
	local pid=$1 n
	n=$(py "int(float(a[0]) * 20)" "$2")
	while [ "$n" -gt 0 ]; do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.05
		n=$((n - 1))
	done
	! kill -0 "$pid" 2>/dev/null
}

# no_hw_pmu: true if perf stat says cycles are not supported here (false if
# perf is missing or cycles count).
no_hw_pmu() {
	command -v perf >/dev/null 2>&1 &&
		perf stat -x, -e cycles true 2>&1 >/dev/null | grep -q '^<not supported>,,cycles'
}

# nlines FILE: the number of complete lines in FILE (0 if it does not exist).
nlines() { [ -e "$1" ] && wc -l <"$1" || echo 0; }

# monitor_start OUT ERR PFMTOP_ARGS...: start pfmtop in the background with
# stdout in OUT (one snapshot a line: use --format json) and stderr in ERR;
# its PID goes to MON, killed at exit. Returns once the first snapshot is in
# OUT, so its counters run: what the test starts after that is counted from
# its first event, however slow the machine.
monitor_start() {
	local out=$1 err=$2
	shift 2
	: >"$out" # empty before the first look: the background job may not have opened it yet
	"$PFMTOP" "$@" >"$out" 2>"$err" &
	MON=$!
	cleanup_add "kill -KILL $MON"
	wait_for 30 monitor_has "$out" 1 || fail "pfmtop $* printed no snapshot in 30 s" "$out" "$err"
}
monitor_has() { [ "$(nlines "$1")" -ge "$2" ] || ! kill -0 "$MON" 2>/dev/null; }

# monitor_stop OUT ERR: wait for the snapshot that closes the current
# interval (one more line in OUT, so everything that has happened by now is
# in OUT), then stop pfmtop. Fails if pfmtop exited before that.
monitor_stop() {
	local out=$1 err=$2 want
	want=$(($(nlines "$out") + 1))
	wait_for 30 monitor_has "$out" "$want" || fail "pfmtop printed no snapshot in 30 s" "$out" "$err"
	[ "$(nlines "$out")" -ge "$want" ] || fail "pfmtop exited early" "$out" "$err"
	kill -KILL "$MON" 2>/dev/null || true
	wait "$MON" 2>/dev/null || true
}

# ---- tmux: a private server for the viewer tests ----
# tmux_setup: a tmux server on its own socket, killed at exit; then tm runs
# tmux commands on it, pane prints session t's screen, pane_has S... checks
# it shows every S.
tmux_setup() {
	need_cmd tmux
	TMUX_SOCK=$TMP/tmux.sock
	# The view reads and writes its settings file (pfmtoprc) here, never
	# the user's: a test sets XDG_CONFIG_HOME itself to use another.
	export XDG_CONFIG_HOME=$TMP/config
	cleanup_add "tmux -S '$TMUX_SOCK' kill-server"
}
# A new session right after the last one was killed can meet the old server
# still exiting ("server exited unexpectedly"): new-session is retried.
tm() {
	local try
	[ "$1" = new-session ] || {
		tmux -S "$TMUX_SOCK" "$@"
		return
	}
	for try in 1 2 3 4 5; do
		tmux -S "$TMUX_SOCK" "$@" 2>"$TMP/tmux.err" && return 0
		sleep 0.5
	done
	cat "$TMP/tmux.err" >&2
	return 1
}
pane() { tm capture-pane -p -t t; }
pane_has() {
	local s
	pane >"$TMP/pane"
	for s in "$@"; do grep -qF -- "$s" "$TMP/pane" || return 1; done
}
# wait_for SECS COMMAND...: retry COMMAND every 0.1 s until it succeeds.
wait_for() {
	local n=$(($1 * 10))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	"$@"
}

# ---- attacks on root's pfmtop (test_attack_*.sh, test_perfmap_bound.sh) ----
# victim_start [ARGS...]: root's `pfmtop -b -d 0.5 --format json --hot 200 ARGS...` in
# the background, snapshots in $TMP/victim.json; VICTIM is its pid. While it
# runs, victim_sample (call it every ~0.5 s) keeps its largest RSS in
# VICTIM_RSS_KB. victim_stop ends it and checks the bar of the security
# section: no snapshot interval over MAX_GAP (default 0.75) s, RSS under
# MAX_RSS_MB (default 60) MB; it prints both figures as it passes.
victim_start() {
	VICTIM_RSS_KB=0
	rm -f "$TMP/victim.json"
	"$PFMTOP" -b -d 0.5 --format json --hot 200 "$@" -o "$TMP/victim.json" </dev/null 2>"$TMP/victim.err" &
	VICTIM=$!
	cleanup_add "kill -KILL $VICTIM"
	wait_for 20 test -s "$TMP/victim.json" || fail "root's pfmtop did not start" "$TMP/victim.err"
}
victim_sample() {
	local rss
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$VICTIM/status" 2>/dev/null) ||
		fail "root's pfmtop exited under the attack" "$TMP/victim.err"
	[ -z "$rss" ] || [ "$rss" -le "$VICTIM_RSS_KB" ] || VICTIM_RSS_KB=$rss
}
# victim_watch SECS: victim_sample every 0.25 s for SECS seconds
victim_watch() {
	local i
	for ((i = 0; i < $1 * 4; i++)); do
		victim_sample
		sleep 0.25
	done
}
victim_stop() {
	local what=$1 gap
	victim_sample
	kill -INT "$VICTIM"
	wait "$VICTIM" 2>/dev/null || true
	gap=$(json "$TMP/victim.json" 'max(l["interval_s"] for l in lines if not l["final"])') ||
		fail "root's pfmtop wrote no JSON" "$TMP/victim.json" "$TMP/victim.err"
	info "$what: longest interval ${gap} s, largest RSS $((VICTIM_RSS_KB / 1024)) MB"
	check "$gap <= ${MAX_GAP:-0.75}" "$what: root's pfmtop stalled" "$TMP/victim.err"
	check "$VICTIM_RSS_KB <= ${MAX_RSS_MB:-60} * 1024" "$what: root's pfmtop grew" "$TMP/victim.err"
}
