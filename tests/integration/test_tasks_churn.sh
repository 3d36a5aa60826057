#!/bin/bash
# System-wide task table under churn: a burst of 500 short-lived processes.
# pfmtop gives each new process counters as it forks; once they have exited
# and been shown, their fds must be closed and their rows gone, and pfmtop's
# memory must not grow with them. (Per-task counters, --task-counters perf:
# BPF task counts hold no fds per task.)
#
# Other work on the machine forks too, and pfmtop rightly holds counters for
# whatever is busy or new, so its raw fd count moves by hundreds on a busy
# host. What must stay put is the part of it that no counted task explains:
# fds - (events x counted threads in the snapshot just printed) - the /proc
# stat files it keeps open between ticks (one per task it has seen). A leak
# of the burst's counters would raise that by up to 2 x 500. The stat files
# are checked apart: no more of them than the snapshot's processes and
# counted threads, and none left on an exited process of the burst.
. "$(dirname "$0")/lib.sh"

need_root

forkburst=$(helper forkburst)
out=$TMP/out err=$TMP/err res=$TMP/res
N=500 NEV=2

# The monitor reads the snapshots as pfmtop prints them and takes pfmtop's
# fd count and VmRSS at once (no forking: a polling loop of ls and sleep
# would itself keep tens of fds open in pfmtop). After snapshot 2 it runs the
# burst, sampling pfmtop's fds meanwhile.
set +e
timeout 30 python3 - "$PFMTOP" "$forkburst" "$N" "$NEV" "$out" "$err" >"$res" <<'EOF'
import json, os, re, subprocess, sys, threading, time
pfmtop, forkburst, n, nev, out, err = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
p = subprocess.Popen([pfmtop, "-b", "--format", "json", "-N", "0", "-d", "0.5", "-n", "10",
                      "-e", "task-clock,page-faults", "--no-hotspots", "--task-counters", "perf"],
                     stdout=subprocess.PIPE, stderr=open(err, "w"), text=True)
def nfd():
    try:
        return len(os.listdir("/proc/%d/fd" % p.pid))
    except OSError:
        return -1
def task_fds():
    """pfmtop's fds on tasks' /proc files: {pid: count}, or None."""
    d = "/proc/%d/fd" % p.pid
    pids = {}
    try:
        for f in os.listdir(d):
            try:
                l = os.readlink(os.path.join(d, f))
            except OSError:
                continue
            m = re.match(r"/proc/(\d+)/", l)
            if m:
                pids[int(m.group(1))] = pids.get(int(m.group(1)), 0) + 1
    except OSError:
        return None
    return pids
def rss():
    try:
        with open("/proc/%d/status" % p.pid) as f:
            return int(next(l.split()[1] for l in f if l.startswith("VmRSS:")))
    except (OSError, StopIteration):
        return -1  # it has just exited (after its last snapshot)
peak, burst, snaps, left = [0], [], [], []
def sample(stop):
    while not stop.is_set():
        peak[0] = max(peak[0], nfd())
        time.sleep(0.002)
with open(out, "w") as o:
    for line in p.stdout:
        fds, kb, tf = nfd(), rss(), task_fds()
        o.write(line)
        o.flush()
        x = json.loads(line)
        # Counter fds open after this snapshot: its counted rows (exited
        # ones are closed at the next tick) and those counted from the next.
        held = sum(t["threads"] for t in x["tasks"]
                   if t["counted"] or t["note"] == "counted from next interval")
        if fds >= 0 and kb >= 0 and tf is not None:
            procfds = sum(tf.values())
            snaps.append((x["seq"], fds, kb, held, procfds, len(x["tasks"]),
                          fds - nev * held - procfds))
            if x["seq"] == 9:
                # stat files still open on exited processes of the burst
                left = [q for q in tf if str(q) in burst and not os.path.exists("/proc/%d" % q)]
        if x["seq"] == 2:
            stop = threading.Event()
            th = threading.Thread(target=sample, args=(stop,))
            th.start()
            r = subprocess.run([forkburst, str(n)], stdout=subprocess.PIPE, text=True)
            stop.set()
            th.join()
            burst = r.stdout.split() if r.returncode == 0 else []
            burst_after = x["seq"]
p.wait()
for s in snaps:
    print("# snapshot %d: %d fds, VmRSS %d kB, %d counted threads, %d /proc stat files (%d rows), %d fds besides" % s)
