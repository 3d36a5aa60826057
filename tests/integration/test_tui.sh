#!/bin/bash
# The interactive viewer end to end in tmux: header and rows with real
# values, the five views, sort, filter, pause, help, Enter -> filtered
# hotspots, delay, themes, the snapshot against the batch renderer, resize
# and the size message, the preset chooser without fd leaks, and the
# terminal types people use.
. "$(dirname "$0")/lib.sh"

need_cmd python3
tmux_setup

work=$TMP/work
mkdir "$work"
sock=$TMUX_SOCK
pane_lacks() { pane >"$TMP/pane" && ! grep -qF -- "$1" "$TMP/pane"; }
keys() { tm send-keys -t t "$@"; }
pfmtop_pid() { pgrep -P "$(tm display-message -p -t t '#{pane_pid}')" -x pfmtop; }
# rows: the table lines under the column titles (line 5 on).
rows() { pane | sed -n '6,38p'; }

tm new-session -d -s t -x 120 -y 40 -c "$work" "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"

spin=$(helper spin)
"$spin" 60 &
spin_pid=$!
cleanup_add "kill $spin_pid"

# ---------------------------------------------------------------- first frame
keys "stty -g >'$TMP/stty.before'; TERM=xterm-256color '$PFMTOP'; echo rc=\$?; stty -g >'$TMP/stty.after'" Enter
wait_for 6 pane_has "host $(uname -n)" "kernel $(uname -r)" 'system-wide' 'preset default' 'sampling' ||
	fail "the header lacks host, kernel, mode, preset or the sampling bar" "$TMP/pane"
# The overview first; 2: the CPUs view
wait_for 4 pane_has 'Load ' 'TOP HOTSPOTS' || fail "the first screen is not the overview" "$TMP/pane"
keys 2
wait_for 4 pane_has 'task-clock%' ' all ' || fail "no CPU table with task-clock and the total row" "$TMP/pane"
# The total row carries a real task-clock: about 100% of each CPU (1000 ms
# per CPU per second); more than 10% at least.
wait_for 4 bash -c "tmux -S '$sock' capture-pane -p -t t | awk '\$1 == \"all\" { for (i = 3; i <= NF; i++) if (\$i ~ /^[0-9.]+\$/ && \$i + 0 > 10) ok = 1 } END { exit !ok }'" ||
	fail "the 'all' row has no task-clock value above 10%" "$TMP/pane"
pane_has 'h' 'Help' 'Quit' || fail "no key line at the bottom" "$TMP/pane"
pass "header, health bar, CPU rows with real values, key line"

# ---------------------------------------------------------------- views
keys 3
wait_for 3 pane_has 'COMMAND' 'processes' 'CPU%' || fail "'3' did not show the Tasks view" "$TMP/pane"
wait_for 4 pane_has spin || fail "the Tasks view does not list the spin workload" "$TMP/pane"
keys 4
wait_for 3 pane_has 'SHARE' 'SYMBOL' 'MODULE' 'samples' || fail "'4' did not show the Hotspots view" "$TMP/pane"
wait_for 4 pane_has '[kernel]' || fail "the Hotspots view has no symbolized kernel rows" "$TMP/pane"
keys 5
wait_for 3 pane_has 'EVENT' 'STATE' 'COVERAGE' 'task-clock' 'perf_event_paranoid' ||
	fail "'5' did not show the Events view with the probe facts" "$TMP/pane"
keys Tab
wait_for 3 pane_has 'Load ' 'TOP HOTSPOTS' || fail "Tab from Events did not wrap to the overview" "$TMP/pane"
keys Tab
wait_for 3 pane_has 'CPU%' ' all ' || fail "Tab from the overview did not go on to CPUs" "$TMP/pane"
keys Tab
wait_for 3 pane_has 'processes' || fail "Tab did not go on to Tasks" "$TMP/pane"
pass "views 1-5 and Tab"

# The Tasks view ends, like the batch table, with what no task row holds
# and the total (system-wide, with task counters)
keys NPage NPage NPage NPage NPage NPage NPage NPage NPage NPage NPage NPage # (End is \e[4~ from tmux, not xterm's)
wait_for 3 pane_has '(unattributed' || fail "the Tasks view has no (unattributed) row at its end" "$TMP/pane"
pane | grep -qE ' total *$' || fail "the Tasks view has no total row at its end" "$TMP/pane"
keys PPage PPage PPage PPage PPage PPage PPage PPage PPage PPage PPage PPage
pass "Tasks view: (unattributed) and total rows"

