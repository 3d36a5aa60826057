#!/bin/bash
# --call-graph dwarf: user chains unwound from each sample's registers and
# stack copy with the binaries' CFI. A comparison function reached through
# libc's qsort from two callers 60/40, in a program built like Debian's
# libraries (-O2 -fomit-frame-pointer): the folded stacks show the split
# under the callers as perf record --call-graph dwarf does for the same
# program, and the chains reach through libc (qsort below the callers,
# libc's start code above main). Then what the option refuses.
. "$(dirname "$0")/lib.sh"
need_root # kernel frames, and perf's own run
need_cmd perf

prog=$(helper qsort_split)
out=$TMP/out err=$TMP/err

# Samples (weights of folded lines) of comm whose chain names caller.
under() { awk -v c=";$2;" -v comm="$1;" 'index($1, comm) == 1 && index($1, c) { n += $NF } END { print n + 0 }' "$3"; }

run "$out" "$err" timeout 120 "$PFMTOP" -b --call-graph dwarf --format folded -F 1999 -e task-clock -- "$prog" 3
expect_rc 0 "pfmtop -b --call-graph dwarf --format folded -- qsort_split" "$out" "$err"
[ -s "$out" ] || fail "no folded stacks" "$err"
bad=$(grep -cvE '^[^;]+(;[^;]+)* [0-9]+$' "$out" || true)
[ "$bad" -eq 0 ] || fail "$bad lines are not 'frame;frame;... count'" "$out"
a=$(under qsort_split caller_a "$out")
b=$(under qsort_split caller_b "$out")
total=$(awk 'index($1, "qsort_split;") == 1 { n += $NF } END { print n + 0 }' "$out")
check "$a + $b >= 500" "only $a + $b samples under caller_a or caller_b (of $total)" "$out"
mine=$(py "round(100.0 * float(a[0]) / (float(a[0]) + float(a[1])), 1)" "$a" "$b")
info "pfmtop: $a samples under caller_a, $b under caller_b ($mine% under caller_a) of $total"

# Through libc: qsort's frames between the callers and the comparison, and
# frames above main (libc's start code) on most chains.
through=$(awk 'index($1, "qsort_split;") == 1 && $1 ~ /;main;caller_[ab];[^;]*qsort[^;]*;.*cmp_ints/ { n += $NF } END { print n + 0 }' "$out")
above=$(awk 'index($1, "qsort_split;") == 1 && $1 ~ /^qsort_split;[^;]+;.*main;caller_[ab];/ { n += $NF } END { print n + 0 }' "$out")
check "$through >= 0.2 * ($a + $b)" "only $through samples reach cmp_ints through qsort (of $a + $b)" "$out"
check "$above >= 0.9 * ($a + $b)" "only $above samples have libc's frames above main (of $a + $b)" "$out"
start=$(grep -c '__libc_start_call_main;main;caller_' "$out" || true)
info "through qsort to cmp_ints: $through; with frames above main: $above; lines naming __libc_start_call_main: $start"

# perf on the same program.
perf record -q --call-graph dwarf -F 1999 -e cpu-clock -o "$TMP/perf.data" -- "$prog" 3 >/dev/null 2>&1 ||
	fail "perf record --call-graph dwarf failed"
perf report -i "$TMP/perf.data" --stdio --no-children -g folded,0,caller,count --sort comm 2>/dev/null \
	>"$TMP/report" || fail "perf report failed"
