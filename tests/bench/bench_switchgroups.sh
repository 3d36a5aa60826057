#!/bin/bash
# bench_switchgroups.sh: the slowdown of two switch-heavy workloads under
# perf top, pfmtop -b and the switchgroups prototype (issue #32).
#
# Workloads (as in bench_observer.sh): pingpong 300,000 round trips, and
# 4,000 /bin/true from a shell loop. Observers: alone, perf top -F 4000
# (in tmux), pfmtop -b -d 1 -o /dev/null, switchgroups (read mode
# with switch records, -s), sg-plain (read mode alone), switchgroups -m
# switch. Also, as cost probes: sg-noread (the same samples without
# PERF_SAMPLE_READ) and perf-stat (perf stat -a -I 1000 of the four events,
# counting only). RUNS rounds (default 5),
# observers rotated each round; medians of wall time and of the workload's
# CPU time, slowdowns against alone and perf top,
# and each switchgroups run's records/s and lost records.
#
# bpf: the bpfcount prototype (tests/bench/bpfcount.c, README.bpfcount):
# a BPF program at sched_switch reading per-CPU counters, when BPFCOUNT
# names its binary (OBSERVERS="alone perf-top perf-stat batch bpf").
#
# Environment: PFMTOP, SWITCHGROUPS, PINGPONG (binaries), BPFCOUNT, RUNS,
# OBSERVERS.
# Needs root, perf and tmux. Exit 0, 77 if it cannot run.
set -euo pipefail

: "${PFMTOP:?PFMTOP must point at the pfmtop binary}"
: "${SWITCHGROUPS:?SWITCHGROUPS must point at the switchgroups binary}"
: "${PINGPONG:?PINGPONG must point at the pingpong binary}"
RUNS=${RUNS:-5}
WORKLOADS=${WORKLOADS:-pingpong true}
OBSERVERS=${OBSERVERS:-alone perf-top batch sg sg-plain sg-switch}
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -x /usr/bin/time ] || { echo "SKIP: needs /usr/bin/time"; exit 77; }
command -v perf >/dev/null || { echo "SKIP: needs perf"; exit 77; }

TMP=$(mktemp -d)
. "$(dirname "$0")/observer_lib.sh"

workload() {
	case $1 in
	pingpong) "$PINGPONG" 300000 ;;
	true) sh -c 'i=0; while [ $i -lt 4000 ]; do /bin/true; i=$((i + 1)); done' ;;
	esac
}

start_observer() {
	case $1 in
	alone) return 0 ;;
	perf-top)
		# In tmux, as bench_observer.sh runs it (--stdio on a closed
		# stdin spins on its key prompt).
		tmux -S "$TMP/tmux.sock" new-session -d -s b -x 200 -y 60 "perf top -F 4000"
		OBS_PID=$(tmux -S "$TMP/tmux.sock" list-panes -t b -F '#{pane_pid}')
		sleep 2
		return 0
		;;
	batch) "$PFMTOP" -b -d 1 -o /dev/null </dev/null >/dev/null 2>&1 & ;;
	sg) "$SWITCHGROUPS" -q -s </dev/null >/dev/null 2>>"$TMP/sg.log" & ;;
	sg-plain) "$SWITCHGROUPS" -q </dev/null >/dev/null 2>>"$TMP/sgp.log" & ;;
	sg-noread) "$SWITCHGROUPS" -q -x </dev/null >/dev/null 2>>"$TMP/sgx.log" & ;;
	perf-stat) perf stat -a -e context-switches,task-clock,page-faults,cpu-migrations \
		-I 1000 -o /dev/null </dev/null & ;;
	bpf) "${BPFCOUNT:?BPFCOUNT must point at bpfcount}" -q </dev/null >/dev/null 2>>"$TMP/bpf.log" & ;;
	sg-switch) "$SWITCHGROUPS" -q -m switch </dev/null >/dev/null 2>>"$TMP/sgs.log" & ;;
	esac
	OBS_PID=$!
	sleep 2
	kill -0 "$OBS_PID" 2>/dev/null || { echo "observer $1 did not start" >&2; exit 1; }
}

: >"$TMP/times"
for round in $(seq "$RUNS"); do
	for w in $WORKLOADS; do
		read -ra obs <<<"$OBSERVERS"
		k=$(((round - 1) % ${#obs[@]}))
		for o in ${obs[*]:k} ${obs[*]:0:k}; do
			start_observer "$o"
			# Wall time, and the workload's own CPU time (user + system):
			# the cost an observer adds at each switch is charged to the
			# switching tasks, and CPU time varies less than wall time
			# on a machine others are using.
			/usr/bin/time -f "%e %U %S" -o "$TMP/t" bash -c "$(declare -f workload); workload $w" >/dev/null
			stop_observer
			read -r e u sy <"$TMP/t"
			echo "$w $o $e $(python3 -c "print($u + $sy)")" >>"$TMP/times"
			sleep 0.5
		done
	done
	echo "round $round of $RUNS done" >&2
done

python3 - "$TMP/times" "$WORKLOADS" "$OBSERVERS" "$RUNS" <<'PY'
import statistics, sys
wall, cpu = {}, {}
for line in open(sys.argv[1]):
    w, o, e, c = line.split()
    wall.setdefault((w, o), []).append(float(e))
    cpu.setdefault((w, o), []).append(float(c))
ws, obs = sys.argv[2].split(), sys.argv[3].split()
for name, times in (("wall", wall), ("CPU (user + system)", cpu)):
    print(f"\nmedian {name} time in s (min), {sys.argv[4]} runs each")
    print("%-10s" % "workload" + "".join("%15s" % o for o in obs))
    med = {k: statistics.median(v) for k, v in times.items()}
    for w in ws:
        print("%-10s" % w + "".join("%15s" % ("%.2f (%.2f)" % (med[w, o], min(times[w, o]))) for o in obs))
    for base in ("alone", "perf-top"):
        if base in obs:
            print(f"{name}: slowdown against {base} (ratio of medians)")
            print("%-10s" % "workload" + "".join("%11s" % o for o in obs if o != base))
            for w in ws:
                print("%-10s" % w + "".join("%11.2f" % (med[w, o] / med[w, base]) for o in obs if o != base))
PY
for f in sg sgp sgx sgs; do
	[ -s "$TMP/$f.log" ] || continue
	echo "$f runs (records/s, lost, own CPU):"
	grep '^switchgroups: [0-9]' "$TMP/$f.log" | sed -E 's/.*\(([0-9]+)\/s\).*lost ([0-9]+) in.*own CPU ([0-9.]+ s \([0-9.]+%\)).*/  \1 records\/s, lost \2, CPU \3/'
done