# ---------------------------------------------------------------- sort
wait_for 2 pane_has 'sort CPU%' || fail "the Tasks view does not say it sorts by CPU%" "$TMP/pane"
keys '<' '<'
wait_for 2 pane_has 'sort PID' || fail "'<' twice did not sort by PID" "$TMP/pane"
# pids_sorted [-r]: the rows on screen are in (reverse) PID order.
pids_sorted() {
	rows | awk '$1 ~ /^[0-9]+$/ { print $1 }' >"$TMP/pids"
	[ -s "$TMP/pids" ] && sort -n "$@" -c "$TMP/pids" 2>/dev/null
}
wait_for 3 pids_sorted || fail "rows sorted by PID are not ascending" "$TMP/pids"
keys r
wait_for 2 pane_has 'sort PID (rev)' || fail "'r' did not reverse" "$TMP/pane"
wait_for 3 pids_sorted -r || fail "reversed PID order is not descending" "$TMP/pids"
keys '>' '>'
wait_for 2 pane_has 'sort CPU%' || fail "'>' twice did not come back to CPU%" "$TMP/pane"
pass "< > r sort the Tasks view"

# ---------------------------------------------------------------- filter
keys '\' s p i
wait_for 2 pane_has "filter 'spi'" 'Filter: spi_' || fail "'\\' did not open the filter prompt" "$TMP/pane"
keys n Enter
wait_for 2 pane_has "filter 'spin'" || fail "the filter did not stay after Enter" "$TMP/pane"
rows | awk 'NF > 2 && $1 ~ /^[0-9]+$/' >"$TMP/filtered"
[ -s "$TMP/filtered" ] || fail "the filter 'spin' left no rows" "$TMP/pane"
grep -v spin "$TMP/filtered" && fail "rows that do not match 'spin' are shown" "$TMP/pane"
pass "\\ filters rows incrementally"

# ---------------------------------------------------------------- Enter, Enter -> hotspots of the task
# (the filter on its PID: other processes may be called spin too)
keys Escape
wait_for 2 pane_lacks "filter 'spin'" || fail "Esc did not clear the filter" "$TMP/pane"
keys '\' $spin_pid Enter
wait_for 2 pane_has "filter '$spin_pid'" || fail "the filter on spin's PID did not stay" "$TMP/pane"
keys Enter
wait_for 3 pane_has "hotspots of PID $spin_pid" || fail "Enter on spin did not open its detail pane" "$TMP/pane"
keys Enter
wait_for 3 pane_has 'SYMBOL' "PID $spin_pid only" || fail "Enter on spin did not open its hotspots" "$TMP/pane"
wait_for 4 pane_lacks 'from the next interval' || fail "the filtered hotspots never arrived" "$TMP/pane"
wait_for 3 bash -c "tmux -S '$sock' capture-pane -p -t t | sed -n '6,38p' | grep -q ' spin '" ||
	fail "the filtered hotspots do not show spin" "$TMP/pane"
rows | awk 'NF > 3 && $1 ~ /%$/ && $3 != "'"$spin_pid"'"' >"$TMP/others"
[ -s "$TMP/others" ] && fail "hotspots of other processes are shown" "$TMP/others"
keys Escape
wait_for 2 pane_has 'processes' || fail "Esc did not return to the Tasks view" "$TMP/pane"
pane_has "filter '$spin_pid'" && fail "the text filter survived the view change" "$TMP/pane"
pass "Enter on a task, Enter in its pane show its hotspots only; Esc returns"

# ---------------------------------------------------------------- pause
keys 2 ' '
wait_for 2 pane_has PAUSED || fail "space did not pause" "$TMP/pane"
rows >"$TMP/p1"
sleep 2.3 # not a wait for a condition: the rows must stay as they are over two refreshes
rows >"$TMP/p2"
cmp -s "$TMP/p1" "$TMP/p2" || fail "the rows changed while paused" "$TMP/p1" "$TMP/p2"
keys ' '
wait_for 2 pane_lacks PAUSED || fail "space did not resume" "$TMP/pane"
pass "space pauses and resumes"

