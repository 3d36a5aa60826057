#!/bin/bash
# --cgroup: a cgroup v2 counted on every CPU. A test cgroup is made under the
# cgroup2 mount, a workload put in it, and its CGROUPS row checked; --cgroup
# auto takes it while it holds tasks; a cgroup that does not exist is a usage
# error. The cgroup is emptied and removed on every exit.
. "$(dirname "$0")/lib.sh"

need_root

root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$root" ] && [ -d "$root" ] || skip_host "no cgroup2 hierarchy mounted"
name=pfmtop-test-$$
cg=$root/$name
touch_pages=$(helper touch_pages)
spin=$(helper spin)
out=$TMP/out err=$TMP/err

mkdir "$cg" 2>"$err" || skip_host "cannot make a cgroup under $root: $(cat "$err")"
# Kill whatever is left in it and remove it; rmdir fails (EBUSY) until its
# last task is gone for good, so retry for up to 5 s.
cg_remove() {
	local n
	[ -d "$cg" ] || return 0
	for n in $(seq 100); do
		if [ -e "$cg/cgroup.kill" ]; then
			echo 1 >"$cg/cgroup.kill"
		else
			xargs -r kill -KILL <"$cg/cgroup.procs"
		fi
		rmdir "$cg" 2>/dev/null && return 0
		[ "$n" -gt 1 ] || echo "  rmdir $cg: busy, retrying" >&2
		sleep 0.05
	done
	echo "cannot remove $cg: $(tr '\n' ' ' <"$cg/cgroup.events")procs: $(tr '\n' ' ' <"$cg/cgroup.procs")" >&2
	return 1
}
cleanup_add cg_remove

# in_cg CMD...: run CMD in the background inside the cgroup (the shell joins
# it, then execs CMD); its PID is left in BG.
in_cg() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" "$@" &
	BG=$!
	disown "$BG"
	cleanup_add "kill -KILL $BG"
}

# --- a workload in the cgroup is counted in its row ---
# Once pfmtop's counters run (its first snapshot is out): the shell joins the
# cgroup, then execs the workload.
monitor_start "$out" "$err" -b --format json -d 0.3 -e task-clock,page-faults --no-hotspots --cgroup "$name"
in_cg "$touch_pages" 20000
wpid=$BG
wait_gone "$wpid" 20 || fail "touch_pages 20000 in the cgroup still runs after 20 s"
monitor_stop "$out" "$err"
json_check "$out" "len(lines) >= 2" "pfmtop -d 0.3 should have given 2 snapshots or more"
json_check "$out" "all([g['cgroup'] for g in x['cgroups']] == ['/$name'] for x in lines)" \
	"with --cgroup $name every snapshot should have exactly one CGROUPS row, '/$name'"
json_check "$out" "all(state(g, 'page-faults') in ('ok', 'multiplexed') for x in lines for g in x['cgroups'])" \
	"the CGROUPS row of /$name is not counted"
pf=$(json "$out" "sum(ctr(g, 'page-faults') for x in lines for g in x['cgroups'])")
info "/$name: $pf page-faults over $(nlines "$out") snapshots (touch_pages 20000 and its shell)"
check "$pf >= 20000" "the CGROUPS row of /$name summed $pf page-faults over the snapshots; touch_pages 20000 ran in it" "$out"
check "$pf <= 21000" "the CGROUPS row of /$name summed $pf page-faults; only touch_pages 20000 and its shell ran in it" "$out"
pass "--cgroup $name: $pf page-faults"

# --- text: the CGROUPS table ---
run "$out" "$err" timeout 10 "$PFMTOP" -b -d 0.3 -n 1 -e task-clock,page-faults --no-hotspots --cgroup "$name"
expect_rc 0 "pfmtop -b -n 1 --cgroup $name" "$out" "$err"
grep -q '^CGROUP' "$out" || fail "the text output has no CGROUPS table (a line starting 'CGROUP')" "$out"
grep -qE "^ */$name( |$)|  /$name\$" "$out" || fail "the text CGROUPS table has no row /$name" "$out"
pass "text: CGROUPS table with /$name"

# --- auto: only while the cgroup holds tasks ---
run "$out" "$err" timeout 10 "$PFMTOP" -b --format json -d 0.3 -n 1 -e task-clock --no-hotspots --cgroup auto
expect_rc 0 "pfmtop -b -n 1 --cgroup auto (cgroup $name empty)" "$out" "$err"
json_check "$out" "'/$name' not in [g['cgroup'] for g in lines[0]['cgroups']]" \
	"--cgroup auto took /$name, which holds no task"
in_cg "$spin" 5
spid=$BG
for _ in $(seq 40); do
	grep -qx "$spid" "$cg/cgroup.procs" && break
	sleep 0.05
done
grep -qx "$spid" "$cg/cgroup.procs" || fail "could not put spin into $cg"
run "$out" "$err" timeout 10 "$PFMTOP" -b --format json -N 0 -d 0.5 -n 2 -e task-clock --no-hotspots --cgroup auto
expect_rc 0 "pfmtop -b -n 2 --cgroup auto (spin in cgroup $name)" "$out" "$err"
json_check "$out" "all('/$name' in [g['cgroup'] for g in x['cgroups']] for x in lines)" \
	"--cgroup auto did not take /$name while spin $spid runs in it"
tc=$(json "$out" "[ctr(g, 'task-clock') for g in lines[-1]['cgroups'] if g['cgroup'] == '/$name'][0]")
ival=$(json "$out" "lines[-1]['interval_s'] * 1000")
info "auto: /$name task-clock $tc ms in a $(py "'%.0f' % $ival") ms interval (spin $spid)"
check "$tc >= 0.2 * $ival and $tc <= 1.05 * $ival + 10" \
	"--cgroup auto: /$name counted $tc ms of task-clock in a $ival ms interval while spin (one busy thread) ran in it" "$out"
json_check "$out" "[t['cgroup'] for t in lines[-1]['tasks'] if t['pid'] == $spid] == ['/$name']" \
	"the task row of spin $spid should say cgroup /$name"
pass "--cgroup auto takes /$name while it holds spin, and its task row says so"

# --- a cgroup that does not exist ---
run "$out" "$err" timeout 10 "$PFMTOP" -b -n 1 --no-hotspots --cgroup does-not-exist
expect_rc 2 "pfmtop --cgroup does-not-exist" "$out" "$err"
[ "$(wc -l <"$err")" -eq 1 ] && grep -q '^pfmtop: .*does-not-exist' "$err" ||
	fail "--cgroup does-not-exist: expected one 'pfmtop: ...' line naming it on stderr" "$err"
[ ! -s "$out" ] || fail "--cgroup does-not-exist printed a snapshot" "$out"
pass "--cgroup does-not-exist: exit 2, $(cat "$err")"

cg_remove 2>"$err" || fail "the test cgroup $cg could not be removed" "$err"