print("rc=%d" % p.returncode)
print("burst='%s'" % ",".join(burst))
print("peak=%d" % peak[0])
print("nsnap=%d" % len(snaps))
if len(snaps) >= 9:
    print("fd0=%d rss0=%d rest0=%d" % (snaps[1][1], snaps[1][2], min(s[6] for s in snaps[:2])))
    # Three intervals after the burst (shown once as exited, then dropped)
    # up to snapshot 9: after the 10th pfmtop may be gone already.
    print("fd1=%d rss1=%d rest1=%d" % (snaps[8][1], snaps[8][2], min(s[6] for s in snaps[5:9])))
    # At most one stat file per process row and one per counted thread
    # (as for rest1, the least over those snapshots: a task forking just
    # after one gets its counters and stat file before it is counted).
    print("procfds1=%d procx1=%d" % (snaps[8][4], min(s[4] - s[5] - s[3] for s in snaps[5:9])))
    print("left='%s'" % ",".join(str(q) for q in left))
EOF
mrc=$?
set -e
[ "$mrc" -eq 0 ] || fail "the monitor failed (exit $mrc; 124: pfmtop -d 0.5 -n 10 ran over 30 s)" "$res" "$err"
sed -n 's/^# /  /p' "$res"
rc=1 burst='' peak=0 nsnap=0 fd0=0 rss0=0 rest0=0 fd1=0 rss1=0 rest1=0 procfds1=0 procx1=0 left=
eval "$(grep -v '^#' "$res")"
RC=$rc
expect_rc 0 "pfmtop -b --format json -N 0 -d 0.5 -n 10 (system-wide)" "$out" "$err"
json_check "$out" "len(lines) == 10" "-n 10 should give 10 snapshots"
[ "$nsnap" -ge 9 ] || fail "pfmtop's fds could be read after $nsnap snapshots only" "$res"
[ -n "$burst" ] || fail "forkburst $N failed"
[ "$(py "len(a[0].split(','))" "$burst")" -eq "$N" ] || fail "forkburst $N did not print $N PIDs"
info "burst of $N processes after snapshot 2; pfmtop had up to $peak fds open meanwhile"

burst="{$burst}"
# A PID of the burst may be reused by another program since: rows of the
# burst are those with its PID and its name.
shown=$(json "$out" "sum(1 for x in lines for t in x['tasks'] if t['pid'] in $burst and t['comm'] == 'forkburst')")
info "$shown rows of the burst in all snapshots (the others exited before pfmtop saw them)"
# Each child lives a moment: its rows are one snapshot marked exited (note
# 'exited'), after at most one where it was still running (forked just
# before that snapshot ended: on a busy machine the burst takes a while).
rows_of="[[(x['seq'], t['exited'], t['note']) for x in lines for t in x['tasks'] if t['pid'] == p and t['comm'] == 'forkburst'] for p in $burst]"
json_check "$out" "all(len(r) <= 2 for r in $rows_of)" \
	"a process of the burst is shown in more than two snapshots: an exited task should be shown once, then dropped"
json_check "$out" "all(r[-1][1] and r[-1][2] == 'exited' for r in $rows_of if r)" \
	"the last row of a process of the burst is not marked exited (note 'exited')"
json_check "$out" "all(not r[0][1] and r[1][0] == r[0][0] + 1 for r in $rows_of if len(r) == 2)" \
	"a process of the burst shown twice: not running, then exited in the next snapshot"
json_check "$out" "[t['pid'] for x in lines[5:] for t in x['tasks'] if t['pid'] in $burst and t['comm'] == 'forkburst'] == []" \
	"snapshots 6-10 still have rows of the burst, which ended after snapshot 2"

info "fds: $fd0 after snapshot 2, $fd1 after snapshot 9; besides the counted tasks' own: $rest0 before the burst, $rest1 after"
check "$rest1 <= $rest0 + 4" \
	"pfmtop holds $((rest1 - rest0)) more fds than its counted tasks explain after a burst of $N short-lived processes ($rest0 before, $rest1 after; raw $fd0 -> $fd1, peak $peak): the exited tasks' fds are not all closed" "$res" "$out"
check "$procx1 <= 4" \
	"pfmtop keeps $procx1 more /proc stat files open than its process rows and counted threads after the burst ($procfds1 after snapshot 9)" "$res"
[ -z "$left" ] ||
	fail "pfmtop still has the /proc stat files of exited processes of the burst open after snapshot 9: $left" "$res"
check "$rss1 - $rss0 <= 4096" \
	"pfmtop's VmRSS grew from $rss0 kB to $rss1 kB over a burst of $N short-lived processes" "$res"
pass "after $N short-lived processes: fds besides counters and /proc stat files $rest0 -> $rest1 (raw $fd0 -> $fd1, peak $peak; $procfds1 stat files), VmRSS $rss0 -> $rss1 kB, no rows left"
