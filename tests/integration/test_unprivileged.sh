#!/bin/bash
# An unprivileged user under perf_event_paranoid 2: pfmtop falls back to the
# user's own processes, user space only, says so, and does not present
# kernel-accounted counts (context-switches would read 0) as numbers.
. "$(dirname "$0")/lib.sh"

need_root
# The test needs perf_event_paranoid 2 (set and put back by lib.sh).
paranoid_is 2
nobody_setup

out=$TMP/out err=$TMP/err

# --- text ---
# --wide: each note and EVENTS row on one line, for grep
run "$out" "$err" as_nobody "$TMP/bin/pfmtop" -b -n 1 -d 0.3 --wide
expect_rc 0 "pfmtop -b -n 1 -d 0.3 as nobody" "$out" "$err"
grep -qE '^host .* mode tasks \(own processes' "$out" ||
	fail "as nobody the header should say 'mode tasks (own processes ...)'" "$out"
grep -E '^note: ' "$out" | grep 'perf_event_paranoid' | grep -q 'CAP_PERFMON' ||
	fail "no note naming perf_event_paranoid and CAP_PERFMON" "$out"
line=$(grep -E '^context-switches ' "$out" || true)
[ -n "$line" ] || fail "context-switches missing from the EVENTS table" "$out"
grep -qE '^context-switches +not supported +- +[A-Za-z].*kernel' <<<"$line" ||
	fail "context-switches should be 'not supported' with a reason about kernel-space counting" "$out"
python3 - "$out" <<'EOF' || fail "context-switches shows a number in a table (it cannot be counted user-space only)" "$out"
import re, sys
rows = open(sys.argv[1]).read().split("\n")
seen = 0
for i, l in enumerate(rows):
    m = re.search(r"\bcontext-switches\b", l)
    if not m or l.split()[0] not in ("CPU", "PID", "TID"):
        continue
    end = m.end()  # numbers are right-aligned under their title
    for r in rows[i + 1:]:
        if not r.strip():
            break
        v = r[:end].split()[-1]
        seen += 1
        if re.fullmatch(r"[0-9.]+", v):
            print("row %r: context-switches cell %r" % (r, v), file=sys.stderr)
            sys.exit(1)
print("  context-switches cells checked: %d" % seen)
EOF
pass "text: own processes, paranoid/CAP_PERFMON note, context-switches n/s"
cp "$out" "$TMP/text.out"

# --- JSON, with a process of nobody's to count ---
setpriv --reuid=nobody --regid="$group" --clear-groups "$TMP/bin/spin" 3 &
spid=$!
disown "$spid"
cleanup_add "kill -KILL $spid"
spin_as_nobody() { [ "$(stat -c %U "/proc/$spid")" = nobody ] && [ "$(cat "/proc/$spid/comm")" = spin ]; }
wait_for 10 spin_as_nobody 2>/dev/null || fail "could not start spin as nobody (pid $spid)"
run "$out" "$err" as_nobody "$TMP/bin/pfmtop" -b -n 2 -d 0.3 --format json
expect_rc 0 "pfmtop -b -n 2 -d 0.3 --format json as nobody" "$out" "$err"
json_check "$out" "all(x['mode'] == 'tasks' and 'own processes' in x['target'] and x['privilege'] == 'unprivileged' for x in lines)" \
	"mode/target/privilege should be tasks / own processes / unprivileged"
json_check "$out" "all(any('perf_event_paranoid' in n and 'CAP_PERFMON' in n for n in x['notes']) for x in lines)" \
	"no note naming perf_event_paranoid and CAP_PERFMON"
json_check "$out" "all(e['state'] == 'not supported' and e['reason'] for x in lines for e in x['events'] if e['name'] == 'context-switches')" \
	"context-switches should be 'not supported' with a reason"
json_check "$out" "all(ctr(r, 'context-switches') is None for x in lines for r in x['tasks'] + [x['total']])" \
	"context-switches has a numeric value somewhere (it would be a false 0)"
# task-clock counts user space fine: it must not be reported as missing.
json_check "$out" "all(e['state'] != 'not supported' for x in lines for e in x['events'] if e['name'] == 'task-clock')" \
	"task-clock is reported 'not supported' as nobody, but it opens for one's own tasks"
json_check "$out" "any(t['pid'] == $spid and t['counted'] for t in last['tasks'])" \
	"nobody's running process $spid (spin) is not among the counted tasks of the last snapshot"
# What spin got of the CPUs (its /proc CPU%): all of one on an idle machine,
# less when other work shares them.
json_check "$out" "any(t['pid'] == $spid and (ctr(t, 'task-clock') or 0) > 0 and ctr(t, 'task-clock') >= 0.5 * last['interval_s'] * 10 * (t['cpu_pct'] or 0) for t in last['tasks'])" \
	"spin burns CPU all the time: its task-clock should be at least half of the CPU time /proc says it had"
pass "json: nobody's spin counted, context-switches null with a reason"

# --- the text run above, where nobody may have had no process at all ---
# task-clock exists and opens for one's own tasks (--probe says so): having
# nothing to count yet must not turn into "does not exist on this machine".
line=$(grep -E '^task-clock ' "$TMP/text.out")
! grep -qiE 'does not exist|not supported' <<<"$line" ||
	fail "task-clock is reported as not supported / nonexistent when nobody has no processes to count" "$TMP/text.out"
pass "task-clock not misreported when there is nothing to count"
