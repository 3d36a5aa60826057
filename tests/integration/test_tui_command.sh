#!/bin/bash
# The viewer with a command: the command's stdout and stderr go to a file
# (--command-output FILE, or a new one in $XDG_RUNTIME_DIR) and never over
# the screen; the status line names the file and its last line; Ctrl-L
# draws everything again; at its exit the viewer stays on its totals under
# the banner "command exited with status N" until q, then prints a
# perf-stat-like summary and exits with the command's status (q while it
# runs stops it first, as perf stat's Ctrl-C does). The file is
# made safely (mode 0600, never over an existing file or through a link);
# with -b the output stays on the terminal.
. "$(dirname "$0")/lib.sh"

tmux_setup
keys() { tm send-keys -t t "$@"; }
out=$TMP/out err=$TMP/err

# ---- refusals, before anything runs ----
echo keep >"$TMP/exists"
run "$out" "$err" "$PFMTOP" -b -n 1 --command-output "$TMP/exists" -- true
expect_rc 2 "--command-output over an existing file" "$out" "$err"
grep -q 'exists' "$err" || fail "no reason given for refusing an existing file" "$err"
[ "$(cat "$TMP/exists")" = keep ] || fail "--command-output changed a file it did not make" "$TMP/exists"
ln -s "$TMP/target" "$TMP/link"
run "$out" "$err" "$PFMTOP" -b -n 1 --command-output "$TMP/link" -- true
expect_rc 2 "--command-output through a dangling symbolic link" "$out" "$err"
[ ! -e "$TMP/target" ] || fail "--command-output followed a symbolic link" "$err"
run "$out" "$err" "$PFMTOP" -b -n 1 --command-output "$TMP/x.log"
expect_rc 2 "--command-output without a command" "$out" "$err"
pass "--command-output refuses an existing file, a link, and no command"

# ---- -b: apart from the snapshots on stdout (on stderr), or into the file ----
# (test_command_stdout.sh: each format, -o FILE, a terminal)
run "$out" "$err" "$PFMTOP" -b -d 0.2 -- sh -c 'echo hello-out; echo hello-err >&2; exit 5'
expect_rc 5 "-b with a command" "$out" "$err"
grep -qx hello-out "$err" && grep -qx hello-err "$err" && ! grep -qx hello-out "$out" ||
	fail "-b: the command's output is not on pfmtop's stderr alone" "$out" "$err"
run "$out" "$err" "$PFMTOP" -b -d 0.2 --command-output "$TMP/b.log" -- sh -c 'echo to-file'
expect_rc 0 "-b --command-output FILE" "$out" "$err"
grep -qx to-file "$TMP/b.log" || fail "-b --command-output: nothing in the file" "$TMP/b.log" "$out"
! grep -qx to-file "$out" || fail "-b --command-output: the output is on stdout too" "$out"
[ "$(stat -c %a "$TMP/b.log")" = 600 ] || fail "the output file is not mode 0600: $(stat -c %a "$TMP/b.log")"
pass "-b: output on stderr, or in --command-output's file (0600)"

# ---- the view with a chatty command ----
tm new-session -d -s t -x 100 -y 30 "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"
log=$TMP/cmd.log
cmd='for i in 1 2 3 4 5 6; do echo line-$i; echo err-$i >&2; sleep 0.3; done; exit 3'
keys "clear; TERM=xterm-256color '$PFMTOP' --view tasks -d 0.5 --command-output '$log' -- sh -c '$cmd' 2>'$TMP/stderr'; echo rc=\$?" Enter
wait_for 10 pane_has "output in $log" || fail "the status line does not name the output file" "$TMP/pane"
# nothing of the output above the status line
pane_above() { pane | head -n -2 >"$TMP/above"; ! grep -q 'line-\|err-' "$TMP/above"; }
pane_above || fail "the command's output was drawn over the view" "$TMP/above"
keys C-l
wait_for 3 pane_has 'COMMAND' 'processes' || fail "Ctrl-L: the view is not drawn again" "$TMP/pane"
wait_for 15 pane_has 'command exited with status 3' 'q quits' ||
	fail "at the command's exit there is no banner" "$TMP/pane"
