#!/bin/bash
# pfmtop -p PID on a multi-threaded process: -H gives one row per thread,
# without it one row for the process with its thread count.
. "$(dirname "$0")/lib.sh"

threads=$(helper threads)
out=$TMP/out err=$TMP/err

# --- one row per thread with -H ---
"$threads" 3 60 >"$TMP/threads.out" & # killed at exit: outlives both runs on a slow machine
tpid=$!
disown "$tpid"
cleanup_add "kill -KILL $tpid"
for _ in $(seq 50); do
	grep -q ready "$TMP/threads.out" && break
	sleep 0.05
done
grep -q ready "$TMP/threads.out" || fail "the threads helper did not start"
mapfile -t tids < <(ls "/proc/$tpid/task" | sort -n)
[ "${#tids[@]}" -eq 4 ] || fail "threads 3 should have 4 threads, /proc says ${#tids[@]}"
want="[$(IFS=,; echo "${tids[*]}")]"

run "$out" "$err" timeout 10 "$PFMTOP" -b -H -d 0.4 -n 2 --format json -e task-clock -p "$tpid"
expect_rc 0 "pfmtop -b -H -n 2 -p PID (4 threads)" "$out" "$err"
kill -0 "$tpid" || fail "the threads helper died early"
json_check "$out" "len(lines) == 2" \
	"-n 2 should give 2 snapshots, got $(wc -l <"$out"), although PID $tpid was alive throughout"
json_check "$out" "sorted(t['tid'] for t in lines[-1]['tasks']) == $want and all(t['pid'] == $tpid for t in lines[-1]['tasks'])" \
	"with -H the snapshot should have one row per thread, TIDs $want"
json_check "$out" "all((ctr(t, 'task-clock') or 0) > 0 for t in lines[-1]['tasks'])" \
	"every thread burns CPU each 0.1 s, yet a thread row shows no task-clock"

run "$out" "$err" timeout 10 "$PFMTOP" -b -d 0.4 -n 2 --format json -e task-clock -p "$tpid"
expect_rc 0 "pfmtop -b -n 2 -p PID (4 threads, no -H)" "$out" "$err"
json_check "$out" "len(lines[-1]['tasks']) == 1 and lines[-1]['tasks'][0]['pid'] == $tpid and lines[-1]['tasks'][0]['threads'] == 4" \
	"without -H there should be one row for PID $tpid with threads = 4"
pass "-H: one row per thread (${#tids[@]}), one row of 4 threads without it"
