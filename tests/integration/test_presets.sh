#!/bin/bash
# Presets end to end: every shipped preset validates here, a user's own
# 10-line preset with a fallback and a metric counts and shows its column,
# and a typo in it gives file:line:col with a caret and exit 2.
. "$(dirname "$0")/lib.sh"

out=$TMP/out err=$TMP/err
touch_pages=$(helper touch_pages)

# --- every shipped preset: valid (0) or valid with gaps on this machine (1) ---
for ini in "$PFMTOP_SRCDIR"/src/presets/*.ini; do
	name=$(basename "$ini" .ini)
	run "$out" "$err" "$PFMTOP" --check-preset "$name"
	[ "$RC" -eq 0 ] || [ "$RC" -eq 1 ] || fail "--check-preset $name: exit $RC (2 = invalid)" "$out" "$err"
	grep -q "result:" "$out" || fail "--check-preset $name printed no result line" "$out"
	run "$out" "$err" "$PFMTOP" --check-preset "$ini"
	[ "$RC" -le 1 ] || fail "--check-preset $ini: exit $RC" "$out" "$err"
done
pass "every shipped preset passes --check-preset"

run "$out" "$err" "$PFMTOP" --list-presets
expect_rc 0 "--list-presets" "$out" "$err"
for ini in "$PFMTOP_SRCDIR"/src/presets/*.ini; do
	grep -qE "^$(basename "$ini" .ini) +built-in" "$out" ||
		fail "--list-presets lacks $(basename "$ini" .ini) as built-in" "$out"
done
pass "--list-presets lists the shipped presets with their origin"

# --- a user's preset: fallback for cycles, a metric over software events ---
cat >"$TMP/mine.ini" <<'INI'
[preset mine]
description = Faults per ms of CPU, with cycles or a software stand-in
events = {cycles, instructions}, task-clock, page-faults
fallback.cycles = cpu-clock
metric.IPC = instructions / cycles
metric.fpms = page-faults / task-clock * 1e6
metric.fpms.title = flt/ms
metric.fpms.format = %.3f
sort = page-faults
INI
run "$out" "$err" "$PFMTOP" --check-preset "$TMP/mine.ini"
[ "$RC" -le 1 ] || fail "--check-preset mine.ini: exit $RC" "$out" "$err"
grep -q "fpms = page-faults / task-clock \* 1000000 *ok" "$out" ||
	fail "the check does not show the fpms metric as available" "$out"
if no_hw_pmu; then
	[ "$RC" -eq 1 ] || fail "without a PMU instructions is unavailable: expected exit 1, got $RC" "$out"
	grep -q "fallback cpu-clock" "$out" || fail "the check does not say cpu-clock stands in for cycles" "$out"
fi

run "$out" "$err" "$PFMTOP" -b --format json --no-hotspots --preset "$TMP/mine.ini" -- "$touch_pages" 20000
expect_rc 0 "pfmtop -b --preset mine.ini -- touch_pages 20000" "$out" "$err"
json_check "$out" "final['preset'] == 'mine'" "the snapshot does not name preset mine"
json_check "$out" "ctr(final['total'], 'page-faults') >= 20000" "page-faults of touch_pages 20000 below 20000"
# The metric is computed from the same figures: page-faults / task-clock(ms).
json_check "$out" "abs(final['total']['metrics']['fpms'] - ctr(final['total'], 'page-faults') / ctr(final['total'], 'task-clock')) < 0.01 * final['total']['metrics']['fpms']" \
	"fpms is not page-faults per ms of task-clock"
if no_hw_pmu; then
	json_check "$out" "[e['name'] for e in final['events']][0] == 'cpu-clock'" "cpu-clock did not replace cycles"
	json_check "$out" "final['total']['metrics']['IPC'] is None" "IPC must be unavailable (null) without instructions"
	json_check "$out" "any('cpu-clock stands in for cycles' in n for n in final['notes'])" "no note says cpu-clock stands in for cycles"
fi
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.2 --no-hotspots --preset "$TMP/mine.ini"
expect_rc 0 "pfmtop -b -n 1 --preset mine.ini" "$out" "$err"
grep -q "flt/ms" "$out" || fail "the text snapshot lacks the flt/ms column" "$out"
grep -q "by page-faults" "$out" || fail "the preset's sort (page-faults) is not used" "$out"
pass "a user preset counts, falls back, and shows its metric column"

# --- a typo: file:line:col, the line, a caret, exit 2, nothing run ---
sed 's|instructions / cycles|instructions / cylces|' "$TMP/mine.ini" >"$TMP/bad.ini"
run "$out" "$err" "$PFMTOP" -b -n 1 --preset "$TMP/bad.ini"
expect_rc 2 "pfmtop with a typo in the preset" "$out" "$err"
grep -q "bad.ini:5:29: unknown event 'cylces'" "$err" || fail "no file:line:col message for the typo" "$err"
grep -q '^ *\^$' "$err" || fail "no caret line under the typo" "$err"
[ ! -s "$out" ] || fail "a snapshot was written despite the broken preset" "$out"
run "$out" "$err" "$PFMTOP" --check-preset "$TMP/bad.ini"
expect_rc 2 "--check-preset on the typo" "$out" "$err"
run "$out" "$err" "$PFMTOP" -b -n 1 --preset no-such-preset
expect_rc 2 "--preset no-such-preset" "$out" "$err"
grep -q "unknown preset 'no-such-preset'" "$err" || fail "no message for an unknown preset" "$err"
run "$out" "$err" "$PFMTOP" -b -n 1 --preset memory -e task-clock
expect_rc 2 "--preset with -e" "$out" "$err"
pass "a typo gives file:line:col with a caret and exit 2"

# --- an event this machine lacks is a gap (n/s); a name nothing has is a
# typo, refused as -e refuses it (exit 2) ---
# libpfm4's events of a PMU of 2007 (AMD family 10h) are gaps, a name it
# lacks is a typo
barcelona=amd64_fam10h_barcelona
pfm_gap= pfm_typo=
if [ "$(uname -m)" = x86_64 ] && ! "$PFMTOP" --version | grep -q 'libpfm4 not installed'; then
	pfm_gap=", $barcelona::RETIRED_INSTRUCTIONS"
	pfm_typo=$barcelona::NO_SUCH_EVENT
fi
printf '[preset gap]\nevents = task-clock, nosuchpmu/foo/%s\n' "$pfm_gap" >"$TMP/gap.ini"
run "$out" "$err" "$PFMTOP" --check-preset "$TMP/gap.ini"
expect_rc 1 "--check-preset on a preset with an absent PMU's event" "$out" "$err"
grep -q 'usable, with gaps' "$out" || fail "the absent PMU's event is not a gap" "$out"
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.2 --no-hotspots --preset "$TMP/gap.ini"
expect_rc 0 "a run of a preset with an absent PMU's event" "$out" "$err"
grep -qE '^not shown .*nosuchpmu/foo/' "$out" || fail "the absent PMU's event is not named as left out" "$out"
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.2 --no-hotspots --preset "$TMP/gap.ini" --wide
expect_rc 0 "a --wide run of a preset with an absent PMU's event" "$out" "$err"
grep -qE '^ *all .* n/s' "$out" || fail "the absent PMU's event is not a column of n/s" "$out"
grep -q "nosuchpmu/foo/ *not supported .*no PMU 'nosuchpmu'" "$out" || fail "EVENTS does not say why" "$out"
printf '[preset typo]\nevents = task-clock, pgae-faults\n' >"$TMP/typo.ini"
run "$out" "$err" "$PFMTOP" --check-preset "$TMP/typo.ini"
expect_rc 2 "--check-preset on a preset with a misspelt event" "$out" "$err"
grep -q ': invalid$' "$out" || fail "the misspelt event does not make the preset invalid" "$out"
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.2 --preset "$TMP/typo.ini"
expect_rc 2 "a run of a preset with a misspelt event" "$out" "$err"
grep -qx "pfmtop: preset typo: unknown event 'pgae-faults': see 'pfmtop --list-events'" "$err" ||
	fail "the run does not name the misspelt event in one line" "$err"
[ ! -s "$out" ] || fail "a snapshot was written despite the misspelt event" "$out"
run "$out" "$err" "$PFMTOP" -b -n 1 -e pgae-faults
expect_rc 2 "-e with the same misspelt event" "$out" "$err"
if [ -n "$pfm_typo" ]; then
	printf '[preset typo2]\nevents = task-clock, %s\n' "$pfm_typo" >"$TMP/typo2.ini"
	run "$out" "$err" "$PFMTOP" --check-preset "$TMP/typo2.ini"
	expect_rc 2 "--check-preset on an absent PMU's misspelt event" "$out" "$err"
	grep -q "not present on this machine and has no such event" "$out" ||
		fail "the misspelt event of an absent PMU is not called so" "$out"
else
	info "no libpfm4 names here (not x86-64, or no libpfm4): libpfm4's gaps not tried"
fi
# --list-presets says so too
mkdir -p -m 755 "$TMP/xdg/pfmtop/presets.d"
cp "$TMP/typo.ini" "$TMP/gap.ini" "$TMP/xdg/pfmtop/presets.d/"
chmod 644 "$TMP/xdg/pfmtop/presets.d/"*.ini
run "$out" "$err" env XDG_CONFIG_HOME="$TMP/xdg" "$PFMTOP" --list-presets
expect_rc 0 "--list-presets with a misspelt preset" "$out" "$err"
grep -qE '^typo +user +invalid \(see --check-preset\)' "$out" || fail "--list-presets does not call typo invalid" "$out"
grep -qE '^gap +user +[0-9]+ fall back, [1-9][0-9]* not available' "$out" || fail "--list-presets does not show gap's gap" "$out"
pass "an absent PMU's event is a column of n/s, a misspelt one exit 2 like -e"
