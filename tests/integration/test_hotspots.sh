#!/bin/bash
# Hotspot shares against the design and against perf report: shares burns
# CPU in hot_a, hot_b and hot_c in the ratio 6:3:1 (by iteration count). The
# final JSON line of `pfmtop -- shares` must name the three functions of the
# PIE executable exactly, and split the samples among them as perf does and
# as designed (within 5 points each). The figures are printed side by side.
. "$(dirname "$0")/lib.sh"

need_cmd perf

shares=$(helper shares)
secs=1.5
out=$TMP/out err=$TMP/err
report=$TMP/report

# The point is symbolizing a position-independent executable (load address
# chosen at run time): make sure the helper is one (ELF e_type 3, ET_DYN).
etype=$(py "int.from_bytes(open(a[0], 'rb').read(18)[16:18], 'little')" "$shares")
[ "$etype" = 3 ] || fail "$shares is not a PIE (ELF e_type $etype, expected 3 = ET_DYN)"

# --- pfmtop ---
run "$out" "$err" "$PFMTOP" -b --format json -F 2000 --hot 50 -- "$shares" "$secs"
expect_rc 0 "pfmtop -b --format json -F 2000 --hot 50 -- shares $secs" "$out" "$err"
json_check "$out" 'final is not None and lines[-1] is final' \
	"no final snapshot (a JSON line with \"final\":true) at the end"
json_check "$out" 'final["sampling"]["enabled"] is True' "sampling is not enabled in the final snapshot"
pid=$(json "$out" 'next(t["pid"] for t in final["tasks"] if t["comm"] == "shares")')
info "shares ran as pid $pid"

# The rows of the command's pid, by symbol: exactly one row per function,
# user space, comm and module "shares".
for f in hot_a hot_b hot_c; do
	json_check "$out" "len([r for r in final['hotspots']['rows'] if r['pid'] == $pid and r['symbol'] == '$f']) == 1" \
		"the final hotspots should have exactly one row with symbol '$f' for pid $pid"
	json_check "$out" "all(r['module'] == 'shares' and r['comm'] == 'shares' and r['kernel'] is False
		for r in final['hotspots']['rows'] if r['pid'] == $pid and r['symbol'] == '$f')" \
		"the '$f' row should have module \"shares\", comm \"shares\" and kernel false"
done
# No row of the command may be a raw address inside its own executable.
json_check "$out" "not [r for r in final['hotspots']['rows'] if r['pid'] == $pid and r['module'] == 'shares'
	and r['symbol'] not in ('hot_a', 'hot_b', 'hot_c', 'main', 'cpu_seconds')]" \
	"some row of shares is not symbolized as one of its functions"

# share of f among the three, in percent
mine() {
	json "$out" "(lambda s: 100.0 * s['$1'] / (s['hot_a'] + s['hot_b'] + s['hot_c']))(
		{r['symbol']: r['share'] for r in final['hotspots']['rows'] if r['pid'] == $pid})"
}
samples=$(json "$out" "sum(r['samples'] for r in final['hotspots']['rows']
	if r['pid'] == $pid and r['symbol'] in ('hot_a', 'hot_b', 'hot_c'))")
info "pfmtop: $samples samples in hot_a + hot_b + hot_c"
# 2000 Hz for 1.5 s of CPU is about 3000 samples; far fewer means the
# shares below are noise, not a measurement.
check "$samples >= 2000" "pfmtop attributed only $samples samples to the three functions (expected about 3000)" "$out"

# --- perf record / perf report on the same program ---
perf record -q -F 2000 -e cpu-clock -o "$TMP/perf.data" -- "$shares" "$secs" >"$TMP/perf.rec" 2>&1 ||
	fail "perf record -F 2000 -e cpu-clock -- shares $secs failed" "$TMP/perf.rec"
perf report -i "$TMP/perf.data" --stdio --no-children -F overhead,sym >"$TMP/perf.rep" 2>"$TMP/perf.rep.err" ||
	fail "perf report failed" "$TMP/perf.rep.err"
