#!/bin/bash
# Throttling, provoked: with kernel.perf_event_max_sample_rate lowered to
# 1000, sampling cpu-clock every 10 us (-c 10000, 100 kHz) on a busy
# workload asks for far more interrupts per tick than allowed, so the kernel
# throttles the event (PERF_RECORD_THROTTLE): sampling.total.throttles > 0,
# and far fewer samples than the period asks for. A control run at the
# normal maximum with -F 1000 is never throttled. The sysctl is restored on
# every way out (end, failure, SIGINT/SIGTERM), and the script checks that.
. "$(dirname "$0")/lib.sh"

SYSCTL=/proc/sys/kernel/perf_event_max_sample_rate
[ "$(id -u)" -eq 0 ] || skip "changing $SYSCTL needs root"
[ -w "$SYSCTL" ] || skip_host "$SYSCTL is not writable here"

spin=$(helper spin)
out=$TMP/out err=$TMP/err
low=1000 period=10000 secs=1.5
orig=$(cat "$SYSCTL")

# Restore on every exit: lib.sh runs the cleanups from its EXIT trap, and
# SIGINT/SIGTERM are turned into an exit so that trap runs for them too.
restore_rate() { echo "$orig" >"$SYSCTL"; }
cleanup_add restore_rate
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

set_rate() {
	echo "$1" >"$SYSCTL" || fail "cannot write $1 to $SYSCTL"
	[ "$(cat "$SYSCTL")" = "$1" ] || fail "$SYSCTL reads $(cat "$SYSCTL") after writing $1"
}

# Self-test of the restore path (the script runs itself in this mode, see
# below): lower the rate, then fail or get SIGTERM midway.
case "${PFMTOP_THROTTLE_SELFTEST:-}" in
fail)
	set_rate "$low"
	fail "self-test: failing on purpose with the rate at $low"
	;;
term)
	set_rate "$low"
	kill -TERM $$
	sleep 5
	fail "self-test: still running after SIGTERM"
	;;
esac

# --- the trap restores the sysctl when the script fails or is killed ---
for mode in fail:1 term:143; do
	m=${mode%:*} want=${mode#*:}
	set +e
	PFMTOP_THROTTLE_SELFTEST=$m bash "$0" >"$TMP/self.out" 2>&1
	RC=$?
	set -e
	expect_rc "$want" "self-test '$m' (the script with the rate lowered, then $m)" "$TMP/self.out"
	now=$(cat "$SYSCTL")
	[ "$now" = "$orig" ] || {
		echo "$orig" >"$SYSCTL"
		fail "self-test '$m': $SYSCTL is $now after the script exited, expected it restored to $orig" "$TMP/self.out"
	}
done
pass "the sysctl is restored to $orig when the script fails (exit 1) or gets SIGTERM (exit 143)"

# --- throttled: max rate 1000, a sample every 10 us ---
set_rate "$low"
run "$out" "$err" "$PFMTOP" -b --format json -d 0.5 -c "$period" -- "$spin" "$secs"
# A frequency above the limit: the kernel refuses it, pfmtop must say so.
run "$TMP/out.f" "$TMP/err.f" "$PFMTOP" -b --format json -d 0.2 -F 4000 -- "$spin" 0.2
restore_rate
[ "$(cat "$SYSCTL")" = "$orig" ] || fail "$SYSCTL is $(cat "$SYSCTL") after restoring, expected $orig"

expect_rc 0 "pfmtop -b --format json -d 0.5 -c $period -- spin $secs (max rate $low)" "$out" "$err"
json_check "$out" 'final is not None and final["sampling"]["enabled"] is True' "no final snapshot with sampling enabled"
json_check "$out" "all(x['sampling']['max_sample_rate'] == $low and x['sampling']['period'] == $period for x in lines)" \
	"the snapshots should report max_sample_rate $low and period $period"
thr=$(json "$out" 'final["sampling"]["total"]["throttles"]')
samples=$(json "$out" 'final["sampling"]["total"]["samples"]')
lost=$(json "$out" 'final["sampling"]["total"]["lost_samples"]')
cpu_ms=$(json "$out" 'ctr(final["total"], "task-clock")')
asked=$(py "int(float(a[0]) * 1e6 / float(a[1]))" "$cpu_ms" "$period")
info "throttled run: $thr throttles, $samples samples ($asked asked for by $cpu_ms ms at one per $period ns), $lost lost"
check "$thr > 0" "max rate $low, -c $period: sampling.total.throttles is $thr, expected > 0" "$out"
json_check "$out" "any(x['sampling']['interval']['throttles'] > 0 and x['sampling']['interval']['throttled'] for x in lines)" \
	"no snapshot has sampling.interval.throttles > 0 with throttled true"
check "$samples <= $asked / 10" "max rate $low: $samples samples, not far below the $asked the period asks for: was it throttled at all?" "$out"
check "$lost == 0" "throttling is not loss: $lost lost samples reported in the throttled run" "$out"
pass "throttled: $thr throttles, $samples of $asked samples taken"

expect_rc 0 "pfmtop -F 4000 with max rate $low" "$TMP/out.f" "$TMP/err.f"
json_check "$TMP/out.f" "final['sampling']['freq'] <= $low" "-F 4000 with max rate $low: sampling.freq should be at most $low"
json_check "$TMP/out.f" "any('perf_event_max_sample_rate' in n for n in final['notes'])" \
	"-F 4000 with max rate $low: no note naming perf_event_max_sample_rate"
pass "-F 4000 above the limit: sampling at $(json "$TMP/out.f" "final['sampling']['freq']") Hz, with a note"

# --- control: the normal maximum, -F 1000 ---
check "$orig >= 2000" "control needs perf_event_max_sample_rate >= 2000, it is $orig"
run "$out" "$err" "$PFMTOP" -b --format json -d 0.5 -F 1000 -- "$spin" "$secs"
expect_rc 0 "pfmtop -b --format json -d 0.5 -F 1000 -- spin $secs (max rate $orig)" "$out" "$err"
json_check "$out" 'final is not None and final["sampling"]["enabled"] is True' "control: no final snapshot with sampling enabled"
c_thr=$(json "$out" 'final["sampling"]["total"]["throttles"]')
c_samples=$(json "$out" 'final["sampling"]["total"]["samples"]')
c_cpu_ms=$(json "$out" 'ctr(final["total"], "task-clock")')
c_expect=$(py "int(float(a[0]))" "$c_cpu_ms")
info "control run: $c_thr throttles, $c_samples samples (about $c_expect expected at 1 kHz)"
check "$c_thr == 0" "control (max rate $orig, -F 1000): sampling.total.throttles is $c_thr, expected 0" "$out"
json_check "$out" "not any(x['sampling']['interval']['throttled'] or x['sampling']['throttled_now'] for x in lines)" \
	"control: some snapshot says throttled"
within "$c_samples" "$c_expect" 15 || fail "control: $c_samples samples, expected about $c_expect ($c_cpu_ms ms at 1 kHz)" "$out"

[ "$(cat "$SYSCTL")" = "$orig" ] || fail "$SYSCTL is $(cat "$SYSCTL") at the end, expected $orig"
printf '%-32s %10s %10s %10s\n' RUN throttles samples asked
printf '%-32s %10s %10s %10s\n' "max rate $low, -c $period" "$thr" "$samples" "$asked"
printf '%-32s %10s %10s %10s\n' "max rate $orig, -F 1000" "$c_thr" "$c_samples" "$c_expect"
pass "control: 0 throttles; $SYSCTL back at $orig"
