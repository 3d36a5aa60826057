#!/bin/bash
# The overview, the viewer's first screen, in tmux at 80x24 and 200x60: a
# meter per CPU, the summary line, task rows with per-second titles and the
# full command line, the top hotspots; R toggles per-interval totals; the
# columns n/s on every row are hidden, named, and X shows them.
. "$(dirname "$0")/lib.sh"

need_cmd taskset
tmux_setup
keys() { tm send-keys -t t "$@"; }
titles() { pane | grep -E '^ +PID +' | head -n1; }
title_has() { titles >"$TMP/titles" && grep -qE -- "$1" "$TMP/titles"; }
title_lacks() { titles >"$TMP/titles" && [ -s "$TMP/titles" ] && ! grep -qE -- "$1" "$TMP/titles"; }
pane_matches() { pane >"$TMP/pane" && grep -qE -- "$1" "$TMP/pane"; }
pane_lacks() { pane >"$TMP/pane" && ! grep -qF -- "$1" "$TMP/pane"; }

# A busy task on CPU 0, and pfmtop on CPU 0 only: one meter whatever the
# machine's CPU count.
spin=$(helper spin)
taskset -c 0 "$spin" 120 &
spin_pid=$!
cleanup_add "kill $spin_pid"

# The events this machine does not support (none with a PMU: that part is skipped).
"$PFMTOP" -b -n 1 -d 0.3 -C 0 >"$TMP/batch.txt" 2>&1 || fail "pfmtop -b failed" "$TMP/batch.txt"
awk '/^EVENT/ { t = 1; next } t && NF == 0 { exit } t && $2 == "not" && $3 == "supported" { print $1 }' \
	"$TMP/batch.txt" >"$TMP/nsup"
first_nsup=$(head -n1 "$TMP/nsup")

