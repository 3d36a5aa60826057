#!/bin/bash
# -g and --format folded: collapsed stacks a flame graph reads. A leaf
# called from two callers 60/40 (a program built with frame pointers) shows
# that split under the callers, as perf report -g shows it for the same
# program; every line is "comm;frame;...;frame count" (the grammar
# flamegraph.pl, inferno and speedscope read); system-wide with -n the
# stacks come at the end too; the options say what they need.
. "$(dirname "$0")/lib.sh"
need_root # kernel frames and system-wide
need_cmd gcc perf

out=$TMP/out err=$TMP/err
cat >"$TMP/split.c" <<'C'
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) void leaf(void)
{
	for (int i = 0; i < 20000; i++)
		sink += i;
}
__attribute__((noinline)) void caller_a(void) { leaf(); sink++; }
__attribute__((noinline)) void caller_b(void) { leaf(); sink++; }
int main(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long n = 0;; n++) {
		if (n % 5 < 3)
			caller_a();
		else
			caller_b();
		clock_gettime(CLOCK_MONOTONIC, &b);
		if ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) > 2000000000L)
			break;
	}
	return 0;
}
C
gcc -O0 -fno-omit-frame-pointer -o "$TMP/split" "$TMP/split.c"

run "$out" "$err" timeout 60 "$PFMTOP" -b -g --format folded -F 2000 -e task-clock -- "$TMP/split"
expect_rc 0 "pfmtop -b -g --format folded -- split" "$out" "$err"
[ -s "$out" ] || fail "no folded stacks" "$err"
# The grammar: frames separated by ';', none empty, then one space and a count.
bad=$(grep -cvE '^[^;]+(;[^;]+)* [0-9]+$' "$out" || true)
[ "$bad" -eq 0 ] || fail "$bad lines are not 'frame;frame;... count'" "$out"
[ "$(cut -d' ' -f1 "$out" | sort | uniq -d | wc -l)" -eq 0 ] || fail "a stack is on two lines" "$out"
a=$(awk '$1 ~ /^split;.*;main;caller_a;leaf(;|$)/ { n += $NF } END { print n + 0 }' "$out")
b=$(awk '$1 ~ /^split;.*;main;caller_b;leaf(;|$)/ { n += $NF } END { print n + 0 }' "$out")
check "$a + $b >= 500" "only $a + $b samples of leaf under its callers" "$out"
mine=$(py "100.0 * float(a[0]) / (float(a[0]) + float(a[1]))" "$a" "$b")
info "leaf under caller_a: $a, under caller_b: $b ($mine% under caller_a; the program calls it 60/40)"

# perf on the same program: the share of leaf's samples under caller_a.
perf record -q -g -F 2000 -e task-clock -o "$TMP/perf.data" -- "$TMP/split" >/dev/null 2>&1 ||
	fail "perf record -g failed"
