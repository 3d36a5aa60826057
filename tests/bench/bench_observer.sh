#!/bin/bash
# bench_observer.sh: how much the watcher slows the work it watches.
#
# Workloads, each a fixed amount of work timed by its wall time:
#   pingpong   two processes pinned to one CPU pass a byte 300,000 times
#              (600,000 context switches)
#   true       4,000 /bin/true from a shell loop (fork, exec, exit)
#   spin       a CPU-bound loop of 2 s of CPU time
#   threads    64 threads, each 20,000 rounds of a little work and a
#              sched_yield (many tasks, many switches)
# Observers, system-wide:
#   alone      nothing watching
#   perf-top   perf top -F 4000 (in tmux, as a user runs it)
#   perf-stat  perf stat -a -I 1000
#   view       the pfmtop view (in tmux)
#   batch      pfmtop -b -d 1
#   batch-perf, view-perf  the same with --task-counters perf (per-task
#              counters, not BPF task counts)
#   record     pfmtop -b -d 1 --record FILE
#   daemon     pfmtop --daemon --listen 127.0.0.1:PORT
# Every workload runs RUNS times (default 5) under every observer, the
# observers alternated within each round so that a machine that gets busier
# or quieter during the run weighs on all of them alike. Printed: a table of
# median wall times (and minima), then the median slowdown of each observer
# against alone and against perf top. Targets (issue: observer effect):
# pfmtop's view and -b no slower than perf top (ratio <= 1.00). Nothing is
# asserted: wall times depend on the machine.
#
# Environment: PFMTOP (the binary), RUNS, WORKLOADS, OBSERVERS (space
# separated subsets). Needs root, tmux, perf, a C compiler. Exit 0, 77 if it
# cannot run.
set -euo pipefail

: "${PFMTOP:?PFMTOP must point at the pfmtop binary}"
RUNS=${RUNS:-5}
WORKLOADS=${WORKLOADS:-pingpong true spin threads}
OBSERVERS=${OBSERVERS:-alone perf-top perf-stat view batch record daemon}
SRC=$(cd "$(dirname "$0")/../integration" && pwd)

skip() {
	echo "SKIP: bench_observer: $*"
	exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root (system-wide counting)"
for c in tmux perf cc python3; do
	command -v "$c" >/dev/null || skip "needs $c"
done

TMP=$(mktemp -d)
SOCK=$TMP/tmux.sock
. "$(dirname "$0")/observer_lib.sh"

cc -O2 -o "$TMP/pingpong" "$SRC/pingpong.c"
cc -O2 -o "$TMP/spin" "$SRC/spin.c"
cat >"$TMP/yielders.c" <<'EOF'
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
static void *work(void *arg)
{
	volatile unsigned long x = 0;
	for (long r = 0; r < (long)arg; r++) {
		for (int i = 0; i < 2000; i++)
			x += (unsigned long)i;
		sched_yield();
	}
	return NULL;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
	long rounds = argc > 2 ? atol(argv[2]) : 20000;
	pthread_t t[1024];
	if (n < 1 || n > 1024)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, work, (void *)rounds))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
EOF
cc -O2 -pthread -o "$TMP/yielders" "$TMP/yielders.c"

workload() {
	case $1 in
	pingpong) "$TMP/pingpong" 300000 ;;
	true) sh -c 'i=0; while [ $i -lt 4000 ]; do /bin/true; i=$((i + 1)); done' ;;
	spin) "$TMP/spin" 2 ;;
	threads) "$TMP/yielders" 64 20000 ;;
	esac
}

# Start an observer and wait until it is watching (its first output, or a
# second for those that print nothing until later).
start_observer() {
	local o=$1 port
	case $o in
	alone) return 0 ;;
	perf-top | view)
		local cmd
		if [ "$o" = perf-top ]; then
			cmd="perf top -F 4000"
		else
			cmd="$PFMTOP"
		fi
		tmux -S "$SOCK" new-session -d -s b -x 200 -y 60 "$cmd"
		OBS_PID=$(tmux -S "$SOCK" list-panes -t b -F '#{pane_pid}')
		sleep 2
		;;
	perf-stat)
		perf stat -a -I 1000 -o /dev/null &
		OBS_PID=$!
		sleep 1
		;;
	batch)
		"$PFMTOP" -b -d 1 >/dev/null 2>&1 &
		OBS_PID=$!
		sleep 2
		;;
	batch-perf | view-perf)
		# per-task counters, as before BPF task counts
		if [ "$o" = view-perf ]; then
			tmux -S "$SOCK" new-session -d -s b -x 200 -y 60 "$PFMTOP --task-counters perf"
			OBS_PID=$(tmux -S "$SOCK" list-panes -t b -F '#{pane_pid}')
		else
			"$PFMTOP" -b -d 1 --task-counters perf >/dev/null 2>&1 &
			OBS_PID=$!
		fi
		sleep 2
		;;
	record)
		rm -f "$TMP/r.pfr"
		"$PFMTOP" -b -d 1 --record "$TMP/r.pfr" >/dev/null 2>&1 &
		OBS_PID=$!
		sleep 2
		;;
	daemon)
		port=$((20000 + RANDOM % 20000))
		"$PFMTOP" --daemon --listen "127.0.0.1:$port" >/dev/null 2>&1 &
		OBS_PID=$!
		sleep 2
		;;
	esac
	if [ -n "$OBS_PID" ] && ! kill -0 "$OBS_PID" 2>/dev/null; then
		echo "bench_observer: observer $o did not start" >&2
		exit 1
	fi
}

: >"$TMP/times"
for round in $(seq "$RUNS"); do
	for w in $WORKLOADS; do
		# Rotate the order each round: no observer always goes first.
		read -ra obs <<<"$OBSERVERS"
		k=$(((round - 1) % ${#obs[@]}))
		order="${obs[*]:k} ${obs[*]:0:k}"
		for o in $order; do
			start_observer "$o"
			t0=$(date +%s.%N)
			workload "$w" >/dev/null
			t1=$(date +%s.%N)
			stop_observer
			echo "$w $o $(python3 -c "print($t1 - $t0)")" >>"$TMP/times"
			sleep 0.5
		done
	done
	echo "round $round of $RUNS done" >&2
done

python3 - "$TMP/times" "$WORKLOADS" "$OBSERVERS" "$RUNS" <<'EOF'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    w, o, t = line.split()
    times.setdefault((w, o), []).append(float(t))
ws, obs = sys.argv[2].split(), sys.argv[3].split()
print(f"bench_observer: median wall time in s (min), {sys.argv[4]} runs each")
print("%-10s" % "workload" + "".join("%17s" % o for o in obs))
med = {k: statistics.median(v) for k, v in times.items()}
for w in ws:
    print("%-10s" % w + "".join("%17s" % ("%.2f (%.2f)" % (med[w, o], min(times[w, o]))) for o in obs))
for base in ("alone", "perf-top"):
    if base not in obs:
        continue
    print(f"\nmedian slowdown against {base} (ratio of medians)")
    print("%-10s" % "workload" + "".join("%11s" % o for o in obs if o != base))
    for w in ws:
        print("%-10s" % w + "".join("%11.2f" % (med[w, o] / med[w, base]) for o in obs if o != base))
if "perf-top" in obs:
    print()
    for o in ("view", "batch"):
        if o in obs:
            worst = max(med[w, o] / med[w, "perf-top"] for w in ws)
            print(f"target: {o} no slower than perf top (worst ratio {worst:.2f}): {'met' if worst <= 1.0 else 'NOT met'}")
EOF
