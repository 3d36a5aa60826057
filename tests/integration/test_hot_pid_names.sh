#!/bin/bash
# A process keeps its name whatever pids the others have: a short process
# B whose pid equals a running process A's modulo 4096 exits, and its rows
# are under its own name. Before, names were kept in a table indexed by pid
# modulo 4096: A's next sample took the slot back, and B's rows, retired
# after its exit, read "?".
source "$(dirname "$0")/lib.sh"

need_root # system-wide sampling
spin=$(helper spin)
cp "$spin" "$TMP/longA"
cp "$spin" "$TMP/shortB"
"$TMP/longA" 30 &
a=$!
cleanup_add "kill $a 2>/dev/null"
"$PFMTOP" -b -d 0.5 --hot-total --hot 1000 --hot-sort pid,comm,sym --format json \
	-o "$TMP/out" 2>"$TMP/err" &
mon=$!
cleanup_add "kill $mon 2>/dev/null"
wait_for 10 test -s "$TMP/out" || fail "pfmtop wrote no snapshot" "$TMP/err"
# Use up pids until the next one is A's modulo 4096 (other processes may
# take one in between: then try again).
b=
for _ in 1 2 3; do
	for ((i = 0; i < 40000; i++)); do
		n=$(sh -c 'echo $$')
		[ $(((n + 1 - a) % 4096)) -eq 0 ] && break
	done
	"$TMP/shortB" 0.8 &
	b=$!
	wait $b
	[ $(((b - a) % 4096)) -eq 0 ] && break
	b=
done
[ -n "$b" ] || skip_host "no pid equal to $a modulo 4096 came (other processes take pids here)"
sleep 1.2 # B's exit retired at a tick, A sampled since
kill -INT $mon
RC=0
wait $mon || RC=$?
expect_rc 130 "pfmtop -b, ended by SIGINT" "$TMP/err"
rows="[r for r in lines[-1]['hotspots']['rows'] if r['pid'] == $b]"
info "B ($b, A $a): $(json "$TMP/out" "sorted({r['comm'] for r in $rows})")"
[ "$(json "$TMP/out" "sum(r['samples'] for r in $rows) >= 50")" = 1 ] ||
	skip_host "B got too few samples (a busy machine?)"
json_check "$TMP/out" "all(r['comm'] == 'shortB' for r in $rows)" \
	"the rows of process $b (pid equal to $a's modulo 4096) lost its name after it exited"
json_check "$TMP/out" "any(r['comm'] == 'longA' for r in lines[-1]['hotspots']['rows'] if r['pid'] == $a)" \
	"process $a has no row under its name"
pass "a process whose pid equals another's modulo 4096 keeps its name after it exits"
