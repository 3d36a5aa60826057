#!/bin/bash
# bench_tasks.sh: what the system-wide task table costs with many tasks.
#
# Load: 1000 idle processes and one process with 200 spinning threads
# (bench_load). pfmtop runs system-wide with --cpu-min 0, so every task gets
# counters:  pfmtop -b -d 1 -n 5 --no-hotspots --cpu-min 0
# twice: at SCHED_FIFO (its own wall times) and at SCHED_OTHER, as a user
# runs it, where each tick also waits for a CPU among 200 spinning threads.
# Figures, for each run:
#   open      how long it takes to open all the groups: pfmtop opens them in
#             tick 1, so this is the rise of its fd count (sampled every 5 ms
#             by a monitor at real-time priority) from where it stood in the
#             interval before (with the /proc stat files of its first look,
#             at the start, already open): the time 90% of it takes, in wall
#             time and in pfmtop's CPU time; also the wall time from
#             pfmtop's start to its first snapshot
#   tick      CPU time per tick (/proc/PID/task/*/schedstat, ns): tick 1
#             (it opens everything) and ticks 2-5; also the whole run
#             (getrusage) over the 5 ticks, start-up included
#   fds       the most fds pfmtop had open; at snapshot 1, its perf events
#             and the /proc stat files it keeps open between ticks
#   RSS       peak resident set (VmHWM, and ru_maxrss at exit)
# Targets: all groups open within 1 s, a tick under 10 ms, RSS under 20 MB.
# Printed with "met" or "NOT met"; nothing is asserted (wall-clock figures
# depend on the machine). Last, a run under strace -c counts the syscalls.
#
# Environment: PFMTOP (the binary), BENCH_LOAD (the bench_load helper);
# NIDLE, NBUSY change the load; BENCH_FIFO_ONLY=1 skips the SCHED_OTHER run
# (minutes long on 2 CPUs). Needs root. Exit 0, 77 if it cannot run.
set -euo pipefail

: "${PFMTOP:?PFMTOP must point at the pfmtop binary}"
: "${BENCH_LOAD:?BENCH_LOAD must point at the bench_load helper}"
NIDLE=${NIDLE:-1000}
NBUSY=${NBUSY:-200}
[ "$(id -u)" -eq 0 ] || {
	echo "SKIP: bench_tasks needs root (system-wide counting of every task)"
	exit 77
}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/pfmtop-bench_tasks.XXXXXX")
# shellcheck source=tests/bench/load.sh
. "$(dirname "$0")/load.sh"
trap 'stop_load; rm -rf "$TMP"' EXIT

# --- the load ---
start_load bench_tasks

# --- the runs ---
# The monitor runs at real-time priority so that its samples are on time.
# pfmtop runs twice: at SCHED_FIFO, so its wall times are its own, then as a
# user would run it (SCHED_OTHER), sharing the CPUs with the spinning
# threads, so each tick also waits its turn for a CPU.
timeout 900 chrt -f 60 python3 - "$PFMTOP" <<'EOF'
import os, re, resource, subprocess, sys, threading, time

pfmtop = sys.argv[1]
ticks = 5
cmd = [pfmtop, "-b", "-d", "1", "-n", str(ticks), "--no-hotspots", "--cpu-min", "0"]
# The fd budget as high as this process may set it (the hard limit), so
# every task may get its counters.
nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
if nofile == resource.RLIM_INFINITY:
    nofile = 1 << 20

def cpu_ns(pid):
    """Time on CPU so far, ns, over all of pid's threads."""
    total = 0
    for t in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
            total += int(f.read().split()[0])
    return total

def fd_kinds(pid):
    """(perf events, tasks' /proc files) among pid's fds."""
    perf = stat = 0
    d = "/proc/%d/fd" % pid
    for f in os.listdir(d):
        try:
            l = os.readlink(os.path.join(d, f))
        except OSError:
            continue
        perf += l == "anon_inode:[perf_event]"
        stat += re.match(r"/proc/\d+/", l) is not None
    return perf, stat

