#!/bin/bash
# Children mode against perf report --children: with -g, a row for every
# function on any sampled chain, those never sampled themselves too. In
# qsort_split main calls caller_a and caller_b (60/40), which sort through
# libc's qsort with a comparison function; only libc's merge sort, the
# comparison and memcpy are ever the sampled function. pfmtop -g --hot-total
# (DWARF chains) must list main, caller_a and caller_b with self 0 and their
# children share within 2 points of perf report --children's on the same
# program, main near 100 % and at the top; the recording converts to text
# with the same rows.
. "$(dirname "$0")/lib.sh"
need_root # kernel frames, and perf's own run
need_cmd perf

prog=$(helper qsort_split)
secs=4
freq=2999
out=$TMP/out err=$TMP/err

run "$out" "$err" timeout 120 "$PFMTOP" -b -g --hot-total --hot 100 --format json -F $freq -e task-clock -- "$prog" "$secs"
expect_rc 0 "pfmtop -b -g --hot-total --format json -- qsort_split $secs" "$out" "$err"
json_check "$out" "final is not None and final['hotspots'].get('call_chains') is True" \
	"no final snapshot with call chains" "$err"
chains=$(json "$out" "final['hotspots']['chain_samples']")
# About 12,000 samples in 4 s at 2999 Hz: two runs' 60/40 splits then
# differ by a standard deviation of about 0.6 points; with far fewer, 2
# points would be noise, not a measurement.
[ "$chains" -ge 6000 ] || skip "only $chains samples with a chain in ${secs}s at $freq Hz: the machine is too busy to compare shares"
pid=$(json "$out" "next(t['pid'] for t in final['tasks'] if t['comm'] == 'qsort_split')")

# A function's row of the command: exactly one.
row() { json "$out" "[r for r in final['hotspots']['rows'] if r['symbol'] == '$1' and r['pid'] == $pid][0]['$2']"; }
for f in main caller_a caller_b; do
	json_check "$out" "len([r for r in final['hotspots']['rows'] if r['symbol'] == '$f' and r['pid'] == $pid]) == 1" \
		"children mode: no row (or more than one) for $f, a function on the chains"
	json_check "$out" "[r['share'] for r in final['hotspots']['rows'] if r['symbol'] == '$f' and r['pid'] == $pid][0] <= 1" \
		"$f is hardly ever the sampled function, yet its row has a share of its own"
done
json_check "$out" "(lambda c: all(c[i] >= c[i + 1] for i in range(len(c) - 1)))([r['children'] for r in final['hotspots']['rows']])" \
	"the rows are not in the order of their children shares"
json_check "$out" "final['hotspots']['rows_total'] >= len(final['hotspots']['rows'])" "rows_total counts fewer rows than shown"
json_check "$out" "any(r['symbol'] == 'main' for r in final['hotspots']['rows'][:8])" \
	"main (on every chain) is not among the first rows"
json_check "$out" "any(len(p['frames']) > 1 for p in [r for r in final['hotspots']['rows'] if r['symbol'] == 'main'][0]['callees'])" \
	"main's row has no call paths down to where samples landed"
pct() { py "round(float(a[0]), 2)" "$1"; }
m_main=$(pct "$(row main children)") m_a=$(pct "$(row caller_a children)") m_b=$(pct "$(row caller_b children)")
s_main=$(pct "$(row main self)")
info "pfmtop: $chains samples with a chain; children main $m_main%, caller_a $m_a%, caller_b $m_b%; self main $s_main%"
check "$m_main >= 95" "main's children share is $m_main%: main is on nearly every chain of a single-threaded program" "$out"
check "$s_main <= 1" "main's self share is $s_main%: main itself hardly ever runs" "$out"

# perf on the same program, chains unwound the same way.
perf record -q --call-graph dwarf -F $freq -e cpu-clock -o "$TMP/perf.data" -- "$prog" "$secs" >"$TMP/perf.rec" 2>&1 ||
	fail "perf record --call-graph dwarf failed" "$TMP/perf.rec"
perf report -i "$TMP/perf.data" --stdio --children -g none --sort sym --comm qsort_split 2>"$TMP/report.err" \
	>"$TMP/report" || fail "perf report --children failed" "$TMP/report.err"
# "    99.97%     0.03%  [.] main": the children share of a symbol
theirs() { awk -v s="$1" '$3 == "[.]" && $4 == s && $1 ~ /%$/ { sub(/%/, "", $1); print $1; exit }' "$TMP/report"; }
p_main=$(theirs main) p_a=$(theirs caller_a) p_b=$(theirs caller_b)
[ -n "$p_main" ] && [ -n "$p_a" ] && [ -n "$p_b" ] ||
	skip "perf report --children here does not name main, caller_a and caller_b (perf without DWARF unwinding?)"
perf_samples=$(awk '/^# Samples:/ { print $3; exit }' "$TMP/report")
info "perf report --children ($perf_samples samples): main $p_main%, caller_a $p_a%, caller_b $p_b%"
for f in main:$m_main:$p_main caller_a:$m_a:$p_a caller_b:$m_b:$p_b; do
	IFS=: read -r name mine perfs <<<"$f"
	check "abs($mine - $perfs) <= 2" "$name: children pfmtop $mine%, perf report --children $perfs%" "$out" "$TMP/report"
done
pass "children mode: main $m_main% (perf $p_main%), caller_a $m_a% (perf $p_a%), caller_b $m_b% (perf $p_b%), self of main $s_main%"

# The recording read back: the text has the rows, the total named.
run "$out.txt" "$err" "$PFMTOP" --convert "$out"
expect_rc 0 "pfmtop --convert (children mode's rows)" "$out.txt" "$err"
grep -q "children and self of $chains samples with a chain" "$out.txt" ||
	fail "the text header does not say what CHILDREN and SELF are shares of" "$out.txt"
# SHARE SAMPLES CHILDREN SELF PID COMMAND SYMBOL MODULE
awk '/^HOTSPOTS: .*since the start/ { h = 1 } h && $NF == "qsort_split" && $(NF - 1) == "main" && $3 + 0 >= 95 { found = 1 } END { exit !found }' "$out.txt" ||
	fail "the text of the recording has no row for main with its children share" "$out.txt"
pass "the recording converts to text with main's row and the total its shares are of"
