#!/bin/bash
# Lost samples, provoked honestly: page faults sampled every PERIOD-th one
# into a one-page ring, from a workload that faults all the time pinned to
# CPU 0, and pfmtop held back with SIGSTOP for 1 s while the workload keeps
# running. The kernel must drop samples and pfmtop must say how many:
# lost_records > 0, lost_samples about a second's worth, and samples +
# lost_samples = the faults counted / PERIOD: a ground truth that holds on a
# busy machine too (a timer's samples would not: on a loaded VM a timer fires
# late and its ticks merge, and no count tells how many it should have made).
# A control run (default ring, no SIGSTOP) loses none. Last, the same
# hold-up with the workload moved to CPU 1 while pfmtop is stopped: the
# samples dropped in CPU 0's full ring must still be counted (the kernel
# writes no PERF_RECORD_LOST into a ring that gets no further samples; the
# count is there to read with PERF_FORMAT_LOST, which is what perf record
# shows).
. "$(dirname "$0")/lib.sh"

need_cmd taskset pgrep

faulter=$(helper faulter)
period=4 secs=2.5
sampling=(-e page-faults --sample-event page-faults -c "$period")
err=$TMP/err
report=$TMP/report
printf '%-34s %8s %12s %12s %7s %9s %8s\n' RUN samples lost_records lost_samples corrupt "read+lost" expected >"$report"

# digest OUT: one line per snapshot (shown on failure instead of the JSON).
digest() {
	json "$1" "'\\n'.join('seq %d%s %.2fs interval %s | total %s | rings %s' % (x['seq'], ' final' if x['final'] else '',
		x['interval_s'], {k: x['sampling']['interval'][k] for k in ('samples', 'lost_records', 'lost_samples')},
		{k: x['sampling']['total'][k] for k in ('samples', 'lost_records', 'lost_samples')},
		[(r['cpu'], r['total']['samples'], r['total']['lost_samples']) for r in x['sampling']['rings']]) for x in lines)" \
		>"$1.digest" 2>&1 || true
}

# held NAME MIGRATE PFMTOP-ARGS...: run pfmtop -- taskset -c 0 faulter, SIGSTOP it
# once it has printed a snapshot, hold it 1 s (moving faulter to CPU 1 at the end
# if MIGRATE is yes), SIGCONT. JSON in $TMP/NAME.
held() {
	local name=$1 migrate=$2 out=$TMP/$1 mon child
	shift 2
	"$PFMTOP" "$@" -- taskset -c 0 "$faulter" "$secs" >"$out" 2>"$err" &
	mon=$!
	cleanup_add "kill -CONT $mon; kill -KILL $mon"
	for _ in $(seq 100); do
		[ -s "$out" ] && break
		sleep 0.05
	done
	[ -s "$out" ] || fail "$name: pfmtop printed no snapshot within 5 s" "$out" "$err"
	kill -STOP "$mon"
	child=$(pgrep -P "$mon" | head -1)
	sleep 1
	if [ "$migrate" = yes ]; then
		taskset -pc 1 "$child" >/dev/null || fail "$name: taskset -pc 1 $child failed"
		sleep 0.1
	fi
	kill -CONT "$mon"
	set +e
	wait "$mon"
	RC=$?
	set -e
	expect_rc 0 "$name: pfmtop $* -- taskset -c 0 faulter $secs" "$out" "$err"
}

# figures NAME: final totals of $TMP/NAME into S_* variables, and a report line.
figures() {
	local out=$TMP/$1
	json_check "$out" 'final is not None and final["sampling"]["enabled"] is True' "$1: no final snapshot with sampling enabled"
	digest "$out"
	read -r S_samples S_records S_lost S_corrupt <<<"$(json "$out" "' '.join(str(final['sampling']['total'][k])
		for k in ('samples', 'lost_records', 'lost_samples', 'corrupt'))")"
	S_faults=$(json "$out" 'ctr(final["total"], "page-faults")')
	S_expect=$(py "int(float(a[0]) / float(a[1]))" "$S_faults" "$period")
	S_second=$(py "int(float(a[0]) / float(a[1]))" "$S_expect" "$secs") # samples a second
	printf '%-34s %8s %12s %12s %7s %9s %8s\n' "$1" "$S_samples" "$S_records" "$S_lost" "$S_corrupt" \
		"$((S_samples + S_lost))" "$S_expect" >>"$report"
	cat "$report" >"$PFMTOP_HELPERS/integration-lost.txt" 2>/dev/null || true
	# The rings add up to the total; intervals never exceed it (samples
	# drained before the first interval starts are only in the total).
	json_check "$out" "all(sum(r['total'][k] for r in final['sampling']['rings']) == final['sampling']['total'][k]
		for k in ('samples', 'lost_records', 'lost_samples'))" "$1: the rings' totals do not add up to sampling.total"
	json_check "$out" "all(sum(x['sampling']['interval'][k] for x in lines) <= final['sampling']['total'][k]
		for k in ('samples', 'lost_records', 'lost_samples'))" "$1: the intervals add up to more than sampling.total"
	check "$S_corrupt == 0" "$1: $S_corrupt corrupt records" "$report" "$out.digest"
}

