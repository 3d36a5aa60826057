#!/bin/bash
# pfmtop never orphans its command and says how a run ended: a reader that
# goes away (head) stops the printing, not the counting; kill -9 of pfmtop
# takes the command with it; SIGTERM, SIGINT and SIGHUP are passed on to the
# command, whose status pfmtop exits with; without a command a signal ends
# the run with 128 + its number, after the final totals; closed standard
# output is not taken over by another fd.
. "$(dirname "$0")/lib.sh"

need_root # the system-wide runs

out=$TMP/out err=$TMP/err
# A unique argument marks the test's own commands: ps finds them, and nothing else.
tag=$$$RANDOM
left() { pgrep -f "^sleep $1" || true; }
gone() { [ -z "$(left "$1")" ]; }

# --- a pipe whose reader exits: counting goes on to the command's end ---
set +e
timeout 30 bash -c '"$1" -b -d 0.2 -e task-clock --no-hotspots -- sleep "$2" | head -n 1 >"$3"; echo "${PIPESTATUS[0]}" >"$4"' \
	_ "$PFMTOP" "2.$tag" "$out" "$TMP/rc" 2>"$err"
set -e
[ -s "$TMP/rc" ] || fail "pfmtop -b -- sleep 2 | head -1: did not finish within 30 s" "$err"
rc=$(cat "$TMP/rc")
[ "$rc" -eq 0 ] || fail "pfmtop -b -- sleep 2 | head -1: exit $rc, expected sleep's 0 (not 141: SIGPIPE)" "$err"
grep -q '^pfmtop ' "$out" || fail "head -1 got no snapshot line" "$out"
gone "2.$tag" || fail "sleep 2.$tag still runs after pfmtop ended"
pass "pfmtop -- sleep 2 | head -1: exit 0 after sleep ended, nothing left running"

# Without a command, a reader that goes away ends the run quietly.
set +e
timeout 30 bash -c '"$1" -b -d 0.1 -e task-clock --no-hotspots | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}" >"$2"' \
	_ "$PFMTOP" "$TMP/rc" 2>"$err"
set -e
[ "$(cat "$TMP/rc" 2>/dev/null)" = 0 ] || fail "pfmtop -b | head -1: exit '$(cat "$TMP/rc" 2>/dev/null)', expected 0" "$err"
[ ! -s "$err" ] || fail "pfmtop -b | head -1: a message on stderr" "$err"
pass "pfmtop -b | head -1: exit 0, silent"

# --- kill -9 of pfmtop takes its command along (PR_SET_PDEATHSIG) ---
"$PFMTOP" -b -d 0.2 -e task-clock --no-hotspots -o /dev/null -- sleep "30.$tag" 2>"$err" &
mon=$!
cleanup_add "kill -KILL $mon; pkill -KILL -f '^sleep 30.$tag'"
runs() { [ -n "$(left "30.$tag")" ]; }
wait_for 20 runs || fail "sleep 30.$tag did not start under pfmtop" "$err"
kill -KILL "$mon"
wait "$mon" 2>/dev/null || true
wait_for 10 gone "30.$tag" || fail "kill -9 of pfmtop left its command running: $(left "30.$tag")"
pass "kill -9 of pfmtop: its command ended too"


# --- SIGTERM, SIGINT, SIGHUP go to the command; its status is pfmtop's ---
# (env --default-signal: a background job of a script starts with SIGINT
# ignored, and the command would inherit that.)
for sig in TERM INT HUP; do
	num=$(kill -l "$sig")
	: >"$out"
	env --default-signal "$PFMTOP" -b -d 0.2 -e task-clock --no-hotspots --format json -- \
		sleep "40.$tag" >"$out" 2>"$err" &
	mon=$!
	cleanup_add "kill -KILL $mon"
	started() { [ -n "$(left "40.$tag")" ] && [ "$(nlines "$out")" -ge 1 ]; }
	wait_for 20 started || fail "SIG$sig: the command did not start, or no snapshot came" "$out" "$err"
	signal_and_wait "$sig" "$mon"
	expect_rc $((128 + num)) "pfmtop -- sleep sent SIG$sig (sleep killed by it: 128 + $num)" "$out" "$err"
	json_check "$out" "last['final'] is True" "SIG$sig: the last snapshot is not the command's final totals"
	gone "40.$tag" || fail "SIG$sig: sleep 40.$tag still runs"
	pass "SIG$sig with a command: passed on, final totals, exit $RC"
done

# --- without a command: 128 + the signal, after the final totals ---
for sig in TERM INT HUP; do
	num=$(kill -l "$sig")
	: >"$out"
	env --default-signal "$PFMTOP" -b -d 0.2 -e task-clock --no-hotspots --format json >"$out" 2>"$err" &
	mon=$!
	cleanup_add "kill -KILL $mon"
	first() { [ "$(nlines "$out")" -ge 1 ]; }
	wait_for 20 first || fail "SIG$sig system-wide: no first snapshot" "$out" "$err"
	signal_and_wait "$sig" "$mon"
	expect_rc $((128 + num)) "pfmtop (system-wide) sent SIG$sig" "$out" "$err"
	json_check "$out" "last['final'] is True and all(not x['final'] for x in lines[:-1])" \
		"SIG$sig system-wide: the last snapshot should be the final totals, and only it"
	pass "SIG$sig system-wide: final totals, exit $RC"
done

# --- closed standard output: no other fd takes its place ---
set +e
"$PFMTOP" -b -n 1 -d 0.1 -e task-clock --no-hotspots >&- 2>"$err"
RC=$?
set -e
expect_rc 0 "pfmtop -b -n 1 with standard output closed" "$err"
[ ! -s "$err" ] || fail "pfmtop -b -n 1 >&-: a message on stderr" "$err"
pass "standard output closed: exit 0, silent"
