#!/bin/bash
# Row history in the viewer, in tmux at 80x24 and 200x60: a bursty command
# (page faults, then sleep) gets a HIST sparkline that is not flat; Enter
# opens its detail pane with its PID, command line, graphs and hotspots;
# the pane is redrawn cleanly when the window is resized either way; when
# the command exits the pane says "exited" and keeps the graphs; Esc goes
# back to the table. Then the ASCII sparkline of a non-UTF-8 locale.
. "$(dirname "$0")/lib.sh"

need_cmd python3
tmux_setup

work=$TMP/work
mkdir "$work"
bursts=$PFMTOP_HELPERS/bursts
[ -x "$bursts" ] || fail "helper bursts not built (expected $bursts)"
keys() { tm send-keys -t t "$@"; }
pane_lacks() { pane >"$TMP/pane" && ! grep -qF -- "$1" "$TMP/pane"; }

# graphs: the screen ($TMP/pane) has at least two lines of graph bars
# (eight block characters or more each).
graphs() {
	python3 - "$TMP/pane" <<'PY'
import sys
lines = open(sys.argv[1], encoding='utf-8', errors='replace').read().splitlines()
bars = [l for l in lines if sum(c in '▁▂▃▄▅▆▇█' for c in l) >= 8]
assert len(bars) >= 2, bars
PY
}

fresh_graphs() {
	pane >"$TMP/pane"
	graphs 2>/dev/null
}

# spark_varied GLYPHS: the HIST cell of the bursts row holds at least two
# different glyphs of GLYPHS (the screen is in $TMP/pane).
spark_varied() {
	pane >"$TMP/pane"
	python3 - "$TMP/pane" "$1" <<'PY'
import sys
lines = open(sys.argv[1], encoding='utf-8', errors='replace').read().splitlines()
glyphs = sys.argv[2]
title = next(l for l in lines if ' HIST ' in l and 'COMMAND' in l)
end = title.index(' HIST ') + len(' HIST')
row = next(l for l in lines if 'bursts 3000' in l and not l.startswith(' pfmtop '))
cell = row[end - 12:end]
used = {c for c in cell if c != ' '}
assert used <= set(glyphs), (cell, used)
assert len(used) >= 2, cell
PY
}

# clean W H: the screen is W x H and drawn once at that size: the header
# first, the key line last, one pane title, one hotspot title, one graph of
# CPU%, no line longer than W.
clean() {
	pane >"$TMP/pane"
	python3 - "$TMP/pane" "$1" "$2" <<'PY'
import sys
lines = open(sys.argv[1], encoding='utf-8', errors='replace').read().split('\n')
w, h = int(sys.argv[2]), int(sys.argv[3])
if lines and lines[-1] == '':
    lines.pop()
assert len(lines) == h, len(lines)
assert lines[0].startswith(' pfmtop '), lines[0]
assert 'Help' in lines[-1], lines[-1]
assert all(len(l) <= w for l in lines)
assert sum('hotspots of PID' in l for l in lines) == 1
assert sum(l.startswith('CPU%  now') for l in lines) == 1
assert sum(' PID ' in l and 'USER' in l for l in lines) == 1
PY
}

tm -u new-session -d -s t -x 80 -y 24 -c "$work" "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"

# ---------------------------------------------------------------- sparkline
# Bursts of page faults every 0.4 s, sampled every 0.3 s: busy intervals
# and idle ones.
keys "LC_ALL=C.UTF-8 TERM=xterm-256color '$PFMTOP' -d 0.3 -- '$bursts' 3000 400 40; echo rc=\$?" Enter
wait_for 10 pane_has 'HIST' 'bursts' || fail "no Tasks view with a HIST column and the command" "$TMP/pane"
wait_for 20 spark_varied '▁▂▃▄▅▆▇█' || fail "the sparkline of the bursty command stays flat" "$TMP/pane"
pass "80x24: the HIST sparkline of a bursty command is not flat"

# ---------------------------------------------------------------- detail pane
pid=$(pgrep -x bursts | head -1)
[ -n "$pid" ] || fail "the bursts command is not running" "$TMP/pane"
keys Enter
wait_for 5 pane_has "PID $pid" "hotspots of PID $pid" 'CPU%  now' 'page-faults  now' "$bursts 3000 400 40" ||
	fail "Enter did not open the detail pane with the PID, the command line and graphs" "$TMP/pane"
# the graphs fill as intervals go by (8 bars take 8 x 0.3 s)
wait_for 10 fresh_graphs || fail "the detail pane has no graphs" "$TMP/pane"
wait_for 5 clean 80 24 || fail "the pane at 80x24 is not drawn cleanly" "$TMP/pane"
pass "80x24: Enter opens the pane: PID $pid, command line, graphs, hotspots"

# ---------------------------------------------------------------- resize
tm resize-window -t t -x 200 -y 60
wait_for 5 clean 200 60 || fail "after resizing to 200x60 the pane is not drawn cleanly" "$TMP/pane"
pane_has "PID $pid" 'preset default' || fail "200x60: the pane or the whole header is missing" "$TMP/pane"
tm resize-window -t t -x 80 -y 24
wait_for 5 clean 80 24 || fail "after resizing back to 80x24 the pane is not drawn cleanly" "$TMP/pane"
tm resize-window -t t -x 200 -y 60
wait_for 5 clean 200 60 || fail "after resizing to 200x60 again the pane is not drawn cleanly" "$TMP/pane"
pass "resize 80x24 -> 200x60 -> 80x24 -> 200x60 redraws the pane at each size"

# ---------------------------------------------------------------- the task exits
wait_for 90 pane_has ' exited ' || fail "the pane does not say the command exited" "$TMP/pane"
pane_has "PID $pid" 'CPU%  now' || fail "the exited task's pane lost its identity or graphs" "$TMP/pane"
graphs || fail "the exited task's pane lost its history" "$TMP/pane"
wait_for 5 clean 200 60 || fail "the exited task's pane is not drawn cleanly" "$TMP/pane"
pass "the command exits: the pane says exited and keeps its graphs"

# ---------------------------------------------------------------- Esc
keys Escape
wait_for 5 pane_has 'COMMAND' 'HIST' || fail "Esc did not go back to the table" "$TMP/pane"
pane_lacks 'hotspots of PID' || fail "Esc left the pane on the screen" "$TMP/pane"
pass "Esc closes the pane"
keys q
wait_for 5 pane_has 'rc=' || fail "pfmtop did not quit on q" "$TMP/pane"

# ---------------------------------------------------------------- ASCII
keys clear Enter "LC_ALL=C TERM=xterm-256color '$PFMTOP' -d 0.3 -- '$bursts' 3000 400 40; echo rc=\$?" Enter
wait_for 10 pane_has 'HIST' 'bursts' || fail "no Tasks view with a HIST column (C locale)" "$TMP/pane"
wait_for 20 spark_varied '_.-=#' || fail "no ASCII sparkline in the C locale" "$TMP/pane"
pass "C locale: the sparkline is ASCII (_.-=#)"
keys q
wait_for 5 pane_has 'rc=' || fail "pfmtop did not quit on q" "$TMP/pane"
