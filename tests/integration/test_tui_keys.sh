#!/bin/bash
# htop's habits in the view, end to end in tmux: the F-key bar (80 and 200
# columns, shrunk at 50), F1/h help closed by q and Esc, F2 column setup,
# / and F3 search (the rows stay) against \ and F4 filter (the rows go),
# F5 tree of a parent and its two children (folded with -, unfolded with +),
# F6 sort menu, M P T, u user menu, k: a signal after y (and none after n),
# a refusal for another user's process (as nobody, root only), the mouse
# (SGR clicks on a row, a title, the bar; the wheel), Ctrl-L, F10.
. "$(dirname "$0")/lib.sh"

need_cmd setsid
tmux_setup

keys() { tm send-keys -t t "$@"; }
pane_lacks() { pane >"$TMP/pane" && ! grep -qF -- "$1" "$TMP/pane"; }
# line N of the screen into $TMP/line
line_of() { pane | sed -n "${1}p" >"$TMP/line"; }
line_has() { line_of "$1" && grep -qF -- "$2" "$TMP/line"; }
# the PID of the selected row, as k's menu names it, into $TMP/selpid
sel_pid() {
	keys k
	wait_for 3 pane_has 'Send to ' || fail "k did not open the signal menu" "$TMP/pane"
	pane | sed -n 's/^ Send to \([0-9]*\).*/\1/p' | head -n1 >"$TMP/selpid"
	keys Escape
	wait_for 2 pane_lacks 'Send to ' || fail "Esc did not close the signal menu" "$TMP/pane"
}
# click X Y (1-based, as the terminal counts): an SGR mouse press and release
click() {
	keys -l $'\e[<'"$3;$1;$2M"
	keys -l $'\e[<'"$3;$1;$2m"
}

# Test processes with names of their own: a parent with two children, and
# a victim for k.
mkdir "$TMP/p"
cp "$(command -v sleep)" "$TMP/p/pfkkid"
cp "$(command -v sleep)" "$TMP/p/pfkvictim"
cp "$(command -v dash 2>/dev/null || command -v sh)" "$TMP/p/pfkpar"
setsid "$TMP/p/pfkpar" -c "'$TMP/p/pfkkid' 300 & '$TMP/p/pfkkid' 301 & wait" &
par=$!
cleanup_add "pkill -KILL -s $par"
"$TMP/p/pfkvictim" 300 &
victim=$!
cleanup_add "kill -KILL $victim"
wait_for 5 bash -c "[ \$(pgrep -P $par | wc -l) -eq 2 ]" || fail "the test parent did not start its two children"
pgrep -P "$par" | sort -n >"$TMP/kids"
read -r kid1 <"$TMP/kids"
kid2=$(sed -n 2p "$TMP/kids")

tm new-session -d -s t -x 80 -y 24 "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"
# (software events only: no column is n/s, so no line names hidden ones and
# the titles are on line 5 on every machine)
keys "TERM=xterm-256color '$PFMTOP' --view tasks -e task-clock,context-switches,page-faults; echo rc=\$?" Enter
wait_for 8 pane_has 'COMMAND' 'processes' || fail "the Tasks view did not open" "$TMP/pane"

# ---------------------------------------------------------------- the F-key bar
bar='F1Help F2Setup F3Search F4Filter F5Tree F6SortBy F9Kill F10Quit'
wait_for 2 line_has 24 "$bar" || fail "no F-key bar at 80 columns" "$TMP/line"
tm resize-window -t t -x 200 -y 60
wait_for 3 line_has 60 "$bar TabView SpcPause" || fail "the bar at 200 columns lacks the other keys" "$TMP/line"
tm resize-window -t t -x 50 -y 20
wait_for 3 line_has 20 'F10Quit' || fail "the bar at 50 columns lost F10Quit" "$TMP/line"
grep -qF 'F1Help' "$TMP/line" || fail "the bar at 50 columns lost F1Help" "$TMP/line"
# nothing cut mid-word: every item whole
awk 'BEGIN { split("F1Help F2Setup F3Search F4Filter F5Tree F6SortBy F9Kill F10Quit TabView SpcPause EnterHot EnterDetail EnterAnnotate pPreset dDelay sSave", a); for (i in a) ok[a[i]] = 1 }
	{ for (i = 1; i <= NF; i++) if (!($i in ok)) bad = 1; n += NF } END { exit bad || !n }' "$TMP/line" ||
	fail "the bar at 50 columns cuts an item" "$TMP/line"