# accounted NAME: read + lost is every PERIOD-th fault counted (a period
# left unfinished per CPU and thread, at most, is in neither).
accounted() {
	within "$((S_samples + S_lost))" "$S_expect" 1 ||
		fail "$1: samples + lost_samples = $S_samples + $S_lost = $((S_samples + S_lost)), expected $S_expect ($S_faults page faults counted, sampled every $period, within 1%): samples vanished without being counted as lost" \
			"$report" "$TMP/$1.digest"
}

# --- held back: 1-page ring, SIGSTOP 1 s, workload stays on CPU 0 ---
held stopped no -b --format json -d 0.5 --mmap-pages 1 "${sampling[@]}"
figures stopped
check "$S_records > 0" "stopped: sampling.total.lost_records is $S_records, expected > 0" "$report" "$TMP/stopped.digest"
check "$S_lost >= $S_second // 4" "stopped: sampling.total.lost_samples is $S_lost, expected about a second's worth ($S_second), at least $((S_second / 4))" \
	"$report" "$TMP/stopped.digest"
check "$S_lost >= $S_records" "stopped: $S_lost lost samples in $S_records LOST records (each loses at least one)" "$report"
json_check "$TMP/stopped" "any(x['sampling']['interval']['lost_records'] > 0 and x['sampling']['interval']['lost_samples'] >= $S_second // 4 for x in lines[1:])" \
	"stopped: no snapshot after the stop has sampling.interval.lost_records > 0 and lost_samples >= $((S_second / 4))"
accounted stopped
pass "held back: $S_records LOST record(s), $S_lost samples lost, $S_samples read ($((S_samples + S_lost)) of $S_expect expected)"

# --- control: default ring, never stopped ---
run "$TMP/control" "$err" "$PFMTOP" -b --format json -d 0.5 "${sampling[@]}" -- taskset -c 0 "$faulter" "$secs"
expect_rc 0 "control: pfmtop -b --format json -d 0.5 ${sampling[*]} -- taskset -c 0 faulter $secs" "$TMP/control" "$err"
figures control
check "$S_records == 0 and $S_lost == 0" "control: lost_records $S_records, lost_samples $S_lost, expected 0 and 0" "$report" "$TMP/control.digest"
json_check "$TMP/control" "all(x['sampling']['interval']['lost_records'] == 0 for x in lines)" "control: some interval has lost_records > 0"
accounted control
pass "control: 0 lost, $S_samples samples of $S_expect expected"

# --- held back, and the workload leaves the full ring's CPU ---
kver=$(uname -r)
if [ "$(nproc)" -lt 2 ]; then
	cat "$report"
	info "migration case skipped: needs 2 CPUs"
	exit 0
elif [ "$(py "tuple(int(x) for x in a[0].split('-')[0].split('.')[:2]) < (6, 0)" "$kver")" = 1 ]; then
	cat "$report"
	info "migration case skipped: kernel $kver has no PERF_FORMAT_LOST (6.0+) to read such losses with"
	exit 0
fi
held migrated yes -b --format json -d 0.5 --mmap-pages 1 "${sampling[@]}"
figures migrated
cat "$report"
# The ring left behind never gets a LOST record (the kernel writes one only
# at that ring's next sample), so the losses must come from the read count.
check "$S_lost >= $S_second / 4" "migrated: sampling.total.lost_samples is $S_lost, expected >= $((S_second / 4))" "$report" "$TMP/migrated.digest"
accounted migrated
pass "held back and moved to CPU 1: $S_lost samples lost, $S_samples read ($((S_samples + S_lost)) of $S_expect expected)"
