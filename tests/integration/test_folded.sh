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