tm resize-window -t t -x 80 -y 24
wait_for 3 line_has 24 "$bar" || fail "the bar did not come back at 80 columns" "$TMP/line"
pass "the F-key bar: whole at 80 and 200 columns, shrunk to whole items at 50"

# ---------------------------------------------------------------- help
keys F1
wait_for 2 pane_has 'pfmtop keys' || fail "F1 did not open the help" "$TMP/pane"
wait_for 2 line_has 24 'EscClose' || fail "the help's bar does not say how to close it" "$TMP/line"
tm resize-window -t t -x 100 -y 90 # all of the help on one screen
wait_for 3 pane_has 'Cells: n/s' || fail "the help does not fit 90 lines" "$TMP/pane"
for k in '/ or F3' 'search' 'filter rows' 'F2 ' 'F5 ' 'F6 ' 'M P T' 'one user' 'k or F9' 'signal' 'mouse' 'F10'; do
	pane_has "$k" || fail "the help does not mention '$k'" "$TMP/pane"
done
tm resize-window -t t -x 80 -y 24
wait_for 3 line_has 24 'EscClose' || fail "the help did not stay open over a resize" "$TMP/line"
keys q
wait_for 2 pane_has 'processes' || fail "q in the help quit pfmtop, or did not close the help" "$TMP/pane"
pane_lacks 'pfmtop keys' || fail "q did not close the help" "$TMP/pane"
keys h
wait_for 2 pane_has 'pfmtop keys' || fail "h did not open the help" "$TMP/pane"
keys Escape
wait_for 2 pane_lacks 'pfmtop keys' || fail "Esc did not close the help" "$TMP/pane"
pass "F1 and h open the help; q and Esc close it, not pfmtop"