def status(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for l in f:
            if l.startswith(key + ":"):
                return int(l.split()[1])
    return -1

def verdict(ok):
    return "met" if ok else "NOT met"

def bench(policy, title):
    def child():
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        os.sched_setscheduler(0, policy, os.sched_param(50 if policy == os.SCHED_FIFO else 0))
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, preexec_fn=child, text=True)
    samples = []  # (t, fds, cpu_ns)
    done = threading.Event()
    def sampler():
        while not done.is_set():
            try:
                samples.append((time.monotonic() - t0, len(os.listdir("/proc/%d/fd" % p.pid)),
                                cpu_ns(p.pid)))
            except (OSError, IndexError, ValueError):
                pass
            time.sleep(0.005)
    th = threading.Thread(target=sampler, daemon=True)
    th.start()
    snaps = []  # (t, cpu_ns, VmHWM kB, interval s)
    header = []
    kinds = (float("nan"), float("nan"))  # at snapshot 1
    for line in p.stdout:
        if line.startswith("pfmtop "):
            t = time.monotonic() - t0
            m = re.search(r"interval ([0-9.]+) s", line)
            ival = float(m.group(1)) if m else float("nan")
            try:
                snaps.append((t, cpu_ns(p.pid), status(p.pid, "VmHWM"), ival))
            except (OSError, IndexError, ValueError):
                snaps.append((t, None, None, ival))
            if len(snaps) == 1:
                try:
                    kinds = fd_kinds(p.pid)
                except OSError:
                    pass
        if len(snaps) == 1:
            header.append(line)
    _, st, ru = os.wait4(p.pid, 0)
    done.set()
    th.join()
    rc = os.waitstatus_to_exitcode(st)

    tasks_line = next((l.strip() for l in header if l.startswith("TASKS:")), "?")
    nev, in_events = 0, False
    for l in header:
        if l.startswith("EVENT "):
            in_events = True
            continue
        if in_events:
            if not l.strip():
                break
            nev += l.split()[1] in ("ok", "multiplexed")

    print("%s:" % title)
    print("  %s (exit %d, RLIMIT_NOFILE %d)" % (" ".join(["pfmtop"] + cmd[1:]), rc, nofile))
    print("  %d snapshots; snapshot 1: %s; %d events count" % (len(snaps), tasks_line, nev))
    if rc != 0 or len(snaps) < 2 or not samples:
        print("bench_tasks: pfmtop did not run through", file=sys.stderr)
        sys.exit(1)
    print("  intervals (pfmtop's own): %s s, asked for 1 s" % ", ".join("%.2f" % s[3] for s in snaps))

    # Tick 1 opens every group: the steep rise in fds before snapshot 1.
    # Measured from the end: the first sample with 99% of the rise back to
    # the last one 90% of the rise below it, as new processes elsewhere
    # get counters as they fork and make the start of the rise uncertain.
    peak_fds = max(s[1] for s in samples)
    first = snaps[0][0]
    tick1 = [s for s in samples if s[0] <= first]
    # The level of the interval before tick 1 (its stat files of the first
    # look at every task, taken at the start, open already).
    base = min([s[1] for s in tick1 if s[0] >= first - 0.9] or [s[1] for s in tick1])
    top = max(s[1] for s in tick1)
    full = [s for s in tick1 if s[1] >= base + 0.99 * (top - base)]
    rise = [s for s in tick1 if full and s[0] < full[0][0] and s[1] <= full[0][1] - 0.9 * (top - base)]
    if rise and full:
        open_s = full[0][0] - rise[-1][0]
        open_cpu_ms = (full[0][2] - rise[-1][2]) / 1e6
    else:
        open_s = open_cpu_ms = float("nan")
    counted = kinds[0] / nev if nev else float("nan")
    pre = [s for s in samples if s[0] <= (rise[-1][0] if rise else first)]
    tick1_ms = (snaps[0][1] - pre[-1][2]) / 1e6 if pre and snaps[0][1] is not None else float("nan")
    cpu = [s[1] for s in snaps]
    steady = [(cpu[i + 1] - cpu[i]) / 1e6 for i in range(len(cpu) - 1)
              if cpu[i] is not None and cpu[i + 1] is not None]
    steady_ms = sum(steady) / len(steady) if steady else float("nan")
    run_ms = (ru.ru_utime + ru.ru_stime) * 1000
    hwm = max([s[2] for s in snaps if s[2] is not None] + [ru.ru_maxrss])

    print("  fds: %d before tick 1, %d after it, %d at most; at snapshot 1, %d perf events (groups of %d events for %.0f tasks) and %d /proc stat files"
          % (base, top, peak_fds, kinds[0], nev, counted, kinds[1]))
    print("  time to open all groups: %.3f s wall (90%% of the rise of fds %d -> %d), %.1f ms CPU; target <= 1 s: %s"
          % (open_s, base, top, open_cpu_ms, verdict(open_s <= 1.0)))
    print("  start to first snapshot: %.2f s wall (includes the 1 s interval)" % first)
    print("  tick 1 (opens all groups): %.1f ms CPU" % tick1_ms)
    print("  ticks 2-%d: %s ms CPU each, mean %.1f ms; target < 10 ms: %s"
          % (len(cpu), ", ".join("%.1f" % x for x in steady), steady_ms, verdict(steady_ms < 10)))
    print("  whole run: %.0f ms CPU (user %.0f, sys %.0f) over %d ticks = %.1f ms a tick"
          % (run_ms, ru.ru_utime * 1000, ru.ru_stime * 1000, ticks, run_ms / ticks))
    print("  peak RSS: %.1f MB (VmHWM, ru_maxrss); target < 20 MB: %s"
          % (hwm / 1024, verdict(hwm < 20 * 1024)))
    sys.stdout.flush()

bench(os.SCHED_FIFO, "pfmtop at SCHED_FIFO (its own wall times)")
if os.environ.get("BENCH_FIFO_ONLY") != "1":
    bench(os.SCHED_OTHER, "pfmtop at SCHED_OTHER (as a user runs it: it waits for a CPU among the spinning threads)")
EOF

# --- syscalls per tick ---
if command -v strace >/dev/null 2>&1; then
	echo "strace -c -f: pfmtop -b -d 1 -n 3 --no-hotspots --cpu-min 0 at SCHED_FIFO (3 ticks with start-up):"
	ulimit -Sn "$(ulimit -Hn)"
	timeout 120 chrt -f 50 strace -c -f -o "$TMP/strace" \
		"$PFMTOP" -b -d 1 -n 3 --no-hotspots --cpu-min 0 >/dev/null 2>"$TMP/strace.err" || true
	awk 'NR > 2 && !/^-/ { print "  " $0 }' "$TMP/strace" | head -12
else
	echo "strace not installed: no syscall counts"
fi
stop_load
