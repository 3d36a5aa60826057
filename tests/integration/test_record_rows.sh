#!/bin/bash
# A recording and the view's history hold the whole machine: every task
# row (not only the -N printed), the hotspot rows up to their bound with an
# "other" row that makes them add up; -N and --hot cut only what is
# printed. A replay shows every process, sortable and searchable, and its
# last frame of a command's run says it holds the totals.
. "$(dirname "$0")/lib.sh"

need_root # system-wide target (the default)

SLEEPERS=30
# sleepers under a name of their own, to find them in every frame
cp "$(command -v sleep)" "$TMP/pfrsleep"
pids=()
for _ in $(seq $SLEEPERS); do
	"$TMP/pfrsleep" 600 &
	pids+=($!)
done
cleanup_add "kill ${pids[*]}"
want=$(IFS=,; echo "${pids[*]}")

# --- -b -N 3 --record: 3 rows printed, every row recorded ---
run "$TMP/out" "$TMP/err" "$PFMTOP" -b -n 3 -d 0.3 -N 3 --format json -o "$TMP/live.json" \
	--record "$TMP/r.pfr"
expect_rc 0 "pfmtop -b -n 3 -N 3 --format json -o FILE --record FILE.pfr" "$TMP/out" "$TMP/err"
json_check "$TMP/live.json" "len(lines) == 3 and all(len(x['tasks']) == 3 < x['tasks_total'] for x in lines)" \
	"-N 3: the live JSON does not print 3 task rows of more"
run "$TMP/conv.json" "$TMP/err" "$PFMTOP" --convert "$TMP/r.pfr" --format json
expect_rc 0 "--convert FILE.pfr --format json" "$TMP/conv.json" "$TMP/err"
json_check "$TMP/conv.json" "len(lines) == 3 and all(len(x['tasks']) == x['tasks_total'] for x in lines)" \
	"--convert of a recording made with -N 3: not every task row (tasks_total) is in it"
json_check "$TMP/conv.json" "all({$want} <= {t['pid'] for t in x['tasks'] if t['comm'] == 'pfrsleep' and t['user'] == 'root'} for x in lines)" \
	"--convert: the $SLEEPERS sleepers (comm pfrsleep, user root) are not in every frame"
# the rows live and recorded agree: the first 3 are the ones printed
python3 - "$TMP/live.json" "$TMP/conv.json" <<'EOF' || fail "the live run's 3 rows are not the recording's first 3" "$TMP/live.json"
import json, sys
live = [json.loads(l) for l in open(sys.argv[1])]
rec = [json.loads(l) for l in open(sys.argv[2])]
for a, b in zip(live, rec):
    assert [t["pid"] for t in a["tasks"]] == [t["pid"] for t in b["tasks"][:3]], (a["seq"], b["seq"])
EOF
# hotspots: up to the bound (100), "other" making the samples add up
json_check "$TMP/conv.json" "all(len(x['hotspots']['rows']) <= 100 and (x['hotspots'].get('total_samples', 0) == 0 or sum(r['samples'] for r in x['hotspots']['rows']) + x['hotspots']['other']['samples'] == x['hotspots']['total_samples']) for x in lines)" \
	"--convert: the hotspot rows and 'other' do not add up to the samples"
json_check "$TMP/conv.json" "all(len(x['hotspots']['rows']) == min(100, x['hotspots']['rows_total']) for x in lines)" \
	"--convert: a recording keeps fewer hotspot rows than min(100, rows ranked)"
pass "-b -N 3 --record: 3 rows printed; the recording holds all $(json "$TMP/conv.json" "last['tasks_total']") tasks (the $SLEEPERS sleepers in each frame) and $(json "$TMP/conv.json" "last['hotspots']['rows_total']") hotspot rows up to 100 with 'other'"

# --- --convert -N / --hot cut what is printed, "other" takes the rest ---
run "$TMP/cut.json" "$TMP/err" "$PFMTOP" --convert "$TMP/r.pfr" --format json -N 5 --hot 2
expect_rc 0 "--convert -N 5 --hot 2" "$TMP/cut.json" "$TMP/err"
json_check "$TMP/cut.json" "all(len(x['tasks']) == 5 and len(x['hotspots']['rows']) == min(2, x['hotspots']['rows_total']) for x in lines)" \
	"--convert -N 5 --hot 2: not 5 task rows and 2 hotspot rows"
json_check "$TMP/cut.json" "all(x['hotspots'].get('total_samples', 0) == 0 or (sum(r['samples'] for r in x['hotspots']['rows']) + x['hotspots']['other']['samples'] == x['hotspots']['total_samples'] and x['hotspots']['other']['rows'] == x['hotspots']['rows_total'] - len(x['hotspots']['rows'])) for x in lines)" \
	"--convert --hot 2: 'other' does not hold the rows cut"
pass "--convert -N 5 --hot 2: 5 task rows, 2 hotspot rows, 'other' holds the rest"