# ---------------------------------------------------------------- help
keys h
wait_for 2 pane_has 'pfmtop keys' || fail "'h' did not open the help" "$TMP/pane"
for k in 'Tab' '1 2 3 4 5' 'Up/Down' 'PgUp/PgDn' 'Home/End' '< >' 'reverse' 'filter rows' 'Esc' \
	'Enter' 'pause' 'delay' 'thread' 'kernel hotspots' 'user-space hotspots' 'since the start' \
	'preset' 'theme' 'snapshot' 'quit'; do
	# the help may be longer than the screen: its next page too
	pane_has "$k" || { keys NPage && wait_for 2 pane_has "$k" && keys PPage; } ||
		fail "the help does not mention '$k'" "$TMP/pane"
done
keys x
wait_for 2 pane_lacks 'pfmtop keys' || fail "a key did not close the help" "$TMP/pane"
keys '?'
wait_for 2 pane_has 'pfmtop keys' || fail "'?' did not open the help" "$TMP/pane"
keys x
# F1 then q closes the help, as in htop: it does not quit
keys F1
wait_for 2 pane_has 'pfmtop keys' || fail "F1 did not open the help" "$TMP/pane"
keys q
wait_for 2 pane_lacks 'pfmtop keys' || fail "q did not close the help" "$TMP/pane"
pane_has 'task-clock' || fail "q in the help quit pfmtop instead of closing the help" "$TMP/pane"
pass "h, ? and F1 list every key; q closes the help"

# ---------------------------------------------------------------- delay, theme, hide
keys d 2 Enter
wait_for 2 pane_has 'every 2s' || fail "'d 2 Enter' did not set a 2 s delay" "$TMP/pane"
keys d 1 Enter
wait_for 2 pane_has 'every 1s' || fail "'d 1 Enter' did not set the delay back" "$TMP/pane"
keys t
wait_for 2 pane_has 'theme ' || fail "'t' did not say which theme" "$TMP/pane"
keys 4 K
wait_for 3 pane_has 'kernel hidden' || fail "'K' did not hide kernel hotspots" "$TMP/pane"
keys K z
wait_for 3 bash -c "tmux -S '$sock' capture-pane -p -t t | sed -n 4p | grep -q 'since the start'" ||
	fail "'z' did not switch to accumulated hotspots" "$TMP/pane"
keys z
# Settings apply from the next interval: wait for it before saving below.
wait_for 3 bash -c "tmux -S '$sock' capture-pane -p -t t | sed -n 4p | grep 'this interval' | grep -vq 'kernel hidden'" ||
	fail "'K' and 'z' did not go back to interval hotspots with the kernel shown" "$TMP/pane"
keys 2
pass "d sets the delay, t cycles themes, K and z change the hotspots"

# ---------------------------------------------------------------- snapshot vs batch
keys s
wait_for 3 compgen -G "$work/pfmtop-*.txt" >/dev/null || fail "'s' wrote no file" "$TMP/pane"
file=$(compgen -G "$work/pfmtop-*.txt" | head -n1)
wait_for 2 pane_has "saved $(basename "$file")" || fail "the status line does not name the file" "$TMP/pane"
"$PFMTOP" -b -n 1 >"$TMP/batch.txt" 2>"$TMP/batch.err" || fail "batch mode failed" "$TMP/batch.err"
# Equal in content: the same sections, header lines, events, CPU rows and
# table titles; numbers (times, counts) and which tasks or symbols are on
# top naturally differ between two runs.
python3 - "$file" "$TMP/batch.txt" >"$TMP/skeleton.diff" <<'EOF' || fail "the saved snapshot and the batch output differ in content" "$TMP/skeleton.diff" "$file" "$TMP/batch.txt"
import re, sys
def skeleton(path):
    out, section, note = [], None, False
    for line in open(path).read().split("\n"):
        # Notes on what the rest of the machine does (perf maps cut short,
        # say) come and go with it: not part of the layout.
        note = line.startswith("note:") or (note and line.startswith(" "))
        if note and not section:
            continue
        if line.startswith(("TASKS:", "HOTSPOTS:", "SAMPLING HEALTH")):
            section, kept = line.split(":")[0], 0
        elif line == "":
            section = None
        elif section:
            kept += 1
            if kept > 1 and section != "SAMPLING HEALTH":
                continue  # which tasks and symbols are on top differs per run
        out.append(re.sub(r"[0-9]+(\.[0-9]+)?", "N", re.sub(r"\s+", " ", line)))
    return out
