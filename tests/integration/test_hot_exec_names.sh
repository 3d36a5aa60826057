#!/bin/bash
# Samples taken before an exec keep the program and the name they were taken
# under (as perf report shows them, from the COMM and MMAP records in force):
# a child that spins in its parent's function for 0.6 s and then execs spin
# has a row prexec/before_exec_spin and a row spin/..., and no [unknown] row.
# Before, the pre-exec samples were named with the new program's mappings
# (its [unknown] or another function) and the new command name.
source "$(dirname "$0")/lib.sh"

need_root # system-wide sampling
need_cmd gcc
spin=$(helper spin)
cat >"$TMP/prexec.c" <<'C'
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static volatile unsigned long sink;
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
__attribute__((noinline)) void before_exec_spin(double s)
{
	double t = cpu_s();
	while (cpu_s() - t < s)
		for (int i = 0; i < 1000; i++)
			sink += i;
}
int main(int argc, char **argv)
{
	(void)argc;
	before_exec_spin(atof(argv[1]));
	execv(argv[2], argv + 2);
	return 127;
}
C
gcc -O1 -g -o "$TMP/prexec" "$TMP/prexec.c" || fail "cannot build prexec"

"$PFMTOP" -b -d 0.25 --hot-total --hot-sort pid,comm,sym --hot 200 --format json \
	-o "$TMP/out" 2>"$TMP/err" &
mon=$!
cleanup_add "kill $mon"
wait_for 10 test -s "$TMP/out" || fail "pfmtop wrote no snapshot" "$TMP/err"
"$TMP/prexec" 0.6 "$spin" 0.6 &
child=$!
wait $child
sleep 0.6
kill -INT $mon
RC=0
wait $mon || RC=$?
expect_rc 130 "pfmtop -b, ended by SIGINT" "$TMP/err"
rows="[r for r in lines[-1]['hotspots']['rows'] if r['pid'] == $child]"
info "rows of $child: $(json "$TMP/out" "[(r['comm'], r['symbol'], r['share']) for r in $rows]")"
[ "$(json "$TMP/out" "sum(r['samples'] for r in $rows) > 400")" = 1 ] ||
	skip_host "the child got too few samples (a busy machine?)"
# both halves burn 0.6 s of CPU: about as many samples each
json_check "$TMP/out" "sum(r['samples'] for r in $rows if r['comm'] == 'prexec') >= 0.5 * sum(r['samples'] for r in $rows if r['comm'] == 'spin')" \
	"the samples before the exec are not under prexec"
json_check "$TMP/out" "sum(r['samples'] for r in $rows if r['comm'] == 'prexec' and r['symbol'] == 'before_exec_spin') >= 0.2 * sum(r['samples'] for r in $rows if r['comm'] == 'prexec')" \
	"the samples before the exec are not in before_exec_spin"
json_check "$TMP/out" "sum(r['samples'] for r in $rows if r['comm'] == 'spin' and r['symbol'] == 'before_exec_spin') == 0" \
	"samples of the old program are named under the new command"
json_check "$TMP/out" "sum(r['samples'] for r in $rows if r['symbol'] == '[unknown]') <= 0.02 * sum(r['samples'] for r in $rows)" \
	"the child's samples are [unknown]"
pass "samples before an exec keep the program and command they were taken in"