# --- the view over the recording: every process, sortable, searchable ---
tmux_setup
keys() { tm send-keys -t t "$@"; }
# a task row of a sleeper on the screen: PID, user root, ..., pfrsleep last
sleeper_row() { pane >"$TMP/pane" && grep -Eq '^ +[0-9]+ +root .* pfrsleep( 600)? *$' "$TMP/pane"; }
tm new-session -d -s t -x 120 -y 30 "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"
total=$(json "$TMP/conv.json" "lines[0]['tasks_total']")
keys "$PFMTOP --replay $TMP/r.pfr; echo status=\$?" Enter
wait_for 5 pane_has " 1/3 paused" || fail "--replay: no '1/3 paused'" "$TMP/pane"
keys 3
wait_for 3 pane_has "$total processes" || fail "--replay, Tasks view: not '$total processes' (the frame's tasks_total)" "$TMP/pane"
keys /
keys -l pfrsleep
keys Enter
wait_for 3 sleeper_row || fail "--replay: searching pfrsleep finds no sleeper row" "$TMP/pane"
pane_has "no row matches" && fail "--replay: the search says no row matches" "$TMP/pane"
# sorted by PID (< from CPU%), both ways: the frame's first and last PID on top
for _ in 1 2 3 4 5 6; do
	pane_has "sort PID" && break
	keys '<'
	sleep 0.2
done
pane_has "sort PID" || fail "--replay: < does not reach the sort by PID" "$TMP/pane"
lo=$(json "$TMP/conv.json" "min(t['pid'] for t in lines[0]['tasks'])")
hi=$(json "$TMP/conv.json" "max(t['pid'] for t in lines[0]['tasks'])")
first_pid() { pane >"$TMP/pane" && awk '/^ +PID USER/ { getline; print $1; exit }' "$TMP/pane"; }
keys Home
sleep 0.3
a=$(first_pid)
keys r
wait_for 3 pane_has "sort PID (rev)" || fail "--replay: r does not reverse the sort" "$TMP/pane"
keys Home
sleep 0.3
b=$(first_pid)
[ "$a,$b" = "$lo,$hi" ] || [ "$a,$b" = "$hi,$lo" ] ||
	fail "--replay, sort by PID then r: first rows $a and $b, not the frame's lowest and highest PID ($lo, $hi)" "$TMP/pane"
# the filter (F4) over the frame: a screenful of sleeper rows
keys F4
keys -l pfrsleep
keys Enter
wait_for 3 bash -c "[ \$(tmux -S '$TMUX_SOCK' capture-pane -p -t t | grep -c pfrsleep) -ge 15 ]" ||
	fail "--replay: the filter pfrsleep shows fewer than 15 sleeper rows" "$TMP/pane"
keys q
wait_for 5 pane_has "status=0" || fail "--replay: q did not end it with status 0" "$TMP/pane"
pass "--replay of the -N 3 recording: the Tasks view has all $total processes, a sleeper found by /, sorted by PID both ways, a screenful by the filter"

# --- the live view's history: a frame back has every process ---
keys clear Enter "$PFMTOP -d 0.3 -N 3; echo status=\$?" Enter
wait_for 10 pane_has "CPU%" || fail "the live view did not start" "$TMP/pane"
keys 3
wait_for 3 pane_has "processes" || fail "the live Tasks view is not drawn" "$TMP/pane"
sleep 1
keys Left
wait_for 3 pane_has "history " "1 back" || fail "Left: no 'history ... 1 back'" "$TMP/pane"
n=$(grep -o '[0-9]* processes' "$TMP/pane" | head -1 | cut -d' ' -f1)
check "${n:-0} >= $SLEEPERS" "the view's history frame says ${n:-no} processes: fewer than the $SLEEPERS sleepers" "$TMP/pane"
keys /
keys -l pfrsleep
keys Enter
wait_for 3 sleeper_row || fail "the history frame: searching pfrsleep finds no sleeper row" "$TMP/pane"
pane_has "no row matches" && fail "the history frame: the search says no row matches" "$TMP/pane"
keys q
wait_for 5 pane_has "status=0" || fail "q: the live view did not end with status 0" "$TMP/pane"
pass "the live view's history (-N 3): a frame back has $n processes, a sleeper found by /"

# --- a command's run replayed: its last frame says it holds the totals ---
run "$TMP/cmd.txt" "$TMP/err" "$PFMTOP" -b -d 0.2 -e page-faults --record "$TMP/cmd.pfr" -- "$(helper faulter)" 0.5
expect_rc 0 "pfmtop -b --record -- faulter" "$TMP/cmd.txt" "$TMP/err"
frames=$("$PFMTOP" --convert "$TMP/cmd.pfr" --format json | wc -l)
keys clear Enter "$PFMTOP --replay $TMP/cmd.pfr; echo status=\$?" Enter
wait_for 5 pane_has " 1/$frames paused" || fail "--replay of a command's run: no '1/$frames paused'" "$TMP/pane"
pane_has "totals" && fail "--replay: the first frame (an interval) says totals" "$TMP/pane"
keys ']' ']' ']'
wait_for 3 pane_has " $frames/$frames totals paused" || fail "--replay: the last frame of a command's run does not say 'totals'" "$TMP/pane"
pane_has "holds the run's totals" || fail "--replay: no status line says the last frame holds the run's totals" "$TMP/pane"
keys q
wait_for 5 pane_has "status=0" || fail "--replay of a command's run: q did not end it with status 0" "$TMP/pane"
pass "--replay of a command's run: the last frame ($frames/$frames) says it holds the run's totals"