perf script -i "$TMP/perf.data" -F comm,ip,sym 2>/dev/null >"$TMP/script" || fail "perf script failed"
theirs=$(awk '
	/^[^ \t]/ { if (n) flush(); n = 0; next }
	NF >= 2 { f[n++] = $2 }
	/^$/ { if (n) flush(); n = 0 }
	function flush() { if (f[0] == "leaf") { if (f[1] == "caller_a") A++; else if (f[1] == "caller_b") B++ } }
	END { if (n) flush(); if (A + B) printf "%.1f", 100 * A / (A + B) }' "$TMP/script")
[ -n "$theirs" ] || fail "perf script has no leaf under caller_a or caller_b" "$TMP/script"
check "abs($mine - 60) <= 5" "leaf under caller_a: $mine%, the program makes it 60%" "$out"
check "abs($mine - $theirs) <= 5" "leaf under caller_a: pfmtop $mine%, perf $theirs%" "$out"
pass "caller split of a leaf: $mine% under caller_a (perf: $theirs%, the program: 60%); every line 'frames count'"

# The same split in the call tree of JSON snapshots (-g): the leaf's row
# has children and self shares and its callers, as perf report --children
# shows them for the leaf of the same recording's program.
run "$out" "$err" timeout 60 "$PFMTOP" -b -g --format json -F 2000 -e task-clock -- "$TMP/split"
expect_rc 0 "pfmtop -b -g --format json -- split" "$out" "$err"
leaf="next(r for r in final['hotspots']['rows'] if r['symbol'] == 'leaf')"
json_check "$out" "final['hotspots']['call_chains'] and final['hotspots']['chain_samples'] >= 500" \
	"the final snapshot has no call chains"
json_check "$out" "(lambda r: r['children'] >= r['self'] > 50 and r['callers'][0]['frames'][0]['symbol'] == 'leaf')($leaf)" \
	"the leaf's row has no children/self shares or callers"
via() { json "$out" "round(sum(p['share'] for p in $leaf['callers'] if len(p['frames']) > 1 and p['frames'][1]['symbol'] == '$1'), 2)"; }
ja=$(via caller_a) jb=$(via caller_b)
jmine=$(py "100.0 * float(a[0]) / (float(a[0]) + float(a[1]))" "$ja" "$jb")
jchildren=$(json "$out" "round($leaf['children'], 2)")
perf report -i "$TMP/perf.data" --children --stdio --comm split -S leaf -g caller,0.5,callee,function,percent \
	2>/dev/null >"$TMP/report" || fail "perf report --children failed"
read -r pa pb pchildren < <(awk '
	/^ +[0-9.]+% +[0-9.]+% +split/ { entry = $1 }
	/---leaf/ { inleaf = 1; children = entry; next }
	inleaf && /--[0-9.]+%--caller_a/ { match($0, /[0-9.]+%/); a = substr($0, RSTART, RLENGTH - 1) }
	inleaf && /--[0-9.]+%--caller_b/ { match($0, /[0-9.]+%/); b = substr($0, RSTART, RLENGTH - 1); inleaf = 0 }
	END { sub(/%/, "", children); print a + 0, b + 0, children + 0 }' "$TMP/report")
[ "$(py "float(a[0]) + float(a[1]) > 0" "$pa" "$pb")" = 1 ] ||
	fail "perf report --children shows no callers of leaf" "$TMP/report"
ptheirs=$(py "100.0 * float(a[0]) / (float(a[0]) + float(a[1]))" "$pa" "$pb")
info "JSON call tree of leaf: children $jchildren%, from caller_a $ja%, from caller_b $jb% ($jmine% via caller_a); perf report --children: children $pchildren%, $pa% / $pb% ($ptheirs%)"
check "abs($jmine - 60) <= 5" "leaf's callers in JSON: $jmine% via caller_a, the program makes it 60%" "$out"
check "abs($jmine - $ptheirs) <= 5" "leaf's callers: pfmtop $jmine% via caller_a, perf report --children $ptheirs%" "$out" "$TMP/report"
check "abs($jchildren - $pchildren) <= 5" "leaf's children: pfmtop $jchildren%, perf report --children $pchildren%" "$out" "$TMP/report"
pass "JSON call tree: leaf's callers $jmine% via caller_a (perf report --children: $ptheirs%), children $jchildren% (perf: $pchildren%)"

# Kernel frames, when there are any, end in _[k]; user frames never do.
if grep -q '_\[k\]' "$out"; then
	awk -F';' '{ k = 0; for (i = 2; i <= NF; i++) { if ($i ~ /_\[k\]( [0-9]+)?$/) k = 1; else if (k) exit 1 } }' "$out" ||
		fail "a user frame above a kernel frame" "$out"
fi

# System-wide with -n: the stacks of the whole run come after the last interval.
run "$out" "$err" timeout 30 "$PFMTOP" -b -n 2 -d 0.3 -g --format folded -e task-clock
expect_rc 0 "pfmtop -b -n 2 -g --format folded" "$out" "$err"
[ -s "$out" ] || fail "system-wide -n 2: no folded stacks" "$err"
pass "system-wide, -n 2: $(wc -l <"$out") stacks at the end"

# What the options need.
run "$out" "$err" "$PFMTOP" -b --format folded -e task-clock
expect_rc 2 "--format folded without -g" "$err"
grep -q 'add -g' "$err" || fail "no reason given" "$err"
run "$out" "$err" "$PFMTOP" -b -g --no-hotspots -e task-clock
expect_rc 2 "-g with --no-hotspots" "$err"
run "$out" "$err" "$PFMTOP" -b --call-graph lbr -e task-clock
expect_rc 2 "--call-graph lbr" "$err"
grep -q 'use fp or dwarf' "$err" || fail "no way out given" "$err"
pass "--format folded needs -g, -g needs sampling, --call-graph takes fp or dwarf"