theirs_raw() {
	awk -v f="$1" '$2 == "[.]" && $3 == f { sub(/%$/, "", $1); print $1; exit }' "$TMP/perf.rep"
}
pa=$(theirs_raw hot_a) pb=$(theirs_raw hot_b) pc=$(theirs_raw hot_c)
[ -n "$pa" ] && [ -n "$pb" ] && [ -n "$pc" ] ||
	skip "perf report does not show hot_a/hot_b/hot_c as symbols (got '$pa' '$pb' '$pc'), cannot cross-check"
declare -A praw=([hot_a]=$pa [hot_b]=$pb [hot_c]=$pc)
theirs() {
	py "100.0 * float(a[0]) / (float(a[1]) + float(a[2]) + float(a[3]))" "${praw[$1]}" "$pa" "$pb" "$pc"
}

# --- side by side ---
printf '%-8s %10s %12s %10s\n' FUNCTION pfmtop% "perf report%" designed% >"$report"
bad=
for f in hot_a:60 hot_b:30 hot_c:10; do
	fn=${f%:*} want=${f#*:}
	m=$(mine "$fn") t=$(theirs "$fn")
	printf '%-8s %10.2f %12.2f %10d\n' "$fn" "$m" "$t" "$want" >>"$report"
	[ "$(py "abs(float(a[0]) - float(a[1])) <= 5" "$m" "$t")" = 1 ] ||
		bad="$bad $fn: pfmtop $m% vs perf report $t% (more than 5 points apart);"
	[ "$(py "abs(float(a[0]) - float(a[1])) <= 5" "$m" "$want")" = 1 ] ||
		bad="$bad $fn: pfmtop $m% vs designed $want% (more than 5 points apart);"
done
cat "$report"
cat "$report" >"$PFMTOP_HELPERS/integration-hotspots.txt" 2>/dev/null || true
[ -z "$bad" ] || fail "shares among hot_a/hot_b/hot_c:$bad" "$report" "$TMP/perf.rep" "$out"
pass "hot_a/hot_b/hot_c named exactly in module shares, shares within 5 points of perf report and of 60/30/10"

# --- process names follow renames ---
# A process running before pfmtop started is named from /proc; one that
# renames itself (prctl PR_SET_NAME, which sends a COMM record) shows the
# new name in the interval after the rename.
py_spin='import ctypes, sys, time
libc = ctypes.CDLL(None)
end = time.time() + 1.5
while time.time() < end: pass
libc.prctl(15, b"renamed-hot", 0, 0, 0)
end = time.time() + 3
while time.time() < end: pass'
python3 -c "$py_spin" &
spinner=$!
cleanup_add "kill $spinner 2>/dev/null"
# Once it has run 10 clock ticks, so the first snapshot samples it.
ran() { [ "$(awk '{ print $14 + $15 }' "/proc/$spinner/stat" 2>/dev/null || echo 0)" -ge 10 ]; }
wait_for 10 ran || fail "the python3 spinner $spinner did not run 10 ticks in 10 s"
run "$out" "$err" "$PFMTOP" -b --format json -F 1000 -d 0.5 -n 8 --hot 50
expect_rc 0 "pfmtop -b --format json -F 1000 -d 0.5 -n 8 --hot 50 (beside a renaming spinner)" "$out" "$err"
names=$(json "$out" "sorted({r['comm'] for l in lines for r in l['hotspots']['rows'] if r['pid'] == $spinner})")
info "names of pid $spinner over the run: $names"
json_check "$out" "any(r['pid'] == $spinner and r['comm'] == 'python3' for r in lines[0]['hotspots']['rows'])" \
	"the first snapshot should name the spinner python3 (from /proc)"
json_check "$out" "any(r['pid'] == $spinner and r['comm'] == 'renamed-hot' for r in lines[-1]['hotspots']['rows'])" \
	"the last snapshot should name the spinner renamed-hot (from its COMM record)"
pass "a hot process is named from /proc, then by its rename"
