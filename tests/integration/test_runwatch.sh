#!/bin/bash
# Counter reads skipped for tasks that did not run. With hundreds of tasks
# counted system-wide, pfmtop reads the counters only of the tasks that the
# context-switch records of its run watch name. Every interval must still
# have each task's own counts: a process that faults in pulses, and logs
# when each pulse ran, has at least a pulse's faults in each interval that
# holds a pulse, and next to none in the intervals between. Meanwhile
# pfmtop's counter reads a tick (read() calls of a group's 56 bytes, counted
# by perf stat on the syscall tracepoint) are far fewer than the tasks
# counted: without the watch, each counted task is a read a tick.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd perf

pulses=$(helper pulses)
out=$TMP/out err=$TMP/err log=$TMP/pulses.log
PAGES=1500

# 300 idle processes: enough counted tasks for the watch to open (256).
idle=()
for _ in $(seq 300); do
	sleep 600 &
	idle+=($!)
done
cleanup_add "kill ${idle[*]} 2>/dev/null"

hard=$(ulimit -Hn)
[ "$hard" = unlimited ] || [ "$hard" -ge 4096 ] ||
	skip "the open-file limit is $hard: too low to count 300 tasks (raise it with ulimit -Hn)"
ulimit -Sn "$hard" # a counter fd for every task
: >"$out"
"$PFMTOP" -b -d 0.5 --cpu-min 0 -N 0 --no-hotspots \
	--format json -e page-faults,task-clock >"$out" 2>"$err" &
MON=$!
cleanup_add "kill -KILL $MON 2>/dev/null"
# the watch opens after the first tick and is used from the third
wait_for 60 monitor_has "$out" 3 || fail "pfmtop printed no 3 snapshots in 60 s" "$out" "$err"
[ -d /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
[ -d /sys/kernel/tracing/events/syscalls/sys_enter_read ] ||
	skip "no syscalls:sys_enter_read tracepoint to count pfmtop's reads with"
ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }
# a group of page-faults and task-clock reads 8 * (3 + 2 * 2) bytes
perf stat -x, -o "$TMP/reads" -e syscalls:sys_enter_read --filter 'count == 56' -p "$MON" &
ps=$!
n0=$(nlines "$out") c0=$(ctxt)
"$pulses" "$PAGES" 1100 8 "$log" &
pp=$!
wait "$pp" || fail "pulses failed"
want=$(($(nlines "$out") + 2))
wait_for 30 monitor_has "$out" "$want" || fail "pfmtop stopped" "$out" "$err"
n1=$(nlines "$out") c1=$(ctxt)
kill -INT "$ps"
wait "$ps" 2>/dev/null || true
r=$(awk -F, '$3 ~ /sys_enter_read/ { print $1 }' "$TMP/reads")
case "$r" in '' | *[!0-9]*) fail "perf stat did not count pfmtop's reads: '$r'" "$TMP/reads" ;; esac
kill -INT "$MON"
wait_gone "$MON" 30 || fail "pfmtop did not stop on SIGINT" "$out" "$err"

# Each interval [end - interval_s, end], end from the snapshot's time; the
# pulses process's faults in it, against its log.
cat >"$TMP/check.py" <<PY
import datetime, json
lines = [json.loads(l) for l in open("$out") if l.strip()]
pulses = [tuple(map(float, l.split())) for l in open("$log")]
pid, pages, m = $pp, $PAGES, 0.08
full = quiet = 0
bad = []
for x in lines:
    if x["final"] or x["partial"]:
        continue
    end = datetime.datetime.strptime(x["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()
    start = end - x["interval_s"]
    rows = [t for t in x["tasks"] if t["pid"] == pid]
    faults = rows[0]["counters"]["page-faults"]["value"] if rows and rows[0]["counted"] else None
    inside = [p for p in pulses if p[0] >= start + m and p[1] <= end - m]
    near = [p for p in pulses if p[1] >= start - m and p[0] <= end + m]
    if inside:
        full += 1
        if faults is None or faults < pages * len(inside):
            bad.append(("pulse", round(start, 3), round(end, 3), faults))
    elif not near and start > pulses[0][0] and end < pulses[-1][1]:
        quiet += 1
        if faults is None or faults > pages / 10:
            bad.append(("quiet", round(start, 3), round(end, 3), faults))
ticks = [x for x in lines[$n0:$n1] if not x["final"]]
counted = min(sum(1 for t in x["tasks"] if t["counted"]) for x in ticks)
print(full, quiet, len(bad), $r / len(ticks), counted, ($c1 - $c0) / len(ticks), bad[:4])
PY
read -r full quiet nbad rpt counted cs rest < <(python3 "$TMP/check.py") || fail "cannot check the snapshots" "$out" "$log"
info "intervals with a whole pulse: $full, quiet ones: $quiet; counter reads a tick: $rpt, with $counted tasks counted and $cs context switches a tick"
check "$full >= 3 and $quiet >= 2" "too few intervals to judge (pulses log: $(tr '\n' ' ' <"$log"))" "$out"
check "$nbad == 0" "an interval without the pulses process's own faults: $rest" "$out" "$log"
check "$counted >= 300" "fewer than 300 tasks counted: the run watch is not tested" "$out"
# The watch steps aside when the machine switches tasks more than twice an
# interval per counted task: a machine that busy cannot show the skipping.
if [ "$(py "float(a[0]) >= 0.5 * float(a[1]) and float(a[2]) > 1.5 * float(a[1])" "$rpt" "$counted" "$cs")" = 1 ]; then
	skip "the machine switched tasks $cs times a tick for $counted tasks counted: too busy for the run watch, which was not tested (the counts were right)"
fi
check "$rpt < 0.5 * $counted" "pfmtop read the counters of most tasks each tick ($rpt reads a tick for $counted tasks, $cs switches a tick)" "$out"
pass "reads skipped for tasks that did not run ($rpt a tick for $counted counted), and each pulse's faults in its interval ($full intervals with one, $quiet without)"
