#!/bin/bash
# The command never outlives pfmtop, not even when it changed credentials
# (the kernel then clears PR_SET_PDEATHSIG) and pfmtop was killed with
# SIGKILL: a guard process kills it, and with cgroup2 the command runs in a
# cgroup of its own, so a grandchild that double-forked into a new session
# goes too. Also when the whole process group of pfmtop is killed, and when
# pfmtop ends normally after the command did (what it left goes).
. "$(dirname "$0")/lib.sh"

need_root # setpriv to nobody, and the cgroup
need_cmd setpriv
id nobody >/dev/null 2>&1 || skip "no user nobody"
group=$(id -gn nobody)

err=$TMP/err
tag=$$$RANDOM
# The test's own sleeps, by their unique argument.
left() { pgrep -f "^sleep 7[1-4]\\.$tag$1\$" || true; }
gone() { [ -z "$(left "$1")" ]; }
nleft() { left "$1" | wc -l; }
show() { left "$1" | xargs -r ps -o pid,ppid,sid,user,args -p; }
killall_left() { for p in $(left "$1"); do kill -KILL "$p"; done; }
cleanup_add "for p in \$(pgrep -f '^sleep 7[1-4]\\.$tag'); do kill -KILL \$p; done"

grandchild=1
grep -q ' - cgroup2 ' /proc/self/mountinfo || {
	grandchild=0
	info "no cgroup2 mounted: only the command itself is checked, not what left its session"
}

# start_cmd N [launcher...]: pfmtop with a command that becomes nobody and
# leaves a grandchild in a session of its own: sleeps 71.$tag$N (the command),
# 72.$tag$N and 73.$tag$N (the new session's).
start_cmd() {
	local n=$1
	shift
	"$@" "$PFMTOP" -b -d 0.2 -e task-clock --no-hotspots -o /dev/null -- \
		setpriv --reuid=nobody --regid="$group" --clear-groups sh -c \
		"setsid sh -c 'sleep 72.$tag$n & exec sleep 73.$tag$n' </dev/null >/dev/null 2>&1 &
		 exec sleep 71.$tag$n" 2>"$err" &
	mon=$!
	cleanup_add "kill -KILL $mon"
	cur=$n # (wait_for has an n of its own)
	started() { [ "$(nleft "$cur")" -eq 3 ]; }
	wait_for 20 started || fail "case $n: the command and its grandchildren did not start" "$err"
	local pid
	pid=$(pgrep -f "^sleep 71\\.$tag$n\$")
	[ "$(stat -c %U "/proc/$pid")" = nobody ] || fail "case $n: the command did not become nobody"
	if [ "$grandchild" = 1 ] && ! grep -q '^0::.*/pfmtop-' "/proc/$pid/cgroup"; then
		info "the command is not in a cgroup of its own here: $(grep '^0::' "/proc/$pid/cgroup")"
		grandchild=0
	fi
}

# check_gone N WHAT: within 5 s the command is gone, and so are its
# grandchildren when the cgroup could be made.
check_gone() {
	local n=$1 what=$2
	cur=$n
	cmd_gone() { [ -z "$(pgrep -f "^sleep 71\\.$tag$cur\$" || true)" ]; }
	wait_for 5 cmd_gone || fail "$what: the command (now nobody's) still runs: $(show "$n")"
	if [ "$grandchild" = 1 ]; then
		wait_for 5 gone "$cur" || fail "$what: the grandchildren in their own session still run: $(show "$n")"
		cg_gone() { [ -z "$(find /sys/fs/cgroup -maxdepth 8 -type d -name "pfmtop-$mon" 2>/dev/null)" ]; }
		wait_for 5 cg_gone || fail "$what: the command's cgroup pfmtop-$mon was left behind"
	fi
	killall_left "$n"
}

# --- kill -9 of pfmtop ---
start_cmd 1
kill -KILL "$mon"
wait "$mon" 2>/dev/null || true
check_gone 1 "kill -9 of pfmtop"
pass "kill -9 of pfmtop: the setpriv'd command is gone$([ "$grandchild" = 1 ] && echo ", and its double-forked grandchildren")"

# --- kill -9 of pfmtop's whole process group (a job killed) ---
start_cmd 2 setsid
kill -KILL -- "-$mon"
wait "$mon" 2>/dev/null || true
check_gone 2 "kill -9 of pfmtop's process group"
pass "kill -9 of pfmtop's process group: nothing of the command left"

# --- a normal end: the command exits, what it started goes with pfmtop ---
if [ "$grandchild" = 1 ]; then
	set +e
	timeout 30 "$PFMTOP" -b -d 0.2 -e task-clock --no-hotspots -o /dev/null -- \
		setpriv --reuid=nobody --regid="$group" --clear-groups sh -c \
		"setsid sleep 74.${tag}3 </dev/null >/dev/null 2>&1 & exit 7" 2>"$err"
	RC=$?
	set -e
	expect_rc 7 "pfmtop -- setpriv ... sh -c 'setsid sleep & exit 7'" "$err"
	wait_for 5 gone 3 || fail "pfmtop ended normally, the command's setsid'd child still runs: $(left 3)"
	pass "a normal end: exit 7 passed through, the setsid'd child the command left is gone"
fi
