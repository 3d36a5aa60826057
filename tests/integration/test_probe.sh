#!/bin/bash
# --probe and --list-events describe this machine truthfully.
. "$(dirname "$0")/lib.sh"

out=$TMP/out err=$TMP/err

run "$out" "$err" "$PFMTOP" --probe
expect_rc 0 "pfmtop --probe" "$out" "$err"

# Each setting is named, with the value the kernel reports right now.
for knob in perf_event_paranoid perf_event_max_sample_rate perf_event_mlock_kb kptr_restrict; do
	val=$(cat "/proc/sys/kernel/$knob")
	grep -qE "^$knob:? +$val\b" "$out" ||
		grep -qE "$knob\b.*[^0-9-]$val\b" "$out" ||
		fail "--probe does not show $knob with its current value $val" "$out"
done
if [ -r /proc/sys/kernel/nmi_watchdog ]; then
	val=$(cat /proc/sys/kernel/nmi_watchdog)
	grep -qE "nmi_watchdog\b.*[^0-9]$val\b" "$out" ||
		fail "--probe does not show nmi_watchdog with its current value $val" "$out"
else
	grep -q nmi_watchdog "$out" || fail "--probe does not mention nmi_watchdog" "$out"
fi
soft=$(ulimit -Sn) hard=$(ulimit -Hn)
grep -qiE '(RLIMIT_NOFILE|open files).*([^0-9]|^)('"$hard"'|'"$soft"')\b' "$out" ||
	fail "--probe does not show RLIMIT_NOFILE / open files (soft $soft, hard $hard)" "$out"
pass "--probe shows paranoid, sample rate, mlock, kptr_restrict, nmi_watchdog, open files"

# The PMU list: every PMU in sysfs, software and tracepoint among them.
grep -iE 'pmu' "$out" | grep -w software | grep -qw tracepoint ||
	fail "--probe has no PMU list naming software and tracepoint" "$out"
for pmu in /sys/bus/event_source/devices/*; do
	name=$(basename "$pmu")
	grep -iE 'pmu' "$out" | grep -qw -- "$name" || fail "--probe's PMU list lacks $name (in sysfs)" "$out"
done
pass "--probe lists the PMUs of /sys/bus/event_source/devices"

# Every default event is listed, with whether it opens.
for ev in cycles instructions cache-misses branch-misses task-clock context-switches cpu-migrations page-faults; do
	grep -qE "^ +$ev " "$out" || fail "--probe does not list default event $ev" "$out"
done
grep -qE '^ +task-clock +opens' "$out" || fail "--probe should say task-clock opens" "$out"
if no_hw_pmu; then
	line=$(grep -E '^ +cycles ' "$out")
	! grep -qE '^ +cycles +opens' <<<"$line" || fail "--probe says cycles opens, but perf stat cannot count cycles here" "$out"
	grep -qiE 'pmu' <<<"$line" || fail "--probe does not say why cycles does not open (no PMU)" "$out"
fi
pass "--probe lists the default events (task-clock opens$(no_hw_pmu && echo ', cycles does not'))"

# --- --list-events GLOB ---
run "$out" "$err" "$PFMTOP" --list-events 'task*'
expect_rc 0 "pfmtop --list-events 'task*'" "$out" "$err"
grep -qE '^ +task-clock +opens' "$out" || fail "--list-events 'task*' does not list task-clock as opening" "$out"
names=$(awk '/^  / {print $1}' "$out")
for n in $names; do
	case "$n" in task*) ;; *) fail "--list-events 'task*' lists $n" "$out" ;; esac
done
pass "--list-events 'task*': task-clock opens"

if [ -d /sys/bus/event_source/devices/msr/events ]; then
	run "$out" "$err" "$PFMTOP" --list-events 'msr/*'
	expect_rc 0 "pfmtop --list-events 'msr/*'" "$out" "$err"
	names=$(awk '/^  / {print $1}' "$out")
	[ -n "$names" ] || fail "--list-events 'msr/*' lists nothing, but sysfs has msr events" "$out"
	for n in $names; do
		case "$n" in msr/*) ;; *) fail "--list-events 'msr/*' lists $n" "$out" ;; esac
	done
	for e in /sys/bus/event_source/devices/msr/events/*; do
		case "$e" in *.scale | *.unit | *.snapshot | *.per-pkg) continue ;; esac
		grep -qE "^ +msr/$(basename "$e")/ " "$out" || fail "--list-events 'msr/*' lacks msr/$(basename "$e")/" "$out"
	done
	pass "--list-events 'msr/*': $(tr '\n' ' ' <<<"$names")"
else
	info "no msr PMU events in sysfs: msr/* listing not checked"
fi

# --- tracepoints: opened once for the lot ---
# Each tracepoint open and close costs the kernel an RCU grace period (tens
# of ms), and one rule decides for all of them: --list-events tries one and
# says so, instead of opening thousands one by one.
tracefs=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$d/events/sched" ] && tracefs=$d && break
done
if [ -z "$tracefs" ] && [ "$(id -u)" -eq 0 ] && [ -d /sys/kernel/tracing ] &&
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	cleanup_add "umount /sys/kernel/tracing"
	[ -d /sys/kernel/tracing/events/sched ] && tracefs=/sys/kernel/tracing
fi
if [ -n "$tracefs" ]; then
	tps=$(find "$tracefs/events/sched" -mindepth 1 -maxdepth 1 -type d | wc -l)
	run "$out" "$err" "$PFMTOP" --list-events 'sched:*'
	expect_rc 0 "pfmtop --list-events 'sched:*'" "$out" "$err"
	listed=$(grep -cE '^  sched:' "$out")
	[ "$listed" -eq "$tps" ] || fail "--list-events 'sched:*' lists $listed tracepoints, tracefs has $tps" "$out"
	grep -q 'tracepoints: one opened, taken for all' "$out" ||
		fail "--list-events 'sched:*' does not say one tracepoint spoke for all" "$out"
	[ "$(grep -cE '^  sched:[a-z_]+ +opens ' "$out")" -eq "$tps" ] ||
		fail "not every sched tracepoint is shown as opening" "$out"
	pass "--list-events 'sched:*': $listed tracepoints, one opened for all"
else
	info "tracefs is not mounted: the tracepoint listing was not tried"
fi
