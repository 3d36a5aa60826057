#!/bin/bash
# The sampling switches: --no-hotspots turns sampling off (JSON
# "sampling":{"enabled":false}, no HOTSPOTS section, counters unchanged);
# bad --mmap-pages / --sample-event values are one-line usage errors (exit 2)
# that never start the command; and without a hardware PMU the text output
# says that cpu-clock stands in for cycles, and why.
. "$(dirname "$0")/lib.sh"

spin=$(helper spin)
out=$TMP/out err=$TMP/err

# --- --no-hotspots: JSON ---
run "$out" "$err" "$PFMTOP" -b --format json -d 0.2 --no-hotspots -- "$spin" 0.5
expect_rc 0 "pfmtop -b --format json --no-hotspots -- spin 0.5" "$out" "$err"
json_check "$out" 'final is not None' "no final snapshot"
[ "$(grep -c . "$out")" = "$(grep -cF '"sampling":{"enabled":false}' "$out")" ] ||
	fail "with --no-hotspots every JSON line should hold \"sampling\":{\"enabled\":false}" "$out"
json_check "$out" 'all(x["sampling"] == {"enabled": False} for x in lines)' \
	"with --no-hotspots sampling should be exactly {\"enabled\": false}"
json_check "$out" 'all(not x.get("hotspots") or (not x["hotspots"]["rows"] and x["hotspots"]["rows_total"] == 0) for x in lines)' \
	"with --no-hotspots there should be no hotspot rows"
json_check "$out" 'ctr(final["total"], "task-clock") >= 450' "with --no-hotspots the counters should still count (task-clock of spin 0.5)"
# The same run without it does sample: the switch is what turned it off.
run "$out" "$err" "$PFMTOP" -b --format json -d 0.2 -F 1000 -- "$spin" 0.5
expect_rc 0 "pfmtop -b --format json -F 1000 -- spin 0.5" "$out" "$err"
json_check "$out" 'final["sampling"]["enabled"] is True and final["sampling"]["total"]["samples"] >= 250 and len(final["hotspots"]["rows"]) > 0' \
	"without --no-hotspots spin 0.5 at 1000 Hz should give >= 250 samples and hotspot rows"
pass "--no-hotspots: \"sampling\":{\"enabled\":false}, no rows, counters still counted"

# --- --no-hotspots: text ---
run "$out" "$err" "$PFMTOP" -b -d 0.2 --no-hotspots -- "$spin" 0.3
expect_rc 0 "pfmtop -b --no-hotspots -- spin 0.3" "$out" "$err"
grep -q '^TASKS' "$out" || fail "text with --no-hotspots: the TASKS table is missing" "$out"
! grep -q '^HOTSPOTS' "$out" || fail "text with --no-hotspots: there is a HOTSPOTS section" "$out"
! grep -q '^SAMPLING HEALTH' "$out" || fail "text with --no-hotspots: there is a SAMPLING HEALTH section" "$out"
run "$out" "$err" "$PFMTOP" -b -d 0.2 -F 1000 -- "$spin" 0.3
expect_rc 0 "pfmtop -b -F 1000 -- spin 0.3" "$out" "$err"
grep -q '^HOTSPOTS' "$out" && grep -q '^SAMPLING HEALTH' "$out" ||
	fail "text without --no-hotspots: HOTSPOTS and SAMPLING HEALTH sections expected" "$out"
pass "--no-hotspots: no HOTSPOTS / SAMPLING HEALTH sections in text"

# --- usage errors: one 'pfmtop:' line, exit 2, nothing on stdout, command not run ---
usage_error() {
	local word=$1
	shift
	rm -f "$TMP/ran"
	run "$out" "$err" timeout 10 "$PFMTOP" -b "$@" -- touch "$TMP/ran"
	local what="pfmtop -b $* -- touch FILE"
	expect_rc 2 "$what" "$out" "$err"
	[ "$(wc -l <"$err")" -eq 1 ] || fail "$what: stderr should be exactly one line" "$err"
	grep -q '^pfmtop: ' "$err" || fail "$what: stderr does not start with 'pfmtop: '" "$err"
	grep -qF -- "$word" "$err" || fail "$what: the message does not mention '$word'" "$err"
	[ ! -s "$out" ] || fail "$what: printed on stdout" "$out"
	[ ! -e "$TMP/ran" ] || fail "$what: the command ran despite the usage error"
	info "$what -> $(cat "$err")"
}
usage_error --mmap-pages --mmap-pages 3
usage_error --mmap-pages --mmap-pages 0
usage_error bogus --sample-event bogus
pass "--mmap-pages 3/0 and --sample-event bogus: one-line usage errors, exit 2"

# --- no hardware PMU: the text says cpu-clock stands in for cycles, and why ---
if ! command -v perf >/dev/null 2>&1; then
	info "perf is not installed: cannot tell whether cycles count here; fallback line not checked"
elif no_hw_pmu; then
	run "$out" "$err" "$PFMTOP" -b -d 0.2 -- "$spin" 0.3
	expect_rc 0 "pfmtop -b -- spin 0.3 (defaults)" "$out" "$err"
	line=$(grep -m1 -E 'cpu-clock instead of cycles' "$out") ||
		fail "perf stat cannot count cycles here, but the text output has no line saying cpu-clock is sampled instead of cycles" "$out"
	grep -qE 'cpu-clock instead of cycles.*(PMU|not supported|hardware)' <<<"$line" ||
		fail "the fallback line does not say why (no PMU / not supported / hardware): $line" "$out"
	grep -qE '^HOTSPOTS.*cpu-clock' "$out" || fail "the HOTSPOTS header does not name cpu-clock as the sampled event" "$out"
	run "$out" "$err" "$PFMTOP" -b --format json -d 0.2 -- "$spin" 0.3
	expect_rc 0 "pfmtop -b --format json -- spin 0.3 (defaults)" "$out" "$err"
	json_check "$out" 'final["sampling"]["event"] == "cpu-clock" and "cycles" in final["sampling"]["fallback_reason"]' \
		"JSON: sampling.event should be cpu-clock with a fallback_reason about cycles"
	pass "no hardware PMU: '$line'"
else
	run "$out" "$err" "$PFMTOP" -b --format json -d 0.2 -- "$spin" 0.3
	expect_rc 0 "pfmtop -b --format json -- spin 0.3 (defaults)" "$out" "$err"
	json_check "$out" 'final["sampling"]["event"] == "cycles" and not final["sampling"]["fallback_reason"]' \
		"cycles count here (perf stat), so pfmtop should sample cycles without a fallback"
	pass "cycles count here: sampled, no fallback"
fi