pane_has 'total' || fail "at the command's exit its totals are not shown" "$TMP/pane"
sleep 1
pane_has 'command exited with status 3' || fail "the viewer closed without a key" "$TMP/pane"
pane_above || fail "the command's output was drawn over the totals" "$TMP/above"
for i in 1 2 3 4 5 6; do
	grep -qx "line-$i" "$log" && grep -qx "err-$i" "$log" ||
		fail "the command's output (line-$i, err-$i) is not in $log" "$log"
done
pass "the output in the file, never on the screen; Ctrl-L; the banner and totals stay at its exit"

keys q
wait_for 10 pane_has 'rc=3' || fail "q after the command's exit: pfmtop did not exit with its status 3" "$TMP/pane"
for s in 'Performance counter stats for' 'msec task-clock' 'CPUs utilized' 'context-switches' \
	'seconds time elapsed' "is in $log"; do
	grep -qF -- "$s" "$TMP/stderr" || fail "the summary after q lacks '$s'" "$TMP/stderr"
done
pass "after q: a perf-stat-like summary, the file named, exit status 3"

# ---- q while the command runs: it is stopped, its totals and status follow ----
keys "clear; TERM=xterm-256color '$PFMTOP' --view tasks -d 0.5 --command-output '$TMP/q.log' -- sleep 60 2>'$TMP/stderr3'; echo rc=\$?" Enter
wait_for 10 pane_has "output in $TMP/q.log" || fail "the view with sleep 60 did not start" "$TMP/pane"
keys q
wait_for 10 pane_has 'rc=143' || fail "q while the command ran: not its status (SIGTERM: 143)" "$TMP/pane" "$TMP/stderr3"
for s in 'Performance counter stats for' 'msec task-clock' 'seconds time elapsed'; do
	grep -qF -- "$s" "$TMP/stderr3" || fail "q while the command ran: the summary lacks '$s'" "$TMP/stderr3"
done
! pgrep -f 'sleep 60$' >/dev/null || fail "q while the command ran: sleep 60 still runs"
pass "q while the command runs: it is stopped, then its summary and status 143"

# ---- the default file, and a clean screen at 80x24 ----
mkdir -m 700 "$TMP/run"
tm resize-window -t t -x 80 -y 24 2>/dev/null || true
keys "clear; XDG_RUNTIME_DIR='$TMP/run' TERM=xterm-256color '$PFMTOP' -- sh -c 'for i in 1 2 3; do echo x\$i; sleep 1; done' 2>'$TMP/stderr2'; echo rc=\$?" Enter
wait_for 10 pane_has "output in $TMP/run/pfmtop-command-" || fail "the default output file is not named" "$TMP/pane"
wait_for 15 pane_has 'command exited with status 0' || fail "no banner at the command's exit" "$TMP/pane"
pane | head -n -2 >"$TMP/above"
! grep -q '^x[123]' "$TMP/above" || fail "the command's output is on the screen" "$TMP/above"
grep -q 'pfmtop' "$TMP/above" && grep -q 'COMMAND' "$TMP/above" || fail "the header or the table is gone" "$TMP/above"
keys q
wait_for 10 pane_has 'rc=0' || fail "pfmtop did not exit 0 with the command" "$TMP/pane"
# "$TMP/run"/pfmtop-command-*.log: one file, the user's, 0600, the output in it
set -- "$TMP/run"/pfmtop-command-*.log
[ $# = 1 ] && [ -f "$1" ] || fail "no single default output file in $TMP/run: $*"
[ "$(stat -c '%a %u' "$1")" = "600 $(id -u)" ] || fail "the default output file is not 0600 and ours: $(stat -c '%a %u' "$1")"
printf 'x1\nx2\nx3\n' | cmp -s - "$1" || fail "the default output file does not hold the output" "$1"
grep -qF "is in $1" "$TMP/stderr2" || fail "the file is not named after q" "$TMP/stderr2"
pass "default: a new 0600 file in \$XDG_RUNTIME_DIR, named; the screen stays clean at 80x24"
