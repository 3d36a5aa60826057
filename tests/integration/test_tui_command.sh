#!/bin/bash
# The viewer with a command: the command's output never lands on the screen
# (its last line shows on the status line), Ctrl-L draws everything again,
# at its exit the viewer stays on its totals until q, and then its output
# is printed and pfmtop exits with its status.
. "$(dirname "$0")/lib.sh"

tmux_setup
keys() { tm send-keys -t t "$@"; }

tm new-session -d -s t -x 100 -y 30 "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"
cmd='for i in 1 2 3 4 5 6; do echo line-$i; echo err-$i >&2; sleep 0.3; done; exit 3'
keys "clear; TERM=xterm-256color '$PFMTOP' --view tasks -d 0.5 -- sh -c '$cmd'; echo rc=\$?" Enter
wait_for 10 pane_has 'output: ' || fail "the command's output is not on the status line" "$TMP/pane"
# only on the status line: nowhere above it
pane_above() { pane | head -n -2 >"$TMP/above"; ! grep -q 'line-\|err-' "$TMP/above"; }
pane_above || fail "the command's output was drawn over the view" "$TMP/above"
keys C-l
wait_for 3 pane_has 'COMMAND' 'processes' || fail "Ctrl-L: the view is not drawn again" "$TMP/pane"
wait_for 10 pane_has 'the command exited (status 3)' 'q quits' ||
	fail "at the command's exit the viewer does not stay on its totals" "$TMP/pane"
sleep 1
pane_has 'the command exited (status 3)' || fail "the viewer closed without a key" "$TMP/pane"
pane_above || fail "the command's output was drawn over the totals" "$TMP/above"
pass "the command's output on the status line only; Ctrl-L; the totals stay at its exit"

keys q
wait_for 5 pane_has 'rc=3' || fail "q after the command's exit: pfmtop did not exit with its status 3" "$TMP/pane"
pane >"$TMP/after"
for i in 1 2 3 4 5 6; do
	grep -qx "line-$i" "$TMP/after" && grep -qx "err-$i" "$TMP/after" ||
		fail "the command's output (line-$i, err-$i) is not printed after the viewer" "$TMP/after"
done
pass "after q: all of its output printed, exit status 3"
