#!/bin/bash
# Permission stated as permission, for an ordinary user (nobody) under
# perf_event_paranoid 2: another user's PID is refused with exit 2 and a
# sentence about CAP_PERFMON / ptrace rights (and a per-row reason when
# another PID can be counted); -C refuses with exit 2 naming
# perf_event_paranoid and CAP_PERFMON instead of falling back to own
# processes; a tracepoint under a tracefs of mode 0700 names that mode.
. "$(dirname "$0")/lib.sh"

need_root
paranoid_is 2
nobody_setup
out=$TMP/out err=$TMP/err

# refused WHAT ARGS...: pfmtop ARGS as nobody exits 2 at once, one line.
refused() {
	local what=$1
	shift
	run "$out" "$err" as_nobody timeout 10 "$TMP/bin/pfmtop" "$@"
	[ "$RC" -ne 124 ] || fail "$what: still running after 10 s" "$out" "$err"
	expect_rc 2 "$what" "$out" "$err"
	[ "$(wc -l <"$err")" -eq 1 ] && grep -q '^pfmtop: ' "$err" ||
		fail "$what: expected one 'pfmtop: ...' line on stderr" "$err"
	[ ! -s "$out" ] || fail "$what: printed a snapshot" "$out"
	info "$what -> $(cat "$err")"
}

# --- another user's process ---
[ "$(stat -c %u /proc/1)" -eq 0 ] || skip_host "PID 1 is not root's here"
refused "nobody: -p 1" -b -n 1 -d 0.1 --no-hotspots -p 1
grep -qF "may not watch process 1 (uid 0)" "$err" || fail "-p 1: the message should say nobody may not watch process 1 of uid 0" "$err"
grep -qF "CAP_PERFMON" "$err" && grep -qF "ptrace" "$err" ||
	fail "-p 1: the message should name CAP_PERFMON and ptrace rights" "$err"
! grep -q "exclude_" "$err" || fail "-p 1: the reason is permission, not exclude_* modifiers" "$err"

# One of nobody's own and PID 1: the own one counts, PID 1 says why not.
setpriv --reuid=nobody --regid="$group" --clear-groups "$TMP/bin/spin" 20 &
spid=$!
disown "$spid"
cleanup_add "kill -KILL $spid"
spin_up() { [ "$(stat -c %u "/proc/$spid" 2>/dev/null)" = "$(id -u nobody)" ] && grep -qx spin "/proc/$spid/comm"; }
wait_for 5 spin_up || fail "spin did not start as nobody (pid $spid)"
run "$out" "$err" as_nobody timeout 10 "$TMP/bin/pfmtop" -b -n 1 -d 0.2 --no-hotspots --format json -p "1,$spid"
expect_rc 0 "nobody: -p 1,$spid" "$out" "$err"
json_check "$out" "any(t['pid'] == 1 and not t['counted'] and 'permission' in t['note'] for t in last['tasks'])" \
	"PID 1 should be a row 'not counted: no permission'"
json_check "$out" "any(t['pid'] == $spid and t['counted'] for t in last['tasks'])" \
	"nobody's own spin should be counted beside it"
pass "-p of another user's process: exit 2 with the reason; beside an own one, a row reason"

# --- -C: whole CPUs, no quiet fallback ---
refused "nobody: -C 0" -b -n 1 -d 0.1 --no-hotspots -C 0
grep -qF "perf_event_paranoid" "$err" && grep -qF "CAP_PERFMON" "$err" ||
	fail "-C 0: the message should name perf_event_paranoid and CAP_PERFMON" "$err"
# without -C the own-processes mode is still the default (test_unprivileged)
run "$out" "$err" as_nobody timeout 10 "$TMP/bin/pfmtop" -b -n 1 -d 0.1 --no-hotspots
expect_rc 0 "nobody: no -C" "$out" "$err"
pass "-C as nobody at paranoid 2: exit 2, names perf_event_paranoid and CAP_PERFMON"

# --- a tracefs nobody may not read ---
tfs=/sys/kernel/tracing
[ -d "$tfs" ] || skip_host "$tfs does not exist (no tracefs in this kernel)"
if [ -d "$tfs/events" ]; then
	mode=$(stat -c %a "$tfs")
	cleanup_add "chmod $mode $tfs"
	chmod 0700 "$tfs" || skip_host "cannot chmod $tfs"
	info "tracefs mode set to 0700 for the test (was $mode)"
else
	mount -t tracefs -o mode=0700 nodev "$tfs" || skip_host "cannot mount tracefs at $tfs"
	cleanup_add "umount $tfs"
	info "tracefs mounted at $tfs, mode 0700, for the test"
fi
[ -d "$tfs/events/sched/sched_switch" ] || skip_host "no sched:sched_switch tracepoint"
refused "nobody: -e sched:sched_switch, tracefs 0700" -b -n 1 -d 0.1 --no-hotspots -e sched:sched_switch
grep -qF "tracefs at $tfs is mode 0700" "$err" || fail "the message should give the tracefs mode" "$err"
! grep -q "not mounted" "$err" || fail "tracefs is mounted: the message must not say otherwise" "$err"
run "$out" "$err" as_nobody timeout 10 "$TMP/bin/pfmtop" --probe
expect_rc 0 "nobody: --probe, tracefs 0700" "$out" "$err"
grep -E '^tracefs:' "$out" | grep -qF "mode 0700" || fail "--probe should say tracefs is mode 0700, not missing" "$out"
pass "tracefs of mode 0700: the message gives the mode, not 'not mounted'"
