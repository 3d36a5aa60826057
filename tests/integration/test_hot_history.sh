#!/bin/bash
# Since-the-start hotspots over a machine where processes come and go:
# - every sample is in a row or in "other", in every snapshot (none is lost
#   when its process exits or its key is folded for room);
# - every share is the row's weight over the total weight the JSON gives,
#   and the shown rows plus "other" add up to 100;
# - a process that exited keeps its rows under its own name and its
#   functions' names (never "?" or "[unknown]");
# - a recycled PID is another process: its samples are a row of their own.
. "$(dirname "$0")/lib.sh"
need_root # system-wide samples

shares=$(helper shares)
# A copy of its own: its module and command name are this test's alone
# (test_hotspots may be running the shares helper beside it).
churned=churn$$
cp "$shares" "$TMP/$churned"
out=$TMP/out err=$TMP/err

# Short processes, one after another, each burning 0.1 s in hot_a, hot_b
# and hot_c (6:3:1), among shell churn.
(
	end=$((SECONDS + 7))
	while [ $SECONDS -lt $end ]; do
		"$TMP/$churned" 0.1
		for _ in 1 2 3 4; do /bin/true; done
	done
) &
churn=$!
cleanup_add "kill $churn 2>/dev/null"
run "$out" "$err" timeout 60 "$PFMTOP" -b --format json --hot-total --hot 100000 \
	--hot-sort comm,dso,sym -d 0.5 -n 18
expect_rc 0 "pfmtop -b --hot-total -d 0.5 -n 18 beside process churn" "$out" "$err"
wait "$churn" || true

H="l['hotspots']"
json_check "$out" "all('total_samples' in $H and 'other' in $H for l in lines)" \
	"a snapshot does not say what its shares are of"
json_check "$out" "all(sum(r['samples'] for r in $H['rows']) + $H['other']['samples'] == l['sampling']['total']['samples'] for l in lines)" \
	"some snapshot's rows and other do not hold every sample taken since the start"
json_check "$out" "all($H['total_samples'] == l['sampling']['total']['samples'] for l in lines)" \
	"the samples behind the shares are not the run's"
json_check "$out" "max(abs(r['share'] - 100.0 * r['weight'] / $H['total_weight']) for l in lines for r in $H['rows']) <= 0.01" \
	"a share is not its row's weight over the total weight (to 0.01 points)"
json_check "$out" "all(abs(sum(r['share'] for r in $H['rows']) + $H['other']['share'] - 100) <= 0.0005 * (len($H['rows']) + 1) + 1e-9 for l in lines)" \
	"the rows and other do not add up to 100%"
# The copy runs only as the churned processes: its rows are theirs, and
# they must be under their name and their functions'.
c="[r for r in last['hotspots']['rows'] if r['module'] == '$churned']"
json_check "$out" "sum(r['samples'] for r in $c if r['comm'] == '$churned') >= 0.97 * sum(r['samples'] for r in $c)" \
	"the exited churned processes lost their command name"
json_check "$out" "len({r['symbol'] for r in $c} & {'hot_a', 'hot_b', 'hot_c'}) == 3" \
	"the exited churned processes lost their functions' names"
json_check "$out" "sum(r['samples'] for r in $c if r['symbol'] in ('hot_a', 'hot_b', 'hot_c')) >= 0.9 * sum(r['samples'] for r in $c)" \
	"most of the exited processes' samples are not under their names"
n=$(json "$out" "sum(r['samples'] for r in $c)")
[ "$n" -ge 200 ] || fail "only $n samples of the churned processes (expected 7 s of them)" "$out"
pass "since the start: every sample in a row or other, shares = weight/total, $n samples of exited processes under their names"

# A recycled PID (forced in a PID namespace of our own, as
# test_tasks_pidreuse does): the first process's samples keep its name.
need_cmd unshare
pidreuse=$(helper pidreuse)
ln -s "$shares" "$TMP/reuse_first"
ln -s "$shares" "$TMP/reuse_second"
unshare --pid --fork --mount-proc true 2>"$err" ||
	skip_host "cannot make a PID namespace here: $(head -1 "$err")"
set +e
# shellcheck disable=SC2016 # the inner script expands its own arguments
PFMTOP="$PFMTOP" timeout -s KILL 40 unshare --pid --fork --mount-proc --kill-child \
	bash -c '
		"$PFMTOP" -b --format json --hot-total --hot 100000 --hot-sort pid,comm,sym -d 0.5 -n 8 \
			>"$1" 2>"$2" &
		mon=$!
		sleep 0.3
		"$3" 0.5 "$4/reuse_first" 0.6 "$4/reuse_second" 0.6 >"$4/reuse.out" 2>"$4/reuse.err"
		echo $? >"$4/reuse.rc"
		wait $mon' \
	reuse "$out" "$err" "$pidreuse" "$TMP"
rc=$?
set -e
[ "$rc" -ne 137 ] || fail "pfmtop with pidreuse ran over 40 s" "$out" "$err"
[ "$(cat "$TMP/reuse.rc")" != 77 ] || skip_host "$(cat "$TMP/reuse.err")"
[ "$(cat "$TMP/reuse.rc")" = 0 ] || fail "pidreuse failed" "$TMP/reuse.err"
expect_rc 0 "pfmtop -b --hot-sort pid,comm,sym in a PID namespace" "$out" "$err"
read -r pid _ _ <"$TMP/reuse.out"
r="[r for r in last['hotspots']['rows'] if r['pid'] == $pid and r['symbol'] == 'hot_a']"
json_check "$out" "sorted(r['comm'] for r in $r) == ['reuse_first', 'reuse_second']" \
	"PID $pid's two processes are not two rows of hot_a, each under its own name"
json_check "$out" "min(r['samples'] for r in $r) >= 100" \
	"one of PID $pid's processes has too few samples of hot_a"
pass "PID $pid recycled: hot_a is two rows, reuse_first and reuse_second"
