#!/bin/bash
# System-wide task counts taken by BPF at every context switch
# (--task-counters bpf): a process started after pfmtop is counted whole
# (page faults as perf stat's, within 0.1%), the context switches of
# pingpong's two processes agree with perf stat (1%), in every snapshot the
# CPU rows add up to the task rows plus (unattributed), and 2,000 idle
# processes are all counted with an fd limit of 1,024.
. "$(dirname "$0")/lib.sh"

need_root
need_cmd perf

touch_pages=$(helper touch_pages)
pingpong=$(helper pingpong)
out=$TMP/out err=$TMP/err
ev=task-clock,page-faults,context-switches
# The default fd limit, soft and hard: pfmtop raises the soft one to the hard.
ulimit -Sn 1024
ulimit -Hn 1024

# BPF unavailable (no privilege, no BPF in the kernel or the build): skip,
# with pfmtop's reason; any other failure (such as an unknown option) fails.
if ! "$PFMTOP" -b -n 1 -d 0.1 -e "$ev" --no-hotspots --task-counters bpf -o /dev/null 2>"$err"; then
	grep -q -- '--task-counters bpf:' "$err" && skip "BPF task counts do not work here: $(head -c 300 "$err")"
	fail "pfmtop --task-counters bpf failed" "$err"
fi

# Ground truth first, while nothing else of ours runs.
faults=$(perf_stat page-faults "$touch_pages" 30000)
switches=$(perf_stat context-switches "$pingpong" 20000)

# 2,000 idle processes older than pfmtop.
for _ in $(seq 2000); do
	sleep 300 &
	echo $! >>"$TMP/sleepers"
done
cleanup_add "xargs kill -KILL <$TMP/sleepers 2>/dev/null"

monitor_start "$out" "$err" -b --format json -N 0 -d 0.5 -e "$ev" --no-hotspots --task-counters "${TASK_COUNTERS:-bpf}"
wait_for 30 monitor_has "$out" 2 || fail "no 2nd snapshot in 30 s" "$out" "$err"
"$touch_pages" 30000 &
tp=$!
wait "$tp" || fail "touch_pages 30000 failed"
"$pingpong" 20000 &
pp=$!
wait "$pp" || fail "pingpong 20000 failed"
# A tick reads the map, then /proc: the snapshot that first shows pingpong
# gone may hold counts read while it ran. One more before the stop.
wait_for 30 monitor_has "$out" $(($(nlines "$out") + 1)) || fail "no snapshot in 30 s" "$out" "$err"
monitor_stop "$out" "$err"

# TASK_COUNTERS=perf runs the same checks on the per-task counters (they
# fail there: a late task loses its start, idle tasks go uncounted).
[ "${TASK_COUNTERS:-bpf}" = perf ] ||
	json_check "$out" "all(any('per-task counts: BPF at context switch' in n for n in x['notes']) for x in lines)" \
		"the notes do not say the task counts come from BPF"
mine=$(json "$out" "sum(ctr(t, 'page-faults') for x in lines for t in x['tasks'] if t['pid'] == $tp and t['counted'])")
info "touch_pages 30000 started after pfmtop: $mine page faults, perf stat $faults"
info "its rows (snapshot, name, note, page faults): $(json "$out" "[(x['seq'], t['comm'], t['note'], ctr(t, 'page-faults')) for x in lines for t in x['tasks'] if t['pid'] == $tp]")"
check "$mine >= 30000" "touch_pages 30000 counted $mine page faults, it takes at least 30000" "$out"
within "$mine" "$faults" 0.1 ||
	fail "touch_pages 30000: pfmtop counted $mine page faults, perf stat $faults (more than 0.1% apart)" "$out"
pass "late-started touch_pages counted whole: $mine page faults (perf stat $faults)"

# pingpong's child: the process whose parent is $pp (in some snapshot: a
# row's ppid comes from its last /proc read).
mine=$(json "$out" "sum(ctr(t, 'context-switches') for x in lines for t in x['tasks'] if t['pid'] in {$pp} | {r['pid'] for y in lines for r in y['tasks'] if r.get('ppid') == $pp} and t['counted'])")
info "pingpong 20000 (two processes): $mine context switches, perf stat $switches"
info "their rows (snapshot, pid, ppid, note, switches): $(json "$out" "[(x['seq'], t['pid'], t.get('ppid'), t['note'], ctr(t, 'context-switches')) for x in lines for t in x['tasks'] if t['comm'] == 'pingpong']")"
within "$mine" "$switches" 1 ||
	fail "pingpong: pfmtop counted $mine context switches, perf stat $switches (more than 1% apart)" "$out"
pass "pingpong's context switches: $mine (perf stat $switches)"

# Every snapshot: CPU rows = task rows + (unattributed), for each event.
for e in ${ev//,/ }; do
	json_check "$out" "all(abs(sum(ctr(c, '$e') for c in x['cpus']) - sum(ctr(t, '$e') for t in x['tasks'] if t['counted']) - ctr(x['unattributed'], '$e')) <= 1e-6 * max(1, sum(ctr(c, '$e') for c in x['cpus'])) for x in lines)" \
		"$e: the CPU rows are not the task rows plus (unattributed) in some snapshot"
done
# ... and the tasks never hold more than the CPUs counted: (unattributed)
# since the start (the running tasks' slices so far, pfmtop's own, and what
# forked children did before their exec) is never below zero.
for e in page-faults context-switches; do
	json_check "$out" "all(sum(ctr(x['unattributed'], '$e') for x in lines[:k + 1]) >= 0 for k in range(len(lines)))" \
		"$e: the task rows hold more than the CPUs counted"
done
pass "CPU rows = task rows + (unattributed) in every snapshot"

n=$(json "$out" "len(set(t['pid'] for t in last['tasks'] if t['counted']) & set(int(p) for p in open('$TMP/sleepers')))")
[ "$n" -eq 2000 ] || fail "only $n of the 2,000 idle processes are counted (fd limit 1,024)" "$out" "$err"
pass "2,000 idle processes counted with an fd limit of 1,024"
