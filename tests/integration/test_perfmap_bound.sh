#!/bin/bash
# A process of an unprivileged user that writes thousands of new 500-byte
# names a second into its perf map, for code it maps anew (jitmap), cannot
# push root's `pfmtop -b` past a bound in memory: its RSS stays under
# 48 MB, and no interval of its `-d 0.5` is over 0.75 s (README, "Memory":
# the tables of names, the perf maps' tables and the frame cache each have
# a bound in bytes). It runs at about 30 MB;
# without the bounds it passed 55 MB within these 25 seconds.
source "$(dirname "$0")/lib.sh"

need_root
[ "$(uname -m)" = x86_64 ] || skip_host "jitmap runs x86-64 code"
nobody_setup
install -m 755 "$(helper jitmap)" "$TMP/bin/jitmap"

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

victim_start
victim_watch "$SECS"
size=$(stat -c %s "/tmp/perf-$jit_pid.map" 2>/dev/null || echo 0)
info "beside a perf map of $((size >> 20)) MB rewritten"
MAX_RSS_MB=48 victim_stop "thousands of new 500-byte names a second"
# the run names the bounds it kept to
grep -q '"perf maps: [0-9]* read' "$TMP/victim.json" || info "(no perf map was cut in this run)"
pass "pfmtop -b stays under 48 MB, with no interval over 0.75 s, beside a hostile perf map"
