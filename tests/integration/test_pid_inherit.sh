#!/bin/bash
# pfmtop -p PID counts the processes PID starts after pfmtop does, as
# perf stat -p does (inherit); --no-inherit leaves them out. Ground truth: the
# watched shell runs touch_pages N twice, so its children take at least 2N
# page faults.
. "$(dirname "$0")/lib.sh"
need_cmd perf

touch_pages=$(helper touch_pages)
n=20000
out=$TMP/out err=$TMP/err

# workload GATE: a shell that waits for GATE, then starts the two children.
workload() {
	sh -c "while [ ! -e '$1' ]; do sleep 0.02; done; '$touch_pages' $n; '$touch_pages' $n; sleep 0.2" &
	WL=$!
	cleanup_add "kill -KILL $WL"
}

# faults ARGS...: pfmtop's total page faults over the workload, run with
# ARGS, into GOT.
faults() {
	local gate=$TMP/gate.$#
	workload "$gate"
	"$PFMTOP" -b -d 0.3 --format json -e page-faults "$@" -p "$WL" >"$out" 2>"$err" &
	local mon=$!
	cleanup_add "kill -KILL $mon"
	# pfmtop has its counters open once it printed its first snapshot
	wait_for 20 test -s "$out" || fail "pfmtop -p printed nothing in 20 s" "$out" "$err"
	touch "$gate"
	RC=0
	wait "$mon" || RC=$?
	expect_rc 0 "pfmtop -b -p PID $*" "$out" "$err"
	GOT=$(json "$out" "sum(ctr(x['total'], 'page-faults') for x in lines if not x['final'])")
	# the final snapshot holds the same, as totals since the start
	json_check "$out" "final is not None and ctr(final['total'], 'page-faults') == $GOT" \
		"-p's final totals are not the sum of its intervals ($GOT)"
}

# perf stat -p on the same workload
gate=$TMP/gate.perf
workload "$gate"
timeout -s INT 30 perf stat -x, -e page-faults -p "$WL" -o "$TMP/perf" &
perf=$!
sleep 0.5
touch "$gate"
wait "$perf" || true
pf=$(awk -F, '$3 == "page-faults" { print $1 }' "$TMP/perf")
check "${pf:-0} >= 2 * $n" "perf stat -p counted ${pf:-nothing} faults, expected at least $((2 * n))" "$TMP/perf"
info "perf stat -p: $pf page faults"

faults
got=$GOT
info "pfmtop -p: $got page faults"
check "$got >= 2 * $n" "pfmtop -p counted $got page faults of a process whose children take at least $((2 * n)): its children were left out" "$out"
within "$got" "$pf" 5 || fail "pfmtop -p counted $got page faults, perf stat -p $pf (more than 5% apart)" "$out"
pass "-p counts the children started later: $got faults (perf stat -p: $pf)"

faults --no-inherit
got=$GOT
info "pfmtop -p --no-inherit: $got page faults"
check "$got < $n" "pfmtop -p --no-inherit counted $got page faults: the children's (at least $n each) were counted" "$out"
pass "--no-inherit leaves them out: $got faults"
