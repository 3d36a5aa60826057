#!/bin/bash
# Every count in exactly one interval: the interval snapshots partition the
# run (the last one, cut short, is printed with "partial": true before the
# totals), their counts add up to the totals for every event in CPU rows,
# task rows and totals, and the totals equal perf stat's on the same
# workload. Ticks keep their grid: after a stall the next interval ends at a
# grid point, never a catch-up sliver. The first system-wide snapshot has
# task figures, and task rows plus (unattributed) add up to the total.
. "$(dirname "$0")/lib.sh"
need_cmd perf

bursts=$(helper bursts)
spin=$(helper spin)
out=$TMP/out err=$TMP/err
# 1000 fresh pages every 37 ms, 30 times: faults straddle every 0.2 s edge
wl=("$bursts" 1000 37 30)

# sums FILE ROWS: for each interval snapshot, the rows ROWS (a Python
# expression over x) keyed by name, summed; checked against the final one.
partition() {
	json_check "$1" "final is not None and lines[-1] is final" "the run does not end with the totals"
	json_check "$1" "sum(1 for x in lines if x['partial']) == 1 and lines[-2]['partial'] and not final['partial']" \
		"exactly one snapshot, the last interval, should be partial"
	json_check "$1" "abs(sum(x['interval_s'] for x in lines[:-1]) - final['interval_s']) < 0.002" \
		"the intervals do not add up to the length of the run"
	# counts exactly; task-clock (ms, a double) to rounding
	json_check "$1" "all(abs(sum(ctr(x['total'], e) for x in lines[:-1]) - ctr(final['total'], e)) <= 1e-9 * abs(ctr(final['total'], e)) for e in final['total']['counters'])" \
		"the interval totals do not add up to the final totals: $(json "$1" "[(e, sum(ctr(x['total'], e) for x in lines[:-1]), ctr(final['total'], e)) for e in final['total']['counters']]")"
}

# --- a command: totals equal perf stat's, and the intervals add up to them ---
run "$out" "$err" timeout 60 "$PFMTOP" -b -d 0.2 --format json -e page-faults,context-switches -- "${wl[@]}"
expect_rc 0 "pfmtop -b -d 0.2 -- bursts" "$out" "$err"
partition "$out"
json_check "$out" "all(sum(ctr(x['tasks'][0], e) for x in lines[:-1]) == ctr(final['tasks'][0], e) for e in final['total']['counters'])" \
	"the command's task row does not add up over the intervals"
json_check "$out" "sum(x['sampling']['interval']['samples'] for x in lines[:-1]) == final['sampling']['total']['samples']" \
	"the samples of the intervals do not add up to the total"
pf=$(perf_stat page-faults "${wl[@]}")
got=$(json "$out" "ctr(final['total'], 'page-faults')")
within "$got" "$pf" 0.1 || fail "pfmtop's total $got page faults, perf stat's $pf: more than 0.1% apart" "$out"
check "$got >= 30000" "bursts takes at least 30000 page faults; pfmtop counted $got" "$out"
pass "command: $(json "$out" "len(lines) - 1") intervals add up to the totals, $got faults (perf stat: $pf)"

# --- system-wide, stopped by SIGINT: CPU rows, task rows and totals ---
"$spin" 30 &
sp=$!
disown "$sp"
cleanup_add "kill -KILL $sp"
ran() { [ "$(awk '{ print $14 + $15 }' "/proc/$sp/stat")" -ge 2 ]; }
wait_for 10 ran || fail "spin did not run"
monitor_start "$out" "$err" -b -d 0.3 -N 0 --format json -e page-faults,context-switches,task-clock
json_check "$out" "any(t['pid'] == $sp and t['counted'] and ctr(t, 'task-clock') > 0 for t in lines[0]['tasks'])" \
	"the first system-wide snapshot has no task-clock for the busy spin process"
"${wl[@]}"
kill -INT "$MON"
RC=0
wait "$MON" || RC=$?
expect_rc 130 "pfmtop -b (system-wide) stopped by SIGINT" "$out" "$err"
partition "$out"
json_check "$out" "all(sum(ctr(c, e) for x in lines[:-1] for c in x['cpus'] if c['cpu'] == f['cpu']) == ctr(f, e) for f in final['cpus'] for e in ('page-faults', 'context-switches'))" \
	"a CPU row does not add up over the intervals"
# task rows: each task's final row against its interval rows (tasks alive at
# the end, counted from the first snapshot)
json_check "$out" "all(sum(ctr(t2, 'page-faults') for x in lines[:-1] for t2 in x['tasks'] if t2['pid'] == t['pid'] and t2['counted']) == ctr(t, 'page-faults') for t in final['tasks'] if t['counted'] and t['pid'] == $sp)" \
	"the spin process's row does not add up over the intervals"
json_check "$out" "all(abs(sum(ctr(t, e) for t in x['tasks'] if t['counted'] and ctr(t, e) is not None) + ctr(x['unattributed'], e) - ctr(x['total'], e)) <= 1e-6 * max(1, abs(ctr(x['total'], e))) for x in lines for e in ('page-faults', 'context-switches', 'task-clock'))" \
	"task rows and (unattributed) do not add up to the total"
# the burst process started mid-run: its row is there, counted from the
# side-band FORK record (within a millisecond or so of its start; a busy
# machine may make that longer, hence the margin)
json_check "$out" "sum(ctr(t, 'page-faults') for x in lines[:-1] for t in x['tasks'] if t['comm'] == 'bursts' and t['counted']) >= 0.8 * 30000" \
	"the bursts process, started mid-run, lost more than 20% of its faults"
json_check "$out" "all(t.get('since_ms', 0) >= 0 for x in lines for t in x['tasks'])" "since_ms is negative"
pass "system-wide: CPU rows, task rows and totals add up; the first snapshot has task figures"

# --- the grid: a stall of 1.1 s right after a snapshot (d 0.4) ---
monitor_start "$out" "$err" -b -d 0.4 -N 3 --format json -e page-faults --no-hotspots
n=$(nlines "$out")
wait_for 10 monitor_has "$out" $((n + 1))
kill -STOP "$MON"
sleep 1.1
kill -CONT "$MON"
monitor_stop "$out" "$err"
monitor_has "$out" 4 || fail "pfmtop printed too few snapshots" "$out"
# at least half an interval (less 10 ms for a late read on a busy machine)
json_check "$out" "all(x['interval_s'] >= 0.19 for x in lines)" \
	"an interval after the stall is a sliver of less than half the 0.4 s interval: $(json "$out" "[x['interval_s'] for x in lines]")"
json_check "$out" "any('skipped' in n for x in lines for n in x['notes'])" \
	"no snapshot says that refresh ticks were skipped"
# and the grid is kept: every interval but the stalled one (read when pfmtop
# woke, up to half an interval late) and the partial last ends within 50 ms
# of a multiple of 0.4 s from the start (mono_s), so the one after the stall
# ends on the grid, not 0.4 s after a late read
json_check "$out" "all(abs(x['mono_s'] / 0.4 - round(x['mono_s'] / 0.4)) * 0.4 <= 0.05 for x in lines if not x['final'] and not x['partial'] and not any('skipped' in n for n in x['notes']))" \
	"an interval off the 0.4 s grid: ends $(json "$out" "[x['mono_s'] for x in lines]")"
pass "grid kept across a 1.1 s stall: intervals $(json "$out" "[round(x['interval_s'], 3) for x in lines]")"