a, b = skeleton(sys.argv[1]), skeleton(sys.argv[2])
import difflib
d = list(difflib.unified_diff(a, b, "screen", "batch", lineterm=""))
print("\n".join(d))
sys.exit(1 if d else 0)
EOF
pass "'s' wrote $(basename "$file"), equal in content to 'pfmtop -b -n 1'"

# ---------------------------------------------------------------- resize
tm resize-window -t t -x 60 -y 15
wait_for 3 pane_has 'CPU%' ' all ' || fail "at 60x15 the CPU table is gone" "$TMP/pane"
pane_has 'needs' && fail "60x15 is reported as too small" "$TMP/pane"
tm resize-window -t t -x 40 -y 8
wait_for 3 pane_has 'pfmtop needs 50x10, the terminal is 40x8' ||
	fail "at 40x8 there is no message with the size needed" "$TMP/pane"
tm resize-window -t t -x 120 -y 40
wait_for 3 pane_has 'task-clock%' 'preset default' || fail "back at 120x40 the full view did not return" "$TMP/pane"
pass "resize to 60x15, 40x8 (size message) and back"

# ---------------------------------------------------------------- quit
keys q
wait_for 5 pane_has 'rc=0' || fail "'q' did not end pfmtop with status 0" "$TMP/pane"
wait_for 3 test -s "$TMP/stty.after" || fail "the shell did not run the command after pfmtop"
cmp -s "$TMP/stty.before" "$TMP/stty.after" || fail "terminal modes differ after q"
keys clear Enter "echo done-\$((40 + 2))" Enter
wait_for 3 pane_has done-42 || fail "the shell did not answer after pfmtop quit" "$TMP/pane"
pass "q: exit 0, terminal restored, shell usable"

# ---------------------------------------------------------------- presets: reopen without fd leaks
# pfmtop's fds but for the /proc/PID/... stat files it keeps open between
# ticks (one per task it saw last: they come and go with the machine's tasks)
fds_besides_tasks() { find "/proc/$1/fd" -mindepth 1 -printf '%l\n' 2>/dev/null | grep -cvE '^/proc/[0-9]+/'; }
task_fds() { find "/proc/$1/fd" -mindepth 1 -printf '%l\n' 2>/dev/null | grep -cE '^/proc/[0-9]+/'; }
mapfile -t presets < <("$PFMTOP" --list-presets | awk 'NR > 1 { sub(/:.*/, "", $1); print $1 }')
d=-1
for i in "${!presets[@]}"; do [ "${presets[$i]}" = default ] && d=$i; done
[ "$d" -ge 0 ] && [ "$((d + 1))" -lt "${#presets[@]}" ] || skip "no preset after 'default' to switch to"
next=${presets[$((d + 1))]}
keys clear Enter "'$PFMTOP' --cpu-min -1 --view cpus; echo rc=\$?" Enter
wait_for 6 pane_has 'preset default' 'task-clock%' || fail "pfmtop --cpu-min -1 did not start" "$TMP/pane"
pid=$(pfmtop_pid) || fail "cannot find the pfmtop process"
sleep 1.2
before=$(fds_besides_tasks "$pid")
keys p
wait_for 2 pane_has 'Preset (Enter, Esc)' "$next" || fail "'p' did not open the preset chooser" "$TMP/pane"
keys Down Enter
wait_for 5 pane_has "preset $next" || fail "choosing $next did not reopen with it" "$TMP/pane"
during=$(fds_besides_tasks "$pid")
keys p
wait_for 2 pane_has 'Preset (Enter, Esc)' || fail "'p' did not open the chooser again" "$TMP/pane"
keys Up Enter
wait_for 5 pane_has 'preset default' 'task-clock%' || fail "choosing default again failed" "$TMP/pane"
fds_back() { after=$(fds_besides_tasks "$pid") && [ "$after" -eq "$before" ]; }
wait_for 5 fds_back ||
	fail "open fds (/proc stat files aside) went from $before to $after after default -> $next -> default ($during with $next)"
