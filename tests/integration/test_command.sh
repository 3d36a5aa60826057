#!/bin/bash
# pfmtop -- COMMAND: exit status, signals, missing programs, inheritance,
# and the command's own output.
. "$(dirname "$0")/lib.sh"

touch_pages=$(helper touch_pages)
out=$TMP/out err=$TMP/err

# --- the command's exit status becomes pfmtop's ---
run "$out" "$err" "$PFMTOP" -b -e task-clock -- sh -c 'exit 3'
expect_rc 3 "pfmtop -b -- sh -c 'exit 3'" "$out" "$err"
grep -qE '^pfmtop .* final ' "$out" || fail "no final snapshot for a command that exited 3" "$out"
pass "exit 3 passed through"

run "$out" "$err" "$PFMTOP" -b -e task-clock -- sh -c 'kill -TERM $$'
expect_rc 143 "pfmtop -b -- sh -c 'kill -TERM \$\$' (killed by SIGTERM: 128+15)" "$out" "$err"
pass "death by SIGTERM gives 143"

# --- a program that does not exist ---
missing=pfmtop-no-such-program-$$
run "$out" "$err" "$PFMTOP" -b -e task-clock -- "$missing" arg
expect_rc 127 "pfmtop -b -- $missing" "$out" "$err"
[ "$(wc -l <"$err")" -eq 1 ] || fail "expected one line on stderr for a missing program" "$err"
grep -q "^pfmtop: .*$missing" "$err" || fail "stderr does not name the missing program '$missing'" "$err"
pass "missing program: 127 and one line naming it"

# --- counters follow children (inherit) ---
run "$out" "$err" "$PFMTOP" -b --format json -e page-faults -- \
	sh -c "'$touch_pages' 5000 & '$touch_pages' 5000; wait"
expect_rc 0 "pfmtop -e page-faults -- sh -c 'touch_pages 5000 & touch_pages 5000; wait'" "$out" "$err"
json_check "$out" 'final is not None' "no final snapshot" 
pf=$(json "$out" 'ctr(final["total"], "page-faults")')
info "page-faults of sh + 2 x touch_pages 5000: $pf"
check "$pf >= 10000" "final page-faults $pf: the two children alone fault 10000 times, so inheritance lost some" "$out"
pass "children counted: $pf page-faults >= 10000"

# --- with -o FILE the command's stdout reaches pfmtop's stdout, whole and in order ---
run "$out" "$err" "$PFMTOP" -b -e task-clock -o "$TMP/snap.txt" -- seq 1 20000
expect_rc 0 "pfmtop -b -o FILE -- seq 1 20000" "$out" "$err"
seq 1 20000 >"$TMP/want"
cmp -s "$out" "$TMP/want" || fail "the command's stdout differs from 'seq 1 20000' ($(wc -l <"$out") lines)" "$err"
grep -qE '^pfmtop .* final ' "$TMP/snap.txt" || fail "-o FILE holds no final snapshot" "$TMP/snap.txt"
! grep -qxE '[0-9]+' "$TMP/snap.txt" || fail "the command's output leaked into -o FILE" "$TMP/snap.txt"

# snapshots on stdout (a file here): the command's stdout goes to stderr
# (test_command_stdout.sh checks every format)
run "$out" "$err" "$PFMTOP" -b -e task-clock -- sh -c 'echo marker-from-command; echo to-stderr >&2'
expect_rc 0 "pfmtop -b -- sh -c 'echo ...'" "$out" "$err"
grep -qx marker-from-command "$err" || fail "the command's stdout line is missing from pfmtop's stderr" "$err"
! grep -qx marker-from-command "$out" || fail "the command's stdout line is mixed into the snapshots" "$out"
grep -qx to-stderr "$err" || fail "the command's stderr line is missing from pfmtop's stderr" "$err"
pass "command output kept, apart from the snapshots"
