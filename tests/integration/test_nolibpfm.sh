#!/bin/bash
# libpfm4 is loaded only when an event name needs it: pfmtop does not link
# it, a default run never maps it, and without it (PFMTOP_TEST_LIBPFM names
# a file that does not exist, see src/pfmlib.h) the kernel's generic events
# still count while libpfm4 names fail with one line that says what to
# install.
. "$(dirname "$0")/lib.sh"

out=$TMP/out err=$TMP/err
missing="libpfm4 is not installed (apt-get install libpfm4)"

# --- not linked, not mapped unless needed ---
if command -v readelf >/dev/null 2>&1; then
	readelf -d "$PFMTOP" >"$out"
	! grep -q 'NEEDED.*libpfm' "$out" || fail "$PFMTOP is linked with libpfm" "$out"
	pass "pfmtop does not link libpfm"
fi

# maps_while ARGS...: pfmtop ARGS runs for about 1.5 s; print its mappings
# (taken once its first snapshot is out) to $out.
maps_while() {
	: >"$TMP/snap"
	"$PFMTOP" "$@" >"$TMP/snap" 2>"$err" &
	local pid=$!
	wait_for 10 grep -q . "$TMP/snap" || true
	cat "/proc/$pid/maps" >"$out" 2>/dev/null || true
	wait "$pid" || fail "pfmtop $* failed" "$err"
	grep -q '/' "$out" || fail "could not read /proc/$pid/maps of pfmtop $*"
}
maps_while -b -n 3 -d 0.5
! grep -q libpfm "$out" || fail "a run of the default preset maps libpfm" "$out"
maps_while -b -n 3 -d 0.5 -e cycles,instructions,task-clock:u,LLC-load-misses,cs
! grep -q libpfm "$out" || fail "the kernel's generic events map libpfm" "$out"
maps_while -b -n 3 -d 0.5 -e PERF_COUNT_SW_TASK_CLOCK
grep -q libpfm "$out" || fail "a libpfm4 spelling (PERF_COUNT_SW_TASK_CLOCK) did not load libpfm" "$out"
pass "libpfm is mapped only when a name needs it"

# --- without libpfm4 ---
export PFMTOP_TEST_LIBPFM=/nonexistent/libpfm.so.4

run "$out" "$err" timeout 30 "$PFMTOP" -e task-clock -b -n 1 -d 0.2 --format json
expect_rc 0 "pfmtop -e task-clock -b -n 1 without libpfm4" "$out" "$err"
grep -q '"name":"task-clock","encoding":"perf::PERF_COUNT_SW_TASK_CLOCK:u=1:k=1:' "$out" ||
	fail "task-clock without libpfm4: not counted with libpfm4's encoding" "$out"
pass "task-clock counts without libpfm4"

run "$out" "$err" timeout 30 "$PFMTOP" -b -n 1 -d 0.2
expect_rc 0 "pfmtop -b -n 1 (default preset) without libpfm4" "$out" "$err"
grep -qE '^task-clock +' "$out" || fail "default preset without libpfm4: no task-clock row" "$out"
pass "the default preset runs without libpfm4"

run "$out" "$err" timeout 10 "$PFMTOP" -e INST_RETIRED:ANY_P -b -n 1
expect_rc 2 "pfmtop -e INST_RETIRED:ANY_P without libpfm4" "$out" "$err"
[ "$(wc -l <"$err")" -eq 1 ] || fail "INST_RETIRED:ANY_P without libpfm4: stderr is not one line" "$err"
grep -qF "pfmtop: unknown event 'INST_RETIRED:ANY_P': $missing" "$err" ||
	fail "INST_RETIRED:ANY_P without libpfm4: the message does not say to install libpfm4" "$err"
[ ! -s "$out" ] || fail "INST_RETIRED:ANY_P without libpfm4: printed on stdout" "$out"
info "$(cat "$err")"
pass "a libpfm4 name fails with one line and exit 2"

run "$out" "$err" timeout 60 "$PFMTOP" --list-events
expect_rc 0 "pfmtop --list-events without libpfm4" "$out" "$err"
grep -qE '^  task-clock +opens ' "$out" || fail "--list-events without libpfm4: no task-clock" "$out"
grep -qE '^  cycles ' "$out" || fail "--list-events without libpfm4: no cycles" "$out"
! grep -q '::' "$out" || fail "--list-events without libpfm4: lists PMU::EVENT names" "$out"
tail -n1 "$out" | grep -qF "; libpfm4 events not listed: $missing" ||
	fail "--list-events without libpfm4: the summary does not say libpfm4 names are missing" "$out"
pass "--list-events lists what it can and says libpfm4 names are missing"

run "$out" "$err" timeout 30 "$PFMTOP" --probe
expect_rc 0 "pfmtop --probe without libpfm4" "$out" "$err"
grep -qF "none ($missing" "$out" || fail "--probe without libpfm4: no libpfm4 line saying so" "$out"
run "$out" "$err" "$PFMTOP" --version
expect_rc 0 "pfmtop --version without libpfm4" "$out" "$err"
grep -q 'libpfm4 not installed' "$out" || fail "--version without libpfm4" "$out"
run "$out" "$err" timeout 30 "$PFMTOP" --list-presets
expect_rc 0 "pfmtop --list-presets without libpfm4" "$out" "$err"
pass "--probe, --version, --list-presets without libpfm4"
