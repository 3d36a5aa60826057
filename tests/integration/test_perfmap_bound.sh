#!/bin/bash
# A process of an unprivileged user that writes thousands of new 500-byte
# names a second into its perf map, for code it maps anew (jitmap), cannot
# push root's `pfmtop -b` past a bound in memory: its RSS stays under
# 48 MB (README, "Memory": the tables of names, the perf maps' tables and
# the frame cache each have a bound in bytes). It runs at about 30 MB;
# without the bounds it passed 55 MB within these 25 seconds.
source "$(dirname "$0")/lib.sh"

need_root
[ "$(uname -m)" = x86_64 ] || skip_host "jitmap runs x86-64 code"
nobody_setup
install -m 755 "$(helper jitmap)" "$TMP/bin/jitmap"

LIMIT_KB=$((48 * 1024))
SECS=25
(cd /tmp && as_nobody "$TMP/bin/jitmap" $((SECS + 10)) 9000 30 >"$TMP/jit.out" 2>&1) &
jit_job=$!
cleanup_add "kill $jit_job"
for _ in $(seq 50); do
	grep -q ready "$TMP/jit.out" 2>/dev/null && break
	sleep 0.1
done
grep -q ready "$TMP/jit.out" || fail "jitmap did not start" "$TMP/jit.out"
jit_pid=$(pgrep -n -u nobody -x jitmap) || fail "no jitmap process"
cleanup_add "kill $jit_pid; rm -f /tmp/perf-$jit_pid.map"

"$PFMTOP" -b -d 0.1 --format json -o "$TMP/out.json" </dev/null 2>"$TMP/err" &
pf=$!
cleanup_add "kill $pf"
max=0
for ((i = 0; i < SECS * 2; i++)); do
	sleep 0.5
	kill -0 "$pf" 2>/dev/null || fail "pfmtop exited" "$TMP/err"
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pf/status")
	[ "$rss" -le "$max" ] || max=$rss
done
size=$(stat -c %s "/tmp/perf-$jit_pid.map" 2>/dev/null || echo 0)
kill "$pf"
wait "$pf" 2>/dev/null || true
info "pfmtop -b's largest RSS: $((max / 1024)) MB beside a perf map of $((size >> 20)) MB rewritten"
[ "$max" -le "$LIMIT_KB" ] || fail "pfmtop -b reached $((max / 1024)) MB of RSS (bound 48 MB)" "$TMP/err"
# the run names the bounds it kept to
grep -q '"perf maps: [0-9]* read' "$TMP/out.json" || info "(no perf map was cut in this run)"
pass "pfmtop -b stays under 48 MB beside a hostile perf map"
