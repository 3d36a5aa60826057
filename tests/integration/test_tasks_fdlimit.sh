#!/bin/bash
# System-wide task table short of file descriptors: with RLIMIT_NOFILE 64
# (a budget of a few tasks' counters) and 30 busy processes, pfmtop keeps
# running, counts what fits, marks the rest "not counted: fd limit" and says
# why in a header note. (Per-task counters: --task-counters perf; BPF task
# counts need no fds per task, see test_tasks_bpf.sh.)
. "$(dirname "$0")/lib.sh"

need_root
need_cmd prlimit

spin=$(helper spin)
out=$TMP/out err=$TMP/err
NSPIN=30

spins=()
for _ in $(seq "$NSPIN"); do
	"$spin" 60 &
	spins+=($!)
	disown $!
	cleanup_add "kill -KILL $!"
done
sp="{$(IFS=,; echo "${spins[*]}")}"
# Busy before pfmtop starts: each has run a clock tick.
all_ran() {
	local p
	for p in "${spins[@]}"; do
		[ "$(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)" -ge 1 ] || return 1
	done
}
wait_for 20 all_ran || fail "the $NSPIN spin processes did not all run within 20 s"

note_re='^[0-9]+ busy tasks not counted: out of file descriptors \(limit 64\)'

# Both runs first, then the checks once the spin processes are gone (with 30
# of them on the CPUs every python3 of the checks would crawl).
# --- JSON ---
run "$out" "$err" timeout 20 prlimit --nofile=64:64 \
	"$PFMTOP" -b --format json -N 0 -d 0.5 -n 4 -e task-clock,page-faults --no-hotspots --task-counters perf
[ "$RC" -ne 124 ] || fail "pfmtop -d 0.5 -n 4 under RLIMIT_NOFILE 64 still ran after 20 s" "$out" "$err"
expect_rc 0 "prlimit --nofile=64:64 pfmtop -b --format json -N 0 -d 0.5 -n 4 with $NSPIN busy processes" "$out" "$err"

# --- text ---
run "$TMP/text" "$TMP/text.err" timeout 20 prlimit --nofile=64:64 \
	"$PFMTOP" -b -N 0 -d 0.5 -n 2 -e task-clock,page-faults --no-hotspots --task-counters perf
[ "$RC" -ne 124 ] || fail "pfmtop -d 0.5 -n 2 under RLIMIT_NOFILE 64 still ran after 20 s" "$TMP/text" "$TMP/text.err"
trc=$RC
for p in "${spins[@]}"; do kill -KILL "$p"; done

json_check "$out" "len(lines) == 4" "-n 4 should give 4 snapshots"
for i in 0 1 2 3; do
	info "snapshot $((i + 1)): notes $(json "$out" "lines[$i]['notes']"); spin rows: $(json "$out" "sum(1 for t in lines[$i]['tasks'] if t['pid'] in $sp and t['counted'])") counted, $(json "$out" "sum(1 for t in lines[$i]['tasks'] if t['pid'] in $sp and t['note'] == 'not counted: fd limit')") 'not counted: fd limit'"
done
json_check "$out" "all(any(__import__('re').match(r'$note_re', n) for n in x['notes']) for x in lines)" \
	"a snapshot lacks the note 'N busy tasks not counted: out of file descriptors (limit 64)...'"
json_check "$out" "sum(1 for t in lines[-1]['tasks'] if t['pid'] in $sp and t['note'] == 'not counted: fd limit' and not t['counted']) >= 1" \
	"in the last snapshot no busy spin process is marked 'not counted: fd limit' (64 fds cannot hold $NSPIN tasks' counters)"
json_check "$out" "all(c['value'] is None for t in lines[-1]['tasks'] if t['note'] == 'not counted: fd limit' for c in t['counters'].values())" \
	"a row marked 'not counted: fd limit' has counter values"
# What fits in the budget is counted. Which tasks those are depends on the
# machine: new processes get counters at once and the busiest take the rest,
# so on a busy machine other work may hold the whole budget (the spins are
# then marked, as checked above).
json_check "$out" "all(sum(1 for t in x['tasks'] if t['counted'] and not t['exited']) >= 1 for x in lines[1:])" \
	"a snapshot of 2-4 counts no task at all: what fits in the budget should be"
json_check "$out" "all(type(c['value']) in (int, float) and c['state'] in ('ok', 'multiplexed') for x in lines for t in x['tasks'] if t['counted'] and not t['exited'] for c in t['counters'].values())" \
	"a counted row has a counter without a number"
json_check "$out" "all(0 < ctr(t, 'task-clock') <= x['interval_s'] * 1000 * 1.05 + 5 for x in lines for t in x['tasks'] if t['pid'] in $sp and t['counted'])" \
	"a counted spin process shows no task-clock, or more than the interval"
json_check "$out" "all(state(c, 'task-clock') == 'ok' and type(ctr(c, 'task-clock')) in (int, float) for x in lines for c in x['cpus'])" \
	"the per-CPU rows lost their counters under the fd limit"
pass "JSON: up to $(json "$out" "max(sum(1 for t in x['tasks'] if t['pid'] in $sp and t['counted']) for x in lines)") of $NSPIN spin processes counted, the rest marked, note given"

# --- text: the note in the header ---
RC=$trc
expect_rc 0 "prlimit --nofile=64:64 pfmtop -b -N 0 -d 0.5 -n 2 with $NSPIN busy processes" "$TMP/text" "$TMP/text.err"
grep -qE "^note: ${note_re#^}" "$TMP/text" ||
	fail "the text header has no 'note: N busy tasks not counted: out of file descriptors (limit 64)...' line" "$TMP/text"
# STATE holds 10 columns: a longer state is a mark ([N]) in the row, told
# under the table (each snapshot numbers its own)
python3 - "$TMP/text" <<'PY' ||
import re, sys
found = False
for snap in re.split(r"^pfmtop ", open(sys.argv[1]).read(), flags=re.M):
    notes = dict(re.findall(r"^  \[(\d+)\] (.*)$", snap, re.M))
    for mark in re.findall(r"^ *\d+ .* \[(\d+)\] .* spin$", snap, re.M):
        found |= notes.get(mark) == "not counted: fd limit"
sys.exit(0 if found else 1)
PY
	fail "no text row of a spin process says 'not counted: fd limit'" "$TMP/text"
pass "text: header note and 'not counted: fd limit' rows"