# ---------------------------------------------------------------- filter, then the tree
keys '\' p f k Enter
wait_for 3 pane_has "filter 'pfk'" 'pfkpar' 'pfkkid' 'pfkvictim' || fail "the filter 'pfk' does not show the test processes" "$TMP/pane"
pane | sed -n '6,22p' | awk 'NF > 1' >"$TMP/rows"
grep -v pfk "$TMP/rows" && fail "the filter shows rows that do not match" "$TMP/rows"
keys F5
wait_for 3 pane_has 'tree' '|- pfkkid' '`- pfkkid' || fail "F5 did not show the children under their parent" "$TMP/pane"
pane | sed -n '6,22p' >"$TMP/rows"
# the parent's row, then its two children's, |- and `- before their names
awk -v par="$par" -v k1="$kid1" -v k2="$kid2" '
	NF { r[++n] = $0; f[n] = $1 }
	END {
		for (i = 1; i <= n && f[i] != par; i++) ;
		if (i > n || r[i] !~ / pfkpar( |$)/) exit 1
		if (r[i + 1] !~ /\|- pfkkid( |$)/ || r[i + 2] !~ /`- pfkkid( |$)/) exit 1
		exit !((f[i + 1] == k1 && f[i + 2] == k2) || (f[i + 1] == k2 && f[i + 2] == k1))
	}' "$TMP/rows" || fail "the tree is not parent, |- child, \`- child" "$TMP/rows"
pass "F5: the parent with its two children under it, |- and \`-"
# fold the parent: select it with the search
keys / p f k p a r Enter
sel_pid
[ "$(cat "$TMP/selpid")" = "$par" ] || fail "the search did not select pfkpar ($par)" "$TMP/selpid" "$TMP/pane"
keys -- -
wait_for 2 pane_lacks 'pfkkid' || fail "- did not fold the children away" "$TMP/pane"
pane_has '+ pfkpar' || fail "the folded parent has no + mark" "$TMP/pane"
keys +
wait_for 2 pane_has '|- pfkkid' || fail "+ did not show the children again" "$TMP/pane"
keys F5
wait_for 2 pane_lacks '|- pfkkid' || fail "F5 again did not go back to the list" "$TMP/pane"
pass "- folds, + unfolds, F5 again gives the list"

# ---------------------------------------------------------------- search against filter
keys Escape
wait_for 2 pane_lacks "filter 'pfk'" || fail "Esc did not clear the filter" "$TMP/pane"
keys / p f k k i d
wait_for 2 pane_has 'Search: pfkkid_' || fail "/ did not open the search prompt" "$TMP/pane"
wait_for 2 line_has 24 'F3Next' || fail "the search's bar does not name F3" "$TMP/line"
pane | sed -n '6,21p' | grep -vc pfk >"$TMP/others" || true
[ "$(cat "$TMP/others")" -gt 0 ] || fail "the search hid the rows that do not match (it is not a filter)" "$TMP/pane"
keys Enter
sel_pid
read -r first <"$TMP/selpid"
case "$first" in "$kid1" | "$kid2") ;; *) fail "the search did not select a pfkkid ($kid1, $kid2)" "$TMP/selpid" ;; esac
keys F3
sel_pid
read -r second <"$TMP/selpid"
case "$second" in "$kid1" | "$kid2") ;; *) fail "F3 did not go to a pfkkid" "$TMP/selpid" ;; esac
[ "$first" != "$second" ] || fail "F3 did not go on to the other pfkkid" "$TMP/selpid"
keys F4 p f k k i d
wait_for 2 pane_has 'Filter: pfkkid_' || fail "F4 did not open the filter prompt" "$TMP/pane"
keys Enter
wait_for 2 pane_has "filter 'pfkkid'" || fail "the F4 filter did not stay" "$TMP/pane"
pane | sed -n '6,22p' | awk 'NF > 1' >"$TMP/rows"
[ "$(grep -c pfkkid "$TMP/rows")" -eq 2 ] && ! grep -v pfkkid "$TMP/rows" ||
	fail "the F4 filter does not show exactly the two pfkkid rows" "$TMP/rows"
keys Escape # (alone: an Esc just before an F-key's escape sequence would merge with it)
wait_for 2 pane_lacks "filter 'pfkkid'" || fail "Esc did not clear the filter" "$TMP/pane"
pass "/ and F3 search (rows stay, the selection jumps), \\ and F4 filter"

# ---------------------------------------------------------------- sort: F6, M P T
keys F6
wait_for 2 pane_has 'Sort by' ' COMMAND' || fail "F6 did not open the sort menu" "$TMP/pane"
wait_for 2 line_has 24 'EnterPick' || fail "the menu's bar does not say Enter picks" "$TMP/line"
keys PPage PPage Enter # (Home is \e[1~ from tmux, not xterm's)
wait_for 2 pane_has 'sort PID' || fail "F6, Home, Enter did not sort by PID" "$TMP/pane"
keys P
wait_for 2 pane_has 'sort CPU%' || fail "P did not sort by CPU%" "$TMP/pane"
keys T
wait_for 2 pane_has 'sort task-clock' || fail "T did not sort by task-clock" "$TMP/pane"
keys M
wait_for 2 pane_has 'no memory column' || fail "M did not say there is no memory column" "$TMP/pane"
keys P
pass "F6 menu, P, T, M sort"

# ---------------------------------------------------------------- the mouse
tm resize-window -t t -x 120 -y 30
wait_for 3 line_has 5 'PID' || fail "no titles at 120x30" "$TMP/line"
line_of 5
pidx=$(awk '{ print index($0, "PID") }' "$TMP/line")
click "$pidx" 5 0
wait_for 2 pane_has 'sort PID' || fail "a click on the PID title did not sort by it" "$TMP/pane"
click "$pidx" 5 0
wait_for 2 pane_has 'sort PID (rev)' || fail "a second click on PID did not reverse" "$TMP/pane"
keys P
# a click on the 4th row selects it
line_of 9
awk '{ print $1 }' "$TMP/line" >"$TMP/want"
click 10 9 0
sel_pid
[ "$(cat "$TMP/selpid")" = "$(cat "$TMP/want")" ] || {
	# the rows may have moved between the look and the click: once more, paused
	keys ' '
	wait_for 2 pane_has PAUSED || fail "space did not pause" "$TMP/pane"
	line_of 9
	awk '{ print $1 }' "$TMP/line" >"$TMP/want"
	click 10 9 0
	sel_pid
	keys ' '
	[ "$(cat "$TMP/selpid")" = "$(cat "$TMP/want")" ] || fail "a click on row 4 did not select it" "$TMP/selpid" "$TMP/want"
}
# the wheel: 3 rows down (button 65) from the top
keys ' '
wait_for 2 pane_has PAUSED || fail "space did not pause" "$TMP/pane"
keys PPage PPage PPage PPage
line_of 9
awk '{ print $1 }' "$TMP/line" >"$TMP/want"
click 10 12 65
sel_pid
[ "$(cat "$TMP/selpid")" = "$(cat "$TMP/want")" ] || fail "the wheel did not move the selection 3 rows down" "$TMP/selpid" "$TMP/want"
keys ' '
# a click on F5Tree in the bar (the test's processes only)
keys '\' p f k Enter
wait_for 2 pane_has "filter 'pfk'" || fail "the filter 'pfk' did not come back" "$TMP/pane"
click 36 30 0
wait_for 2 pane_has '|- pfkkid' || fail "a click on F5Tree did not show the tree" "$TMP/pane"
click 36 30 0
wait_for 2 pane_lacks '|- pfkkid' || fail "a second click on F5List did not go back" "$TMP/pane"
keys Escape
wait_for 2 pane_lacks "filter 'pfk'" || fail "Esc did not clear the filter" "$TMP/pane"
pass "mouse: a title sorts (again: reversed), a row is selected, the wheel scrolls, the bar runs F5"

# ---------------------------------------------------------------- F2 column setup
keys F2
wait_for 2 pane_has 'Columns of the Tasks view' '[x] PID' '[x] CPU%' || fail "F2 did not list the columns" "$TMP/pane"
wait_for 2 line_has 30 'SpcShow/hide' || fail "the setup's bar does not say Space shows/hides" "$TMP/line"
line_has 5 'CPU%' || fail "no CPU% title before the setup" "$TMP/line"
keys Down Down Space
wait_for 2 pane_has '[ ] CPU%' || fail "Space did not hide CPU%" "$TMP/pane"
wait_for 2 bash -c "! tmux -S '$TMUX_SOCK' capture-pane -p -t t | sed -n 5p | grep -qF 'CPU%'" ||
	fail "the hidden CPU% is still among the titles" "$TMP/pane"
keys Up Up + + +
wait_for 2 pane_has 'width  10 (set)' || fail "+ did not widen PID" "$TMP/pane"
keys F8
wait_for 2 bash -c "tmux -S '$TMUX_SOCK' capture-pane -p -t t | grep -A1 -F '[x] USER' | grep -qF '[x] PID'" ||
	fail "F8 did not move PID below USER" "$TMP/pane"
keys Escape
wait_for 2 pane_lacks 'Columns of the Tasks view' || fail "Esc did not close the setup" "$TMP/pane"
line_of 5
grep -qF 'CPU%' "$TMP/line" && fail "CPU% came back after the setup closed" "$TMP/line"
awk '{ for (i = 1; i < NF; i++) if ($i == "USER" && $(i + 1) == "PID") ok = 1 } END { exit !ok }' "$TMP/line" ||
	fail "the titles are not USER then PID" "$TMP/line"
# kept when the view changes and comes back
keys 2 3
wait_for 2 line_has 5 'USER' || fail "the Tasks view did not come back" "$TMP/line"
grep -qF 'CPU%' "$TMP/line" && fail "the setup was lost on a view change" "$TMP/line"
keys F2 r Escape
wait_for 2 line_has 5 'CPU%' || fail "r in the setup did not put CPU% back" "$TMP/line"
pass "F2: hide, widen, move; kept across views; r resets"

# ---------------------------------------------------------------- u
keys u
wait_for 2 pane_has 'Show the tasks of' ' All users' || fail "u did not open the user menu" "$TMP/pane"
me=$(id -un)
pane | sed -n '5,29p' | cut -c1-28 >"$TMP/menu"
n=$(awk -v u=" $me" '{ sub(/ +$/, "") } $0 == u { print NR - 2; exit }' "$TMP/menu")
[ -n "$n" ] || fail "the user menu does not list $me" "$TMP/menu"
for ((i = 0; i < n; i++)); do keys Down; done
keys Enter
wait_for 2 pane_has "user $me" || fail "the user filter is not named" "$TMP/pane"
pane | sed -n '6,28p' | awk 'NF > 3 && $1 ~ /^[0-9]+$/ { print $2 }' | sort -u >"$TMP/users"
[ "$(cat "$TMP/users")" = "$me" ] || fail "rows of other users are shown" "$TMP/users"
keys Escape
wait_for 2 pane_lacks "user $me" || fail "Esc did not clear the user filter" "$TMP/pane"
pass "u: only $me's tasks; Esc clears"

# ---------------------------------------------------------------- k
keys / p f k v i c t i m Enter
sel_pid
[ "$(cat "$TMP/selpid")" = "$victim" ] || fail "the search did not select pfkvictim" "$TMP/selpid"
keys k
wait_for 2 pane_has "Send to $victim" '15 SIGTERM' '9 SIGKILL' || fail "k does not list the signals" "$TMP/pane"
keys Enter
wait_for 2 pane_has "send SIGTERM to $victim (pfkvictim)? y/n" || fail "no confirmation before the signal" "$TMP/pane"
keys n
wait_for 2 pane_has 'not sent' || fail "n did not say the signal was not sent" "$TMP/pane"
kill -0 "$victim" || fail "n sent the signal anyway"
keys k Enter
wait_for 2 pane_has "send SIGTERM to $victim" || fail "no confirmation the second time" "$TMP/pane"
keys y
wait_for 2 pane_has "sent SIGTERM to $victim (pfkvictim)" || fail "y did not say the signal was sent" "$TMP/pane"
wait_for 5 bash -c "! kill -0 $victim 2>/dev/null" || fail "pfkvictim is still there after SIGTERM"
pass "k: SIGTERM after y, nothing after n"

# ---------------------------------------------------------------- Ctrl-L
keys ' '
wait_for 2 pane_has PAUSED || fail "space did not pause" "$TMP/pane"
tty=$(tm display-message -p -t t '#{pane_tty}')
printf '\033[12;20HGARBAGE-ON-SCREEN' >"$tty"
wait_for 2 pane_has 'GARBAGE-ON-SCREEN' || fail "could not write over the screen" "$TMP/pane"
keys C-l
wait_for 2 pane_lacks 'GARBAGE-ON-SCREEN' || fail "Ctrl-L did not draw the screen again" "$TMP/pane"
keys ' '
pass "Ctrl-L draws the whole screen again"

# ---------------------------------------------------------------- F10
keys F10
wait_for 3 pane_has 'rc=0' || fail "F10 did not quit" "$TMP/pane"
pass "F10 quits"

# ---------------------------------------------------------------- EPERM, as nobody
[ "$(id -u)" -eq 0 ] || skip "the refusal needs root (to run pfmtop as nobody beside a root process)"
nobody_setup
# nobody sees root's processes with -p beside one of its own (the row says
# "no permission")
as_nobody ./spin 300 >/dev/null 2>&1 &
cleanup_add "kill -KILL $!"
wait_for 3 pgrep -u nobody -P $! -x spin >"$TMP/own" || fail "spin as nobody did not start"
read -r own <"$TMP/own"
cleanup_add "kill -KILL $own"
keys "TERM=xterm-256color setpriv --reuid=nobody --regid=$group --clear-groups '$TMP/bin/pfmtop' -p $own,$par; echo rc=\$?" Enter
wait_for 8 pane_has 'pfkpar' 'spin' || fail "pfmtop as nobody does not show pfkpar beside its own process" "$TMP/pane"
keys / p f k p a r Enter
sel_pid
[ "$(cat "$TMP/selpid")" = "$par" ] || fail "the search as nobody did not select pfkpar" "$TMP/selpid" "$TMP/pane"
keys k Enter y
wait_for 2 pane_has "not sent: no permission to signal $par (pfkpar)" || fail "no polite refusal for root's process" "$TMP/pane"
kill -0 "$par" || fail "pfkpar is gone"
keys q
wait_for 3 pane_has 'rc=0' || fail "q did not quit pfmtop as nobody" "$TMP/pane"
pass "k on root's process as nobody: 'no permission' on the status line"
