#!/bin/bash
# System-wide task table and PID reuse: a process that gets the PID of one
# that exited is a new task, counted from zero, on a row of its own.
#
# The reuse is forced in a PID namespace of our own (unshare --pid --fork
# --mount-proc), where only pfmtop and the pidreuse helper run: the helper
# runs "reuse_first 20000" (touch_pages under another name) as PID N, reaps
# it, writes N - 1 to /proc/sys/kernel/ns_last_pid and forks again, so
# "reuse_second 1000" is PID N too, with another start time. pfmtop runs in
# the namespace as well, so it sees PIDs as the helper does.
#
# Twice: the second incarnation born in the same interval as the first (the
# old task is still remembered), then in the next interval (the old one has
# just been shown as exited).
. "$(dirname "$0")/lib.sh"

need_root
need_cmd unshare

touch_pages=$(helper touch_pages)
pidreuse=$(helper pidreuse)
out=$TMP/out err=$TMP/err
ln -s "$touch_pages" "$TMP/reuse_first"
ln -s "$touch_pages" "$TMP/reuse_second"

unshare --pid --fork --mount-proc true 2>"$err" ||
	skip_host "cannot make a PID namespace here: $(head -1 "$err")"

# reuse GAP: one run of pfmtop with the helper started 0.3 s after it, GAP s
# between the first child's end and the second's fork. Leaves the helper's
# "PID START1 START2" in $TMP/reuse.out and the snapshots in $out.
reuse() {
	local gap=$1 outside
	# Something forks and execs outside the namespace meanwhile (the
	# side-band records of such tasks carry PID 0 in pfmtop's namespace).
	(for _ in $(seq 12); do /bin/true; sleep 0.2; done) &
	outside=$!
	cleanup_add "kill $outside"
	set +e
	# shellcheck disable=SC2016 # the inner script expands its own arguments
	PFMTOP="$PFMTOP" timeout -s KILL 30 unshare --pid --fork --mount-proc --kill-child \
		bash -c '
			"$PFMTOP" -b --format json -N 0 -d 1 -n 3 -e task-clock,page-faults --no-hotspots \
				>"$1" 2>"$2" &
			mon=$!
			sleep 0.3
			"$3" "$4" "$5/reuse_first" 20000 "$5/reuse_second" 1000 >"$5/reuse.out" 2>"$5/reuse.err"
			echo $? >"$5/reuse.rc"
			wait $mon' \
		reuse "$out" "$err" "$pidreuse" "$gap" "$TMP"
	RC=$?
	wait "$outside"
	set -e
	[ "$RC" -ne 137 ] || fail "pfmtop -d 1 -n 3 with pidreuse $gap ... ran over 30 s" "$out" "$err"
	[ "$(cat "$TMP/reuse.rc")" != 77 ] || skip_host "$(cat "$TMP/reuse.err")"
	[ "$(cat "$TMP/reuse.rc")" = 0 ] || fail "pidreuse $gap failed (exit $(cat "$TMP/reuse.rc"))" "$TMP/reuse.err"
	expect_rc 0 "pfmtop -b --format json -N 0 -d 1 -n 3 in a PID namespace" "$out" "$err"
	json_check "$out" "len(lines) == 3" "-n 3 should give 3 snapshots"
	read -r pid start1 start2 <"$TMP/reuse.out"
	[ "$start1" != "$start2" ] ||
		fail "PID $pid: both children have start time $start1, so it is no reuse" "$TMP/reuse.out"
	info "gap $gap s: PID $pid was reuse_first (start $start1), then reuse_second (start $start2)"
}

# faults COMM: page-faults summed over the rows of PID $pid named COMM.
faults() { json "$out" "sum(ctr(t, 'page-faults') or 0 for x in lines for t in x['tasks'] if t['pid'] == $pid and t['comm'] == '$1')"; }

# Every problem is noted and the test fails at the end, so one run reports
# both cases.
problems=()
problem() {
	problems+=("$1")
	echo "  PROBLEM: $1"
	cp "$out" "$TMP/out.gap$gap"
}
# ok EXPR: the Python expression EXPR is true of the snapshots in $out.
ok() { [ "$(json "$out" "$1")" = 1 ]; }

for gap in 0 1.0; do
	case $gap in
	0) when="in the same interval as the first" ;;
	*) when="in the interval after the first was shown exited" ;;
	esac
	reuse "$gap"
	info "rows of PID $pid (snapshot, comm, page-faults, note): $(json "$out" "[(x['seq'], t['comm'], ctr(t, 'page-faults'), t['note']) for x in lines for t in x['tasks'] if t['pid'] == $pid]")"
	second=$(faults reuse_second)
	first=$(faults reuse_first)
	if ! ok "any(t['pid'] == $pid and t['comm'] == 'reuse_second' for x in lines for t in x['tasks'])"; then
		problem "PID $pid reused $when: no row of reuse_second (the second incarnation, 1000 page faults)"
	elif ! ok "all(t['counted'] for x in lines for t in x['tasks'] if t['pid'] == $pid and t['comm'] == 'reuse_second')"; then
		problem "PID $pid reused $when: the second incarnation's row is not counted"
	elif [ "$(py "$second >= 1000 and $second <= 1600")" != 1 ]; then
		problem "PID $pid reused $when: the row of the second incarnation (reuse_second = touch_pages 1000) shows $second page-faults, expected 1000-1600 (it starts from zero)"
	fi
	[ "$(py "$first >= 20000 and $first <= 20600")" = 1 ] ||
		problem "PID $pid reused $when: the rows of the first incarnation (reuse_first = touch_pages 20000) show $first page-faults, expected 20000-20600"
	# Side-band records of tasks outside the namespace (the /bin/true loop)
	# carry PID 0 here; they are none of pfmtop's business (and
	# perf_event_open(pid 0) would count pfmtop itself).
	ok "not any(t['pid'] <= 0 or t['tid'] <= 0 for x in lines for t in x['tasks'])" ||
		problem "a row with PID 0 in a PID namespace: $(json "$out" "[(x['seq'], t['pid'], t['tid'], t['comm'], t['note'], ctr(t, 'task-clock'), ctr(t, 'page-faults')) for x in lines for t in x['tasks'] if t['pid'] <= 0 or t['tid'] <= 0]") (snapshot, pid, tid, comm, note, task-clock, page-faults)"
	[ ${#problems[@]} -gt 0 ] || pass "PID $pid reused $when: first $first page-faults, second $second, on rows of their own"
done
[ ${#problems[@]} -eq 0 ] || fail "$(printf '%s; ' "${problems[@]}")" "$TMP"/out.gap*
