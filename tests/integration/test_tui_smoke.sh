#!/bin/bash
# The interactive view in a real terminal (tmux): it draws, 's' saves a
# snapshot file, 'q' quits with status 0 and gives the terminal back intact.
. "$(dirname "$0")/lib.sh"

tmux_setup

work=$TMP/work
mkdir "$work"
saved() { compgen -G "$work/pfmtop-*.txt" >/dev/null; }
shell_idle() { [ "$(tm display-message -p -t t '#{pane_current_command}')" = bash ]; }

tm new-session -d -s t -x 120 -y 40 -c "$work" "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"
tm send-keys -t t "stty -g >'$TMP/stty.before'; '$PFMTOP'; echo rc=\$?; stty -g >'$TMP/stty.after'" Enter

# --- it draws ---
wait_for 6 pane_has pfmtop CPU task ||
	fail "after 6 s the screen lacks 'pfmtop', 'CPU' or 'task-clock'" "$TMP/pane"
shell_idle && fail "pfmtop is no longer running in the pane" "$TMP/pane"
pass "the view shows pfmtop, CPU and task-clock"

# --- 's' saves the screen to pfmtop-*.txt in the working directory ---
tm send-keys -t t s
wait_for 3 saved || fail "'s' did not create pfmtop-*.txt in $work ($(ls -A "$work" | tr '\n' ' '))" "$TMP/pane"
file=$(compgen -G "$work/pfmtop-*.txt" | head -n1)
grep -q snapshot "$file" || fail "$(basename "$file") does not contain 'snapshot'" "$file"
[ -z "$(find "$work" -mindepth 1 -name '.*')" ] || fail "temporary file left in $work: $(ls -A "$work" | tr '\n' ' ')"
wait_for 2 pane_has "$(basename "$file")" || fail "the status line does not name the saved file" "$TMP/pane"
pass "'s' saved $(basename "$file")"

# --- 'q' quits and the shell gets a sane terminal back ---
tm send-keys -t t q
wait_for 5 pane_has 'rc=' || fail "'q' did not end pfmtop within 5 s" "$TMP/pane"
pane_has 'rc=0' || fail "pfmtop exited with a non-zero status after 'q'" "$TMP/pane"
wait_for 3 test -s "$TMP/stty.after" || fail "the shell did not run the command after pfmtop"
cmp -s "$TMP/stty.before" "$TMP/stty.after" ||
	fail "terminal modes differ after pfmtop quit: before $(cat "$TMP/stty.before") after $(cat "$TMP/stty.after")"
tm send-keys -t t "echo done-\$((40 + 2))" Enter
wait_for 3 pane_has done-42 || fail "the shell did not answer after pfmtop quit" "$TMP/pane"
pane_has 'task-clock' && fail "pfmtop's screen is still on the terminal after it quit (alternate screen not left)" "$TMP/pane"
pass "'q': exit 0, terminal modes restored, shell usable"

# --- a UTF-8 name is drawn as it is (the viewer runs in the user's locale) ---
rename=$(helper rename)
"$rename" 7ac3bc726963682dcebb 30 >/dev/null &
rp=$!
disown "$rp"
cleanup_add "kill -KILL $rp"
tm send-keys -t t "LANG=C.UTF-8 LC_ALL= '$PFMTOP' --view tasks -d 0.5 -N 0" Enter
wait_for 15 pane_has 'zürich-λ' || fail "a process named zürich-λ is not shown as such in a UTF-8 terminal" "$TMP/pane"
tm send-keys -t t q
wait_for 5 pane_has 'tui$' || fail "'q' did not end pfmtop" "$TMP/pane"
pass "UTF-8 names drawn as they are: zürich-λ"

# --- an event given twice: the view labels its second column NAME#2, as the
# batch table and JSON do, and --sort takes that label ---
tm send-keys -t t "'$PFMTOP' --view tasks -d 0.5 -e page-faults,page-faults --sort 'page-faults#2'" Enter
# (the command line typed holds the names too: wait for the column titles)
twin_columns() { pane >"$TMP/pane" && grep -qE '(page-)?faults(/s)? +page-faults#2(/s)?' "$TMP/pane"; }
wait_for 10 twin_columns || fail "the view's columns are not page-faults, page-faults#2 for -e page-faults,page-faults" "$TMP/pane"
tm send-keys -t t q
wait_for 5 pane_has 'tui$' || fail "'q' did not end pfmtop" "$TMP/pane"
pass "an event given twice: the view's columns page-faults and page-faults#2, sorted by the second"
