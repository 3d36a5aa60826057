#!/bin/bash
# System-wide task table: a process started while pfmtop runs is counted from
# its fork on (its page faults agree with perf stat), and a busy process that
# was there before pfmtop is given counters by the 2nd snapshot.
. "$(dirname "$0")/lib.sh"

need_root
need_cmd perf

touch_pages=$(helper touch_pages)
spin=$(helper spin)
out=$TMP/out err=$TMP/err

# Ground truth first, while nothing else of ours runs.
theirs=$(perf_stat page-faults "$touch_pages" 20000)

# --- a busy process older than pfmtop ---
"$spin" 3 &
spid=$!
disown "$spid"
cleanup_add "kill -KILL $spid"

monitor_start "$out" "$err" -b --format json -N 0 -d 0.5 -e task-clock,page-faults --no-hotspots
me=$MON
# --- a process born while pfmtop runs ---
# pfmtop opens the counters of a new process when it reads the FORK record
# from its side-band ring, a moment after the fork. The shell waits on a
# FIFO (no CPU, no faults) until a snapshot shows it counted, then execs, so
# all of touch_pages' faults fall after the counters are open.
mkfifo "$TMP/go"
sh -c 'read -r x <"$0"; exec "$1" 20000' "$TMP/go" "$touch_pages" &
npid=$!
counted() { grep -q "\"pid\": *$npid," "$out" && [ "$(json "$out" "any(t['pid'] == $npid and t['counted'] for x in lines for t in x['tasks'])")" = 1 ]; }
wait_for 30 counted || fail "no snapshot shows the new process $npid counted within 30 s" "$out" "$err"
echo go >"$TMP/go"
set +e
wait "$npid"
nrc=$?
set -e
[ "$nrc" -eq 0 ] || fail "touch_pages 20000 failed (exit $nrc)"
monitor_stop "$out" "$err"
json_check "$out" "len(lines) >= 3" "pfmtop -d 0.5 should have given 3 snapshots or more"
json_check "$out" "all(x['mode'] == 'system-wide' for x in lines)" "mode should be system-wide"
# pfmtop's own row says what it is, not "idle" (it uses the CPU it shows)
json_check "$out" "all(t['note'] == 'pfmtop itself, not counted' and not t['counted'] for x in lines for t in x['tasks'] if t['pid'] == $me)" \
	"pfmtop's own row is not labelled as itself"
json_check "$out" "any(t['pid'] == $me for x in lines for t in x['tasks'])" "pfmtop has no row of its own"

# The new process: its row, in whichever snapshots show it.
json_check "$out" "any(t['pid'] == $npid for x in lines for t in x['tasks'])" \
	"no snapshot has a row for PID $npid (sh -c 'read; exec touch_pages 20000', started after pfmtop's first snapshot)"
# While the shell waits on the FIFO it is idle, and after a few idle
# intervals (a slow wait_for on a loaded machine) its counters may be given
# back ("idle: /proc only"); once it runs touch_pages every row is counted.
json_check "$out" "all((t['counted'] and t['counters']['page-faults']['state'] in ('ok', 'multiplexed')) or (t['comm'] != 'touch_pages' and t['note'] == 'idle: /proc only') for x in lines for t in x['tasks'] if t['pid'] == $npid)" \
	"PID $npid (new process) has a row that is not counted"
json_check "$out" "any(t['comm'] == 'touch_pages' for x in lines for t in x['tasks'] if t['pid'] == $npid)" \
	"PID $npid exec'd touch_pages, yet no row of it says comm touch_pages"
mine=$(json "$out" "sum(ctr(t, 'page-faults') for x in lines for t in x['tasks'] if t['pid'] == $npid and t['counted'])")
info "new process $npid: pfmtop page-faults $mine, perf stat (touch_pages 20000 alone) $theirs"
check "$mine >= 20000" "PID $npid (touch_pages 20000) counted $mine page-faults, it takes at least 20000" "$out"
# The row also holds what the shell did after pfmtop opened its counters
# (about a hundred faults): allow 500.
check "$mine >= 0.98 * $theirs and $mine <= 1.02 * $theirs + 500" \
	"PID $npid: pfmtop counted $mine page-faults, perf stat $theirs for touch_pages 20000 (+ up to 500 for the shell)" "$out"
pass "new process counted from its fork: $mine page-faults (perf stat $theirs)"

# The older busy process: counted by the 2nd snapshot, with task-clock close
# to the CPU time it had. On an otherwise idle machine that is the interval;
# when other work shares the 2 CPUs it is what /proc says it got (cpu_pct).
json_check "$out" "any(t['pid'] == $spid for t in lines[1]['tasks'])" \
	"the 2nd snapshot has no row for the busy process $spid (spin 3, started before pfmtop)"
json_check "$out" "[t['counted'] for t in lines[1]['tasks'] if t['pid'] == $spid] == [True]" \
	"the busy process $spid (spin 3) is not counted in the 2nd snapshot"
tc=$(json "$out" "[ctr(t, 'task-clock') for t in lines[1]['tasks'] if t['pid'] == $spid][0]")
pct=$(json "$out" "[t['cpu_pct'] for t in lines[1]['tasks'] if t['pid'] == $spid][0]")
ival=$(json "$out" "'%.0f' % (lines[1]['interval_s'] * 1000)")
info "spin $spid in snapshot 2: task-clock $tc ms over a ${ival} ms interval, /proc CPU ${pct}%"
# /proc's CPU% comes in scheduler ticks: 5 points of the interval either way.
check "$tc >= $ival * (0.8 * min(1.0, $pct / 100) - 0.05)" \
	"spin $spid: task-clock $tc ms in snapshot 2, less than 80% of the CPU time /proc gives it ($pct% of ${ival} ms, less 5 points)" "$out"
check "$tc <= 1.05 * $ival + 10" "spin $spid: task-clock $tc ms is more than its ${ival} ms interval" "$out"
pass "busy older process counted by snapshot 2: task-clock $tc ms of ${ival} ms"
