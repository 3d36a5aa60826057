#!/bin/bash
# pfmtop -b -- COMMAND with the snapshots on standard output: the command's
# standard output goes to standard error instead (said once), so that what
# is on standard output parses as the format says (JSON Lines, CSV, folded
# stacks, metrics); --command-output FILE puts the command's output in
# FILE; -o FILE, --command-output - and text on a terminal leave it on
# standard output.
. "$(dirname "$0")/lib.sh"

out=$TMP/out err=$TMP/err
spin=$(helper spin)
notice="the command's standard output goes to standard error"
# Lines no format takes, and one that looks like a folded stack (the
# issue's) and one like a metric comment; then some CPU time to sample.
lines=(hello-from-command 'result 2059770585099539484' 'a,b' '# HELP x y')
script='for l in "$@"; do echo "$l"; done; echo to-stderr >&2; exec "$0" 0.3'
cmd=(sh -c "$script" "$spin" "${lines[@]}")

# apart WHAT: the command's lines are all on stderr, none on stdout, and
# the notice is on stderr once.
apart() {
	local l
	for l in "${lines[@]}" to-stderr; do
		grep -qxF -- "$l" "$err" || fail "$1: the command's line '$l' is not on stderr" "$err"
		! grep -qxF -- "$l" "$out" || fail "$1: the command's line '$l' is mixed into stdout" "$out"
	done
	[ "$(grep -cF "$notice" "$err")" -eq 1 ] || fail "$1: the notice is not on stderr once" "$err"
}

# --- JSON Lines: every line parses ---
run "$out" "$err" timeout 60 "$PFMTOP" -b --format json -e task-clock -- "${cmd[@]}"
expect_rc 0 "pfmtop -b --format json -- CMD" "$out" "$err"
python3 - "$out" <<'EOF' || fail "--format json with a command: stdout is not JSON Lines" "$out" "$err"
import json, sys
n = 0
for i, l in enumerate(open(sys.argv[1]), 1):
    try:
        json.loads(l)
    except ValueError as e:
        sys.exit("line %d is not JSON: %s: %.100s" % (i, e, l))
    n += 1
assert n >= 1, "no snapshot"
EOF
json_check "$out" 'final is not None' "--format json with a command: no final snapshot"
apart "--format json"
pass "json: every line of stdout parses; the command's output is on stderr"

# --- CSV: every row has the header's fields ---
run "$out" "$err" timeout 60 "$PFMTOP" -b --format csv -e task-clock -- "${cmd[@]}"
expect_rc 0 "pfmtop -b --format csv -- CMD" "$out" "$err"
python3 - "$out" <<'EOF' || fail "--format csv with a command: stdout is not one CSV table" "$out" "$err"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows and rows[0][:2] == ["time", "seq"], "the first line is not the header: %r" % rows[:1]
for i, r in enumerate(rows[1:], 2):
    assert len(r) == len(rows[0]), "line %d has %d fields, the header %d: %r" % (i, len(r), len(rows[0]), r)
assert len(rows) > 1, "no rows"
EOF
apart "--format csv"
pass "csv: every row has the header's field count; the command's output is on stderr"

# --- folded stacks: every line is "stack count", none the command's ---
run "$out" "$err" timeout 60 "$PFMTOP" -b -g --format folded -F 999 -e task-clock -- "${cmd[@]}"
expect_rc 0 "pfmtop -b -g --format folded -- CMD" "$out" "$err"
[ -s "$out" ] || fail "--format folded with a command: no stacks" "$err"
bad=$(grep -cvE '^.+ [0-9]+$' "$out" || true)
[ "$bad" -eq 0 ] || fail "--format folded with a command: $bad lines are not 'stack count'" "$out"
grep -qE '^spin(;| )' "$out" || fail "--format folded: no stack of the command's spin" "$out"
apart "--format folded"
pass "folded: every line is 'stack count'; the command's output is on stderr"