for size in 80x24 200x60; do
	tm kill-session -t t 2>/dev/null || true
	tm new-session -d -s t -x "${size%x*}" -y "${size#*x}" \
		"TERM=xterm-256color LANG=C.UTF-8 '$PFMTOP' -C 0 -d 0.5; sleep 30" ||
		skip "tmux cannot start a session here"

	# --- meters, summary, tasks with /s titles, hotspots ---
	wait_for 10 pane_matches '^0\[\|+[ |]*[0-9]+\.[0-9]%\]$' ||
		fail "$size: no meter '0[|||...  N.N%]' for CPU 0" "$TMP/pane"
	pane_matches '^Load [0-9.]+ [0-9.]+ [0-9.]+  Tasks [0-9]+, [0-9]+ run' ||
		fail "$size: no summary line with the load and the tasks" "$TMP/pane"
	wait_for 5 pane_has 'ctxsw ' 'faults ' || fail "$size: the summary lacks ctxsw/s or faults/s" "$TMP/pane"
	wait_for 5 title_has '(ctxsw|context-switches)/s' || fail "$size: the task titles lack a /s counter" "$TMP/titles"
	title_has 'task(-clock)?%' || fail "$size: task-clock is not shown as %" "$TMP/titles"
	# (the machine may be busy with other work: filter the rows to find it)
	keys '\' s p i n Enter
	wait_for 5 pane_matches "^ *$spin_pid " || fail "$size: no task row for the spin workload" "$TMP/pane"
	wait_for 5 pane_has 'TOP HOTSPOTS' || fail "$size: no hotspots strip" "$TMP/pane"
	pane | sed -n '/TOP HOTSPOTS/,$p' | grep -qE '^ +[0-9.]+% ' || fail "$size: the hotspots strip has no rows" "$TMP/pane"
	# nothing cut: the meter and the lines fit the width
	pane | awk -v w="${size%x*}" 'length($0) > w { exit 1 }' || fail "$size: a line is wider than the screen" "$TMP/pane"
	pass "$size: meter, summary line, task rows with /s titles, hotspots strip"

	# --- the full command line (its argument, not only the name) ---
	if [ "$size" = 200x60 ]; then
		pane_has "$spin 120" || fail "$size: COMMAND does not show the command line '$spin 120'" "$TMP/pane"
		pass "$size: COMMAND shows the full command line"
	fi

	keys Escape
	wait_for 3 pane_lacks "filter 'spin'" || fail "$size: Esc did not clear the filter" "$TMP/pane"

	# --- R: per-interval totals, and back ---
	keys R
	wait_for 3 title_has 'task(-clock)?\(ms\)' || fail "$size: R did not show task-clock in ms" "$TMP/titles"
	title_lacks '/s' || fail "$size: R left /s titles" "$TMP/titles"
	pane_has 'totals per interval' || fail "$size: R did not say what it shows" "$TMP/pane"
	keys R
	wait_for 3 title_has '/s' || fail "$size: R again did not come back to /s" "$TMP/titles"
	pass "$size: R toggles per-second / per-interval titles"

	# --- n/s columns hidden, named, X shows them ---
	if [ -n "$first_nsup" ]; then
		wait_for 3 pane_matches "^hidden.*$first_nsup.*X" || fail "$size: no line naming the hidden n/s columns" "$TMP/pane"
		title_lacks "$first_nsup" || fail "$size: the n/s column $first_nsup is shown" "$TMP/titles"
		keys X
		wait_for 3 pane_matches '^shown.*X' || fail "$size: X did not show the n/s columns" "$TMP/pane"
		if [ "$size" = 200x60 ]; then
			wait_for 3 title_has " $first_nsup/s " || fail "$size: X: no $first_nsup/s column" "$TMP/titles"
			# whole titles (in full, or their short form) at 200 columns:
			# none cut mid-word, as "instruc" or "brmiss/" would be
			tr -s ' ' '\n' <"$TMP/titles" | grep -vE '^$|^[A-Z%]+$|/s$|%$|^IPC$' >"$TMP/cut" &&
				fail "$size: titles cut: $(tr '\n' ' ' <"$TMP/cut")" "$TMP/titles"
			[ "$(grep -o '/s' "$TMP/titles" | wc -l)" -ge "$(wc -l <"$TMP/nsup")" ] ||
				fail "$size: fewer /s columns than n/s events" "$TMP/titles"
		fi
		keys X
		wait_for 3 pane_matches '^hidden' || fail "$size: X again did not hide them" "$TMP/pane"
		pass "$size: n/s columns ($(tr '\n' ' ' <"$TMP/nsup")) hidden and named; X shows them"
	else
		info "$size: every event is supported here: the hidden-column line is not tested"
	fi

	# --- the other views stay, as full screens ---
	keys 3
	wait_for 3 pane_has 'processes' || fail "$size: 3 did not show the Tasks view" "$TMP/pane"
	pane_has 'TOP HOTSPOTS' && fail "$size: the Tasks view shows the hotspots strip" "$TMP/pane"
	keys 1
	wait_for 3 pane_has 'TOP HOTSPOTS' || fail "$size: 1 did not come back to the overview" "$TMP/pane"
	keys q
done

# --- small terminals: the hotspots go first, then the meters fold ---
tm kill-session -t t 2>/dev/null || true
tm new-session -d -s t -x 80 -y 15 "TERM=xterm-256color '$PFMTOP' -d 0.5; sleep 30" ||
	skip "tmux cannot start a session here"
wait_for 10 pane_has 'Load ' || fail "80x15: no overview" "$TMP/pane"
pane_has 'TOP HOTSPOTS' && fail "80x15: the hotspots strip did not give way to the tasks" "$TMP/pane"
wait_for 5 pane_matches '^ +[0-9]+ ' || fail "80x15: no task rows" "$TMP/pane"
pass "80x15: hotspots strip left out, task rows kept"
tm resize-window -t t -x 80 -y 12
wait_for 3 pane_matches '^(Avg|0)\[' || fail "80x12: no meter line" "$TMP/pane"
pane | grep -cE '^[0-9]+\[' >"$TMP/n" || true
[ "$(cat "$TMP/n")" -le 1 ] || fail "80x12: the meters did not fold into one line" "$TMP/pane"
pass "80x12: the meters fold into one line"
keys q
