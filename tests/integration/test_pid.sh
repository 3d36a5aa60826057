#!/bin/bash
# pfmtop -p PID: a PID that does not exist is a usage error; a running process
# is followed until it exits, then pfmtop stops by itself. (-H: test_threads.sh)
. "$(dirname "$0")/lib.sh"

spin=$(helper spin)
out=$TMP/out err=$TMP/err

now() { date +%s.%N; }

# --- a process that does not exist ---
nopid=999999
while [ -e "/proc/$nopid" ]; do nopid=$((nopid + 1)); done
run "$out" "$err" timeout 10 "$PFMTOP" -b -n 1 -p "$nopid"
expect_rc 2 "pfmtop -b -p $nopid (no such process)" "$out" "$err"
[ "$(wc -l <"$err")" -eq 1 ] && grep -q "^pfmtop: .*$nopid" "$err" ||
	fail "expected one 'pfmtop: ...' line naming $nopid on stderr" "$err"
pass "-p $nopid: exit 2 with a message"

# --- follow a process to its end ---
"$spin" 1.5 &
pid=$!
disown "$pid"
cleanup_add "kill -KILL $pid"
# Note when the process is gone (exited or a zombie): pfmtop should stop soon after.
(
	while [ -e "/proc/$pid" ] && ! grep -q ') Z ' "/proc/$pid/stat" 2>/dev/null; do
		sleep 0.05
	done
	now >"$TMP/spin.end"
) &
watcher=$!
cleanup_add "kill $watcher"

run "$out" "$err" timeout 10 "$PFMTOP" -b -d 0.4 --format json -p "$pid"
end=$(now)
[ "$RC" -ne 124 ] || fail "pfmtop -b -d 0.4 -p PID still ran 10 s after start: it did not stop when the process exited" "$out" "$err"
expect_rc 0 "pfmtop -b -d 0.4 -p PID" "$out" "$err"
if kill -0 "$pid" 2>/dev/null && ! grep -q ') Z ' "/proc/$pid/stat" 2>/dev/null; then
	fail "pfmtop -b -d 0.4 -p $pid exited with 0 while process $pid (spin 1.5) was still running; it printed $(wc -l <"$out") snapshot(s)" "$out" "$err"
fi
wait "$watcher" || true
[ -s "$TMP/spin.end" ] || fail "could not tell when the spin process ended"
lag=$(py "'%.2f' % (float(a[0]) - float(a[1]))" "$end" "$(cat "$TMP/spin.end")")
info "pfmtop stopped ${lag} s after the process ended"
check "$lag <= 2.0" "pfmtop stopped $lag s after PID $pid exited (interval 0.4 s)" "$out"
json_check "$out" "len(lines) >= 2" "a 1.5 s process watched every 0.4 s should give at least 2 snapshots"
json_check "$out" "all(x['mode'] == 'tasks' for x in lines)" "mode should be 'tasks' with -p"
json_check "$out" "any(t['pid'] == $pid and t['counted'] and type(ctr(t, 'task-clock')) in (int, float) and ctr(t, 'task-clock') > 0 for x in lines for t in x['tasks'])" \
	"no snapshot shows PID $pid counted with a non-zero task-clock"
json_check "$out" "any(t['pid'] == $pid and t['exited'] for t in last['tasks'])" \
	"the last snapshot does not show PID $pid as exited"
# ... and ends with the totals since the start, as perf stat -p does: the
# final snapshot's task-clock is the sum of the intervals'
json_check "$out" "final is not None and any(t['pid'] == $pid for t in final['tasks'])" \
	"no final snapshot with PID $pid's totals after it exited"
json_check "$out" "abs(sum(ctr(t, 'task-clock') for x in lines if not x['final'] for t in x['tasks'] if t['pid'] == $pid and t['counted']) - ctr([t for t in final['tasks'] if t['pid'] == $pid][0], 'task-clock')) < 1" \
	"the final task-clock of PID $pid is not the sum of its intervals'"
pass "-p follows the process, counts it, stops $lag s after it exits, with its totals"