theirs=$(awk '
	/^ *[0-9.]+%/ { next }
	$0 ~ /^[0-9]+ / { n = $1; if ($0 ~ /;caller_a;/) A += n; else if ($0 ~ /;caller_b;/) B += n }
	END { if (A + B) printf "%.1f", 100 * A / (A + B) }' "$TMP/report")
[ -n "$theirs" ] || fail "perf report has no chain under caller_a or caller_b" "$TMP/report"
check "abs($mine - 60) <= 5" "under caller_a: $mine%, the program makes it 60%" "$out"
check "abs($mine - $theirs) <= 5" "under caller_a: pfmtop $mine%, perf $theirs%" "$out" "$TMP/report"
pass "dwarf chains: $mine% under caller_a (perf --call-graph dwarf: $theirs%, the program: 60%), through qsort and libc's start code"

# Frame pointers on the same program, for the record: chains stop in libc.
run "$out.fp" "$err" timeout 120 "$PFMTOP" -b --call-graph fp --format folded -F 999 -e task-clock -- "$prog" 1
expect_rc 0 "pfmtop -b --call-graph fp --format folded -- qsort_split" "$out.fp" "$err"
info "frame pointers: $(under qsort_split caller_a "$out.fp") + $(under qsort_split caller_b "$out.fp") samples under the callers, of $(awk 'index($1, "qsort_split;") == 1 { n += $NF } END { print n + 0 }' "$out.fp")"

# -g is DWARF here: the same whole chains, without a word of perf's spelling.
run "$out.g" "$err" timeout 120 "$PFMTOP" -b -g --format folded -F 999 -e task-clock -- "$prog" 1
expect_rc 0 "pfmtop -b -g --format folded -- qsort_split" "$out.g" "$err"
ga=$(under qsort_split caller_a "$out.g")
gb=$(under qsort_split caller_b "$out.g")
check "$ga + $gb >= 300 and abs(100.0 * $ga / ($ga + $gb) - 60) <= 5" \
	"-g: $ga + $gb samples under the callers, not about 60% under caller_a" "$out.g"
pass "-g unwinds with DWARF: $ga + $gb samples under the callers, $(py "round(100.0 * float(a[0]) / (float(a[0]) + float(a[1])), 1)" "$ga" "$gb")% under caller_a"

# .debug_frame from a separate debug file: a program built without
# .eh_frame for its own code, its debug information moved to .debug/ beside
# it and named by .gnu_debuglink (as debug packages do), is unwound with it.
if command -v gcc >/dev/null && command -v objcopy >/dev/null && command -v strip >/dev/null; then
	mkdir -p "$TMP/df/.debug"
	cat >"$TMP/df/df.c" <<'C'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf(void) { for (int i = 0; i < 20000; i++) sink += i * 3; }
__attribute__((noinline)) static void caller_a(void) { leaf(); sink++; }
__attribute__((noinline)) static void caller_b(void) { leaf(); sink += 2; }
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long n = 0;; n++) {
		if (n % 5 < 3) caller_a(); else caller_b();
		clock_gettime(CLOCK_MONOTONIC, &b);
		if ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 > secs) break;
	}
	return 0;
}
C
	(cd "$TMP/df" &&
		gcc -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables -g -o df df.c &&
		objcopy --only-keep-debug df .debug/df.debug && strip --strip-debug df &&
		objcopy --add-gnu-debuglink=.debug/df.debug df) || fail "could not build the .debug_frame program"
	run "$out" "$err" timeout 60 "$PFMTOP" -b --call-graph dwarf --format folded -F 999 -e task-clock -- "$TMP/df/df" 1
	expect_rc 0 "pfmtop --call-graph dwarf -- df" "$out" "$err"
	all=$(awk 'index($1, "df;") == 1 { n += $NF } END { print n + 0 }' "$out")
	deep=$(awk 'index($1, "df;") == 1 && $1 ~ /;main;caller_[ab];leaf/ { n += $NF } END { print n + 0 }' "$out")
	check "$all >= 100 and $deep >= 0.8 * $all" "only $deep of $all samples unwound through .debug_frame" "$out"
	pass ".debug_frame from a .gnu_debuglink debug file: $deep of $all samples under main;caller;leaf"
else
	info "no gcc, objcopy or strip: .debug_frame not tried"
fi

# Kernel frames come first (nearest the root is user code only below them).
if grep -q '_\[k\]' "$out"; then
	awk -F';' '{ k = 0; for (i = 2; i <= NF; i++) { if ($i ~ /_\[k\]( [0-9]+)?$/) k = 1; else if (k) exit 1 } }' "$out" ||
		fail "a user frame above a kernel frame" "$out"
fi

# What it refuses, with what to do.
for bad in dwarf,12 dwarf,0 dwarf,65536 dwarf, dwarf,8k dwarfs; do
	run "$out" "$err" "$PFMTOP" -b --call-graph "$bad" -e task-clock
	expect_rc 2 "--call-graph $bad" "$err"
	[ "$(wc -l <"$err")" -eq 1 ] || fail "--call-graph $bad: not one line" "$err"
	grep -qE 'multiple of 8|65528|fp or dwarf' "$err" || fail "--call-graph $bad: no way out given" "$err"
done
run "$out" "$err" timeout 30 "$PFMTOP" -b -n 1 -d 0.2 --call-graph dwarf,65528 -e task-clock -- "$prog" 0.3
expect_rc 0 "--call-graph dwarf,65528 (the kernel's largest)" "$err"
pass "--call-graph dwarf,SIZE: a multiple of 8 up to 65528; the largest opens"
