#!/bin/bash
# Input is checked, not guessed: a PID given three times counts once; empty
# list items, hex, nan and inf are refused with exit 2; an unknown PMU is a
# usage error (2) like any unknown event; a long echoed list is cut short
# after the reason, never before it; a metric format that would print an
# empty cell is a preset error with file:line:col and a caret.
. "$(dirname "$0")/lib.sh"

out=$TMP/out err=$TMP/err
spin=$(helper spin)

# refused WORD ARGS...: pfmtop ARGS exits 2 at once with one 'pfmtop:' line
# on stderr that names WORD.
refused() {
	local word=$1
	shift
	run "$out" "$err" timeout 10 "$PFMTOP" "$@" </dev/null
	[ "$RC" -ne 124 ] || fail "pfmtop $*: still running after 10 s" "$out" "$err"
	expect_rc 2 "pfmtop $*" "$out" "$err"
	# one line; an event refused in part has the list and a caret under it
	local lines
	lines=$(wc -l <"$err")
	{ [ "$lines" -eq 1 ] || { [ "$lines" -eq 3 ] && sed -n 3p "$err" | grep -qE '^ +\^~*$'; }; } &&
		head -n 1 "$err" | grep -q '^pfmtop: ' ||
		fail "pfmtop $*: expected one 'pfmtop: ...' line on stderr (and a caret under the part refused)" "$err"
	grep -qF -- "$word" "$err" || fail "pfmtop $*: the message does not mention '$word'" "$err"
	info "pfmtop $* -> $(cat "$err")"
}

# --- numbers: decimal only ---
refused "-d" -b -n 1 -d 0x10
refused "-d" -b -n 1 -d nan
refused "-d" -b -n 1 -d inf
refused "-d" -b -n 1 -d 1e1
refused "--cpu-min" -b -n 1 -d 0.1 --cpu-min nan
refused "--cpu-min" -b -n 1 -d 0.1 --cpu-min inf
refused "--cpu-min" -b -n 1 -d 0.1 --cpu-min 0x1
refused "-F" -b -n 1 -d 0.1 -F 0x10
refused "-c" -b -n 1 -d 0.1 -c nan
refused "-n" -b -n +3 -d 0.1
refused "-N" -b -n 1 -d 0.1 -N 0x2
refused "--hot" -b -n 1 -d 0.1 --hot 1e2
refused "--mmap-pages" -b -n 1 -d 0.1 --mmap-pages 0x10
pass "hex, nan, inf, exponents and signs are refused for -d, --cpu-min, -F, -c, -n, -N, --hot, --mmap-pages"

# --- lists: no empty items ---
refused "empty item" -b -n 1 -d 0.1 -p 1,
refused "empty item" -b -n 1 -d 0.1 -p ,1
refused "empty item" -b -n 1 -d 0.1 -p 1,,2
refused "0,,1" -b -n 1 -d 0.1 -C 0,,1
refused "0," -b -n 1 -d 0.1 -C 0,
refused "empty item" -b -n 1 -d 0.1 --cgroup a,,b
pass "empty list items are refused"

# --- a PID given three times counts once ---
"$spin" 30 &
spid=$!
disown "$spid"
cleanup_add "kill -KILL $spid"
run "$out" "$err" timeout 20 "$PFMTOP" -b -n 2 -d 0.4 --no-hotspots --format json -p "$spid,$spid,$spid"
expect_rc 0 "pfmtop -p $spid,$spid,$spid" "$out" "$err"
json_check "$out" "all(len([t for t in x['tasks'] if t['pid'] == $spid]) == 1 for x in lines)" \
	"process $spid should be one row"
json_check "$out" "all(t['threads'] == 1 for x in lines for t in x['tasks'] if t['pid'] == $spid)" \
	"spin has one thread: THR must be 1, not 3"
json_check "$out" "last['target'] == 'PID $spid'" "the target should name PID $spid once"
# One thread cannot run more than the interval: counted three times it would.
json_check "$out" "all(ctr(t, 'task-clock') <= x['interval_s'] * 1000 * 1.25 for x in lines for t in x['tasks'] if t['pid'] == $spid)" \
	"task-clock of the single-threaded spin exceeds its interval: it was counted more than once"
pass "-p P,P,P: one row, THR 1, task-clock within the interval"

# --- unknown events, PMU terms included, are usage errors ---
refused "cpu" -b -n 1 -d 0.1 -e cpu/x=1/
refused "no_such_pmu_here" -b -n 1 -d 0.1 -e no_such_pmu_here/event=1/
pass "-e PMU/term/ with no such PMU exits 2"

# --- a long list: the reason first, the list cut short ---
list=$(python3 -c "print(','.join('task-clock:u' if i == 0 else 'ev%d' % i for i in range(70)))")
refused "too many events" -b -n 1 -e "$list"
grep -qE '^pfmtop: -e: too many events \(at most 64\)' "$err" ||
	fail "the reason should come first: 'pfmtop: -e: too many events (at most 64) ...'" "$err"
grep -qF '(70 events)' "$err" || fail "the elided list should say it holds 70 events" "$err"
[ "$(wc -c <"$err")" -lt 300 ] || fail "the message echoes the whole list ($(wc -c <"$err") bytes)" "$err"
pass "70 events: reason first, list elided"

# --- a metric format that would print an empty cell ---
cat >"$TMP/wide.ini" <<'INI'
[preset wide]
events = task-clock
metric.x = task-clock
metric.x.format = %9999999.3f
INI
run "$out" "$err" "$PFMTOP" --check-preset "$TMP/wide.ini"
expect_rc 2 "--check-preset wide.ini" "$out" "$err"
grep -qF "wide.ini:4:20: format width too large (at most 32)" "$out" "$err" ||
	fail "no file:line:col message for the format width" "$out" "$err"
grep -q '^ *\^$' "$out" "$err" || fail "no caret under the width" "$out" "$err"
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.1 --preset "$TMP/wide.ini"
expect_rc 2 "-b --preset wide.ini" "$out" "$err"
grep -qF "wide.ini:4:20: format width too large" "$err" || fail "no message for the format width" "$err"
sed -i 's/%9999999.3f/%.99f/' "$TMP/wide.ini"
run "$out" "$err" "$PFMTOP" --check-preset "$TMP/wide.ini"
expect_rc 2 "--check-preset with %.99f" "$out" "$err"
grep -qF "wide.ini:4:21: format precision too large (at most 17)" "$out" ||
	fail "no file:line:col message for the precision" "$out" "$err"
pass "metric formats: width and precision limited, file:line:col with a caret"