# --- OpenMetrics and Prometheus text: each snapshot parses ---
metric='^([a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [-+]?([0-9.eE+-]+|NaN|Inf)( [0-9.]+)?|# (HELP|TYPE|UNIT) [a-zA-Z_:][a-zA-Z0-9_:]* .*|# EOF)$'
for f in openmetrics prometheus; do
	run "$out" "$err" timeout 60 "$PFMTOP" -b --format "$f" -e task-clock -- "${cmd[@]}"
	expect_rc 0 "pfmtop -b --format $f -- CMD" "$out" "$err"
	bad=$(grep -cvE "$metric" "$out" || true)
	[ "$bad" -eq 0 ] || fail "--format $f with a command: $bad lines are not metrics" "$out"
	# one exposition per snapshot, each begins with pfmtop_build_info
	csplit -s -z -f "$TMP/expo.$f." "$out" '/^# HELP pfmtop_build_info /' '{*}'
	n=0
	for e in "$TMP/expo.$f".*; do
		n=$((n + 1))
		[ "$f" = prometheus ] || [ "$(tail -n1 "$e")" = "# EOF" ] ||
			fail "--format openmetrics: snapshot $n does not end with # EOF" "$e"
		if command -v promtool >/dev/null 2>&1; then
			set +e
			promtool check metrics <"$e" >"$TMP/prom.out" 2>&1
			rc=$?
			set -e
			# 3: lint remarks only (OpenMetrics counters' _total and
			# _created samples have their family's HELP, not their own)
			[ "$rc" -eq 0 ] || { [ "$f" = openmetrics ] && [ "$rc" -eq 3 ]; } ||
				fail "--format $f: promtool check metrics refuses snapshot $n (rc $rc)" "$TMP/prom.out" "$e"
		fi
	done
	[ "$n" -ge 1 ] || fail "--format $f: no snapshot" "$out"
	apart "--format $f"
	pass "$f: $n snapshots parse$(command -v promtool >/dev/null 2>&1 && echo " (promtool)"); the command's output is on stderr"
done

# --- text to a file or a pipe: kept apart as well ---
run "$out" "$err" timeout 60 "$PFMTOP" -b -e task-clock -- "${cmd[@]}"
expect_rc 0 "pfmtop -b -- CMD >FILE" "$out" "$err"
grep -qE '^pfmtop .* final ' "$out" || fail "text: no final snapshot" "$out"
apart "text into a file"
pass "text into a file: the command's output is on stderr"

# --- --command-output FILE: there, and neither on stdout nor on stderr ---
run "$out" "$err" timeout 60 "$PFMTOP" -b --format json -e task-clock --command-output "$TMP/cmd.log" -- "${cmd[@]}"
expect_rc 0 "pfmtop -b --format json --command-output FILE -- CMD" "$out" "$err"
for l in "${lines[@]}" to-stderr; do
	grep -qxF -- "$l" "$TMP/cmd.log" || fail "--command-output FILE: '$l' is not in FILE" "$TMP/cmd.log"
	! grep -qxF -- "$l" "$err" || fail "--command-output FILE: '$l' is on stderr too" "$err"
	! grep -qxF -- "$l" "$out" || fail "--command-output FILE: '$l' is on stdout" "$out"
done
! grep -qF "$notice" "$err" || fail "--command-output FILE: the notice says stderr" "$err"
json_check "$out" 'final is not None' "--command-output FILE: no final snapshot on stdout"
pass "--command-output FILE: the command's output is in FILE only"

# --- -o FILE: the command's stdout stays on stdout, no notice ---
run "$out" "$err" timeout 60 "$PFMTOP" -b --format json -e task-clock -o "$TMP/snap.json" -- "${cmd[@]}"
expect_rc 0 "pfmtop -b --format json -o FILE -- CMD" "$out" "$err"
printf '%s\n' "${lines[@]}" >"$TMP/want"
cmp -s "$out" "$TMP/want" || fail "-o FILE: stdout is not the command's output" "$out" "$TMP/want"
grep -qx to-stderr "$err" || fail "-o FILE: the command's stderr is not on stderr" "$err"
! grep -qF "$notice" "$err" || fail "-o FILE: a notice, yet nothing was moved" "$err"
json_check "$TMP/snap.json" 'final is not None' "-o FILE: no final snapshot in FILE"
pass "-o FILE: the command's stdout stays on stdout"

# --- --command-output -: the command keeps pfmtop's stdout ---
run "$out" "$err" timeout 60 "$PFMTOP" -b -e task-clock --command-output - -- "${cmd[@]}"
expect_rc 0 "pfmtop -b --command-output - -- CMD" "$out" "$err"
grep -qx hello-from-command "$out" || fail "--command-output -: the command's stdout is not on stdout" "$out"
! grep -qF "$notice" "$err" || fail "--command-output -: a notice, yet nothing was moved" "$err"
pass "--command-output -: the command's stdout stays on stdout"

# --- text on a terminal: for a person, as perf stat on a terminal ---
if command -v script >/dev/null 2>&1; then
	script -qec "'$PFMTOP' -b -e task-clock -- sh -c 'echo hello-on-tty' 2>'$TMP/tty.err'" /dev/null >"$out" </dev/null ||
		fail "pfmtop -b -- CMD on a terminal failed" "$out" "$TMP/tty.err"
	tr -d '\r' <"$out" | grep -qx hello-on-tty || fail "text on a terminal: the command's stdout is not on it" "$out"
	! grep -qF "$notice" "$TMP/tty.err" || fail "text on a terminal: a notice, yet nothing was moved" "$TMP/tty.err"
	pass "text on a terminal: the command's stdout is on the terminal with the snapshots"
else
	info "script(1) is missing: text on a terminal is not checked"
fi