ntasks=$(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)
stat_fds=$(task_fds "$pid")
[ "$stat_fds" -le $((ntasks + 20)) ] ||
	fail "pfmtop keeps $stat_fds /proc stat files open after two preset changes, for $ntasks processes"
keys q
wait_for 5 pane_has 'rc=0' || fail "'q' after the preset changes did not exit 0" "$TMP/pane"
pass "p reopens with $next and back: $before fds before, $after after (and $stat_fds /proc stat files)"

# ---------------------------------------------------------------- presets: each with its own sort
# memory sorts by page-faults, scheduler by context-switches: switching must
# take the new preset's sort, not keep a column it lacks.
keys clear Enter "'$PFMTOP' --cpu-min -1 --preset memory; echo rc=\$?" Enter
wait_for 6 pane_has 'preset memory' || fail "pfmtop --preset memory did not start" "$TMP/pane"
sleep 1.2 # the first interval: the chooser starts on the running preset
keys p
wait_for 2 pane_has 'Preset (Enter, Esc)' scheduler || fail "'p' did not open the preset chooser" "$TMP/pane"
keys Down Enter
wait_for 5 pane_has 'preset scheduler' || fail "memory -> scheduler did not reopen with scheduler" "$TMP/pane"
pane_has 'kept' && fail "memory -> scheduler was refused" "$TMP/pane"
keys q
wait_for 5 pane_has 'rc=0' || fail "'q' after memory -> scheduler did not exit 0" "$TMP/pane"
pass "p: memory (sort page-faults) -> scheduler (sort context-switches)"

# ---------------------------------------------------------------- presets: a file broken after the start
# The chooser reads the preset files again; a file broken since the start
# is reported and the running preset stays.
cfg=$TMP/xdg
mkdir -p "$cfg/pfmtop/presets.d"
printf '[preset mine]\nevents = task-clock, page-faults\n' >"$cfg/pfmtop/presets.d/mine.ini"
keys clear Enter "XDG_CONFIG_HOME='$cfg' '$PFMTOP' --cpu-min -1 --view cpus; echo rc=\$?" Enter
wait_for 6 pane_has 'preset default' 'task-clock%' || fail "pfmtop with a user preset did not start" "$TMP/pane"
printf '[preset mine]\nevents = task-clock,\n' >"$cfg/pfmtop/presets.d/mine.ini"
keys p
wait_for 2 pane_has 'Preset (Enter, Esc)' 'mine' || fail "'p' did not list the user preset" "$TMP/pane"
keys End Enter
wait_for 3 pane_has 'mine.ini:2' || fail "a preset file broken after the start was not reported" "$TMP/pane"
pane_has 'preset default' 'task-clock%' || fail "the running preset did not stay" "$TMP/pane"
keys q
wait_for 5 pane_has 'rc=0' || fail "'q' after the broken preset did not exit 0" "$TMP/pane"
pass "p with a preset file broken since the start: file:line shown, the running preset stays"

# ---------------------------------------------------------------- terminal types
for term in xterm-256color screen-256color linux vt100; do
	infocmp "$term" >/dev/null 2>&1 || { info "no terminfo for $term: not tried"; continue; }
	keys clear Enter "TERM=$term '$PFMTOP' --view tasks; echo rc-$term=\$?" Enter
	wait_for 6 pane_has 'preset default' 'COMMAND' || fail "TERM=$term: no view" "$TMP/pane"
	keys q
	wait_for 5 pane_has "rc-$term=0" || fail "TERM=$term: q did not exit 0" "$TMP/pane"
done
pass "TERM=xterm-256color, screen-256color, linux, vt100 start and quit"

# a terminal that cannot move the cursor: one line that says what to do, no frames
keys clear Enter "TERM=dumb '$PFMTOP'; echo rc-dumb=\$?" Enter
wait_for 5 pane_has 'rc-dumb=2' || fail "TERM=dumb: pfmtop did not exit 2 (a usage error, as EXIT STATUS says)" "$TMP/pane"
pane_has "terminal type 'dumb' cannot move the cursor" || fail "TERM=dumb: no message saying why" "$TMP/pane"
pane_lacks 'preset default' || fail "TERM=dumb: a frame was printed" "$TMP/pane"
pass "TERM=dumb: one line and exit 2, no frame"
