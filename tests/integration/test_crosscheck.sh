#!/bin/bash
# Counts against ground truth (what the workload must cost at least) and
# against perf stat on the same workload. The figures are printed side by
# side and kept in $PFMTOP_HELPERS/integration-crosscheck.txt.
. "$(dirname "$0")/lib.sh"

need_cmd perf

touch_pages=$(helper touch_pages)
spin=$(helper spin)
pingpong=$(helper pingpong)
out=$TMP/out err=$TMP/err
report=$TMP/report
printf '%-18s %-22s %12s %12s %8s  %s\n' EVENT WORKLOAD pfmtop "perf stat" diff% "floor" >"$report"

# pfmtop_final EVENTS CMD...: run pfmtop on CMD and leave the final JSON line's
# figures to the caller (the snapshots are in $out).
pfmtop_final() {
	local events=$1
	shift
	run "$out" "$err" "$PFMTOP" -b --format json -e "$events" -- "$@"
	expect_rc 0 "pfmtop -b --format json -e $events -- $*" "$out" "$err"
	json_check "$out" 'final is not None and lines[-1] is final' \
		"no final snapshot (a JSON line with \"final\":true) at the end"
}

# figure EVENT: the final total of EVENT, which must be a counted number.
figure() {
	json_check "$out" "state(final['total'], '$1') in ('ok', 'multiplexed') and type(ctr(final['total'], '$1')) in (int, float)" \
		"final total of $1 is not a counted number"
	json "$out" "ctr(final['total'], '$1')"
}

# compare EVENT WORKLOAD PFMTOP PERF PCT FLOOR: record, then assert both.
compare() {
	local ev=$1 wl=$2 mine=$3 theirs=$4 pct=$5 floor=$6 diff
	diff=$(py "'%+.1f' % ((float(a[0]) - float(a[1])) / float(a[1]) * 100)" "$mine" "$theirs")
	printf '%-18s %-22s %12s %12s %8s  %s\n' "$ev" "$wl" "$mine" "$theirs" "$diff" ">= $floor" >>"$report"
	cat "$report" >"$PFMTOP_HELPERS/integration-crosscheck.txt" 2>/dev/null || true
	check "$mine >= $floor" "$ev of '$wl': pfmtop counted $mine, the workload costs at least $floor" \
		"$report" "$out"
	within "$mine" "$theirs" "$pct" ||
		fail "$ev of '$wl': pfmtop $mine vs perf stat $theirs differ by $diff%, more than $pct%" \
			"$report" "$out"
}

# --- page faults: touch_pages N faults at least N times ---
pfmtop_final page-faults,task-clock "$touch_pages" 20000
mine=$(figure page-faults)
theirs=$(perf_stat page-faults "$touch_pages" 20000)
compare page-faults "touch_pages 20000" "$mine" "$theirs" 5 20000

# --- task-clock: spin burns 0.5 s of CPU ---
pfmtop_final task-clock "$spin" 0.5
mine=$(figure task-clock)
json_check "$out" 'next(e for e in final["events"] if e["name"] == "task-clock")["unit"] == "ms"' \
	"task-clock should be reported in ms"
theirs=$(perf_stat task-clock "$spin" 0.5)
compare task-clock "spin 0.5 (ms)" "$mine" "$theirs" 15 495

# --- context switches: pingpong N switches at least 2N times ---
pfmtop_final context-switches "$pingpong" 2000
mine=$(figure context-switches)
theirs=$(perf_stat context-switches "$pingpong" 2000)
compare context-switches "pingpong 2000" "$mine" "$theirs" 20 4000

cat "$report"
pass "pfmtop agrees with the workloads and with perf stat"
