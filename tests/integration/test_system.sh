#!/bin/bash
# System-wide on chosen CPUs: -C 0 shows CPU 0 (and the "all" row) only, and
# counts a workload pinned to CPU 0.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || [ "$(paranoid)" -le 0 ] ||
	skip "system-wide counting needs root or perf_event_paranoid <= 0 (it is $(paranoid))"
need_cmd taskset

touch_pages=$(helper touch_pages)
out=$TMP/out err=$TMP/err

# --- text: only CPU 0 and "all" ---
run "$out" "$err" "$PFMTOP" -b -C 0 -e page-faults -d 0.2 -n 1
expect_rc 0 "pfmtop -b -C 0 -e page-faults -n 1" "$out" "$err"
rows=$(awk '/^CPU /{t=1; next} t && NF==0 {exit} t {print $1}' "$out" | tr '\n' ' ')
[ "$rows" = "0 all " ] || fail "CPU table rows are '$rows', expected '0 all '" "$out"
grep -qE '^host .* mode system-wide \(CPUs 0\)' "$out" || fail "header does not say 'mode system-wide (CPUs 0)'" "$out"
pass "text: rows 0 and all only"

# --- counts: a workload pinned to CPU 0, started once pfmtop runs ---
monitor_start "$out" "$err" -b -C 0 -e page-faults -d 0.3 --format json
taskset -c 0 "$touch_pages" 30000 || fail "taskset -c 0 touch_pages 30000 failed"
monitor_stop "$out" "$err"
json_check "$out" "len(lines) >= 2" "pfmtop -b -C 0 -d 0.3 should give 2 JSON lines or more"
json_check "$out" "all([c['cpu'] for c in x['cpus']] == [0] for x in lines)" \
	"with -C 0 the cpus array should hold CPU 0 only"
# task rows are not limited to CPU 0 (a task's counters follow it): said once
json_check "$out" "any(n.startswith('-C: the CPU rows count CPUs 0 only; a task row counts the task on every CPU') for n in lines[0]['notes'])" \
	"with -C 0 no note says that task rows count on every CPU"
sum=$(json "$out" "sum(ctr(c, 'page-faults') for x in lines for c in x['cpus'] if c['cpu'] == 0)")
tot=$(json "$out" "sum(ctr(x['total'], 'page-faults') for x in lines)")
info "page-faults on CPU 0 over $(nlines "$out") snapshots: $sum (total row: $tot)"
check "$sum >= 30000" "CPU 0 counted $sum page-faults while touch_pages 30000 ran pinned there" "$out"
check "$tot == $sum" "the total row ($tot) should equal the CPU 0 row ($sum) with -C 0" "$out"
pass "CPU 0 counted $sum >= 30000 page-faults"
