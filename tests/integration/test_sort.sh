#!/bin/bash
# --sort: by an event (largest first), by pid (ascending); an unknown column
# is a usage error that lists the valid ones.
. "$(dirname "$0")/lib.sh"

need_root

faulter=$(helper faulter)
out=$TMP/out err=$TMP/err

# --- by an event: of the test's own processes, the one faulting all the time
# comes before one that only spins (other processes on the machine may fault
# more than either: the order is checked between the test's own) ---
"$faulter" 60 & # killed at exit: outlives the runs below on a slow machine
fpid=$!
disown "$fpid"
cleanup_add "kill -KILL $fpid"
"$(helper spin)" 60 &
spid=$!
disown "$spid"
cleanup_add "kill -KILL $spid"
run "$out" "$err" timeout 20 "$PFMTOP" -b --format json -N 0 -d 0.5 -n 3 -e task-clock,page-faults \
	--no-hotspots --sort page-faults
expect_rc 0 "pfmtop -b --format json -N 0 -d 0.5 -n 3 --sort page-faults" "$out" "$err"
json_check "$out" "len(lines) == 3" "-n 3 should give 3 snapshots"
kill -0 "$fpid" || fail "faulter $fpid ended early"
kill -0 "$spid" || fail "spin $spid ended early"
# Snapshot 1 has no counters for them yet (they were busy before pfmtop started).
own="[(t['pid'], t['comm'], ctr(t, 'page-faults')) for t in x['tasks'] if t['pid'] in ($fpid, $spid)]"
for i in 1 2; do
	info "snapshot $((i + 1)) by page-faults, the test's own: $(json "$out" "(lambda x: $own)(lines[$i])")"
done
json_check "$out" "all((lambda p: p == [$fpid, $spid])([t['pid'] for t in x['tasks'] if t['pid'] in ($fpid, $spid)]) for x in lines[1:])" \
	"--sort page-faults: in snapshots 2 and 3, faulter $fpid (hundreds of thousands of faults a second) should come before spin $spid"
json_check "$out" "all(ctr(t, 'page-faults') is not None for x in lines[1:] for t in x['tasks'] if t['pid'] in ($fpid, $spid))" \
	"--sort page-faults: faulter and spin are busy, so they should be counted from snapshot 2"
json_check "$out" "all((lambda v: all(a >= b for a, b in zip(v, v[1:])))([ctr(t, 'page-faults') for t in x['tasks'] if ctr(t, 'page-faults') is not None]) for x in lines)" \
	"--sort page-faults: the counted rows are not in decreasing order of page-faults"
json_check "$out" "all((lambda v: v == sorted(v))([ctr(t, 'page-faults') is None for t in x['tasks']]) for x in lines)" \
	"--sort page-faults: a row without a page-faults figure comes before one with it"
pass "--sort page-faults: faulter $fpid before spin $spid, rows in decreasing order"

run "$out" "$err" timeout 20 "$PFMTOP" -b -N 0 -d 0.5 -n 2 -e task-clock,page-faults --no-hotspots --sort page-faults
expect_rc 0 "pfmtop -b -N 0 -d 0.5 -n 2 --sort page-faults" "$out" "$err"
grep -qE '^TASKS: top [0-9]+ of [0-9]+ by page-faults \(counters for tasks using 0\.1% CPU or more\)$' "$out" ||
	fail "text: no header line 'TASKS: top N of M by page-faults (counters for tasks using 0.1% CPU or more)'" "$out"
order=$(awk -v f="$fpid" -v s="$spid" '/^TASKS:/ { n++; next } n == 2 && ($1 == f || $1 == s) { print $1 }' "$out" | paste -sd' ')
[ "$order" = "$fpid $spid" ] || fail "text, snapshot 2: faulter $fpid should come before spin $spid (rows in order: '$order')" "$out"
pass "text: 'by page-faults' header, faulter before spin"

# --- by pid: ascending ---
run "$out" "$err" timeout 10 "$PFMTOP" -b --format json -N 0 -d 0.3 -n 2 -e task-clock --no-hotspots --sort pid
expect_rc 0 "pfmtop -b --format json -N 0 -n 2 --sort pid" "$out" "$err"
json_check "$out" "all((lambda v: v == sorted(v) and len(v) > 10)([(t['pid'], t['tid']) for t in x['tasks']]) for x in lines)" \
	"--sort pid: the task rows are not in ascending PID order"
json_check "$out" "all(x['tasks'][0]['pid'] == 1 for x in lines)" "--sort pid: the first row should be PID 1"
run "$out" "$err" timeout 10 "$PFMTOP" -b --format json -N 5 -d 0.3 -n 1 -e task-clock --no-hotspots --sort pid
expect_rc 0 "pfmtop -b --format json -N 5 -n 1 --sort pid" "$out" "$err"
want=$(printf '%s\n' /proc/[0-9]* | sed 's|^/proc/||' | sort -n | head -3 | paste -sd,)
json_check "$out" "[t['pid'] for t in lines[0]['tasks']][:3] == [$want]" \
	"--sort pid -N 5: the first rows should be the lowest PIDs [$want] (kernel threads, there for good)"
pass "--sort pid: ascending, from PID 1"

# --- an unknown column ---
run "$out" "$err" timeout 10 "$PFMTOP" -b -n 1 -e task-clock,page-faults --no-hotspots --sort bogus
expect_rc 2 "pfmtop --sort bogus" "$out" "$err"
[ "$(wc -l <"$err")" -eq 1 ] && grep -q '^pfmtop: .*bogus' "$err" ||
	fail "--sort bogus: expected one 'pfmtop: ...' line naming it on stderr" "$err"
for col in cpu pid command task-clock page-faults; do
	grep -qw -- "$col" "$err" || fail "--sort bogus: the message does not list the valid column '$col'" "$err"
done
[ ! -s "$out" ] || fail "--sort bogus printed a snapshot" "$out"
pass "--sort bogus: exit 2, $(cat "$err")"
