#!/bin/bash
# Batch text on a machine without a hardware PMU: lines fit in 80 columns,
# the events no row counts are named once with why (never as columns of
# n/s), the static sections (EVENTS) come once over -n 3, and --wide brings
# every column and section back.
. "$(dirname "$0")/lib.sh"

need_root # the default target is the whole machine
no_hw_pmu || skip_host "perf stat counts cycles here: this test is about a machine without a PMU"

out=$TMP/out err=$TMP/err hw=(cycles instructions cache-misses branch-misses)

# widest LABEL FILE: fail when a line of FILE is wider than 80 columns.
widest() {
	local w
	w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$2")
	[ "$w" -le 80 ] || fail "$1: a line of $w columns (at most 80): $(awk 'length($0) > 80' "$2" | head -3)" "$2"
	info "$1: widest line $w columns, $(wc -l <"$2") lines"
}

# narrow LABEL FILE SNAPSHOTS: the default layout's promises.
narrow() {
	local label=$1 f=$2 n=$3 ev
	widest "$label" "$f"
	[ "$(grep -cE '^pfmtop .* (snapshot|final) [0-9]+' "$f")" -eq "$n" ] ||
		fail "$label: not $n snapshot headers" "$f"
	[ "$(grep -c '^EVENT ' "$f")" -eq 1 ] || fail "$label: the EVENTS table is not printed once" "$f"
	[ "$(grep -c '^not shown' "$f")" -eq 1 ] || fail "$label: the columns left out are not named once" "$f"
	# the line names every hardware event and the reason EVENTS gives (JSON's reason)
	python3 - "$f" "$why" "${hw[@]}" <<'PY' || fail "$label: the 'not shown' line lacks an event or its reason" "$f"
import sys, re
text, reason = open(sys.argv[1]).read(), " ".join(sys.argv[2].split())
m = re.search(r"^not shown.*?\n(?:  .*\n)*", text, re.M)
para = " ".join(m.group(0).split())
missing = [e for e in sys.argv[3:] if e not in para]
if missing or reason not in para:
    print("missing %s; reason %r in %r" % (missing, reason, para), file=sys.stderr)
    sys.exit(1)
PY
	for ev in "${hw[@]}"; do
		! grep -E '^ *(CPU|PID|TID) ' "$f" | grep -qw -- "$ev" ||
			fail "$label: $ev is still a column of n/s" "$f"
	done
	grep -qE '^ *PID .*COMMAND' "$f" || fail "$label: no task table" "$f"
}

# why cycles does not count, as the EVENTS table says it
run "$out" "$err" "$PFMTOP" -b -n 1 --format json -- true
expect_rc 0 "pfmtop -b -n 1 --format json -- true" "$out" "$err"
why=$(json "$out" "[e['reason'] for e in lines[0]['events'] if e['name'] == 'cycles'][0]")
[ -n "$why" ] || fail "JSON gives no reason for cycles" "$out"

run "$out" "$err" "$PFMTOP" -b -n 3 -- true
expect_rc 0 "pfmtop -b -n 3 -- true" "$out" "$err"
narrow "-b -n 3 -- true" "$out" 2
pass "a command: 80 columns, the unsupported events named once with why, EVENTS once"

run "$out" "$err" "$PFMTOP" -b -n 3 -d 0.5
expect_rc 0 "pfmtop -b -n 3 -d 0.5" "$out" "$err"
narrow "-b -n 3 -d 0.5" "$out" 3
grep -qE '^(CPU|  0) ' "$out" || fail "no CPU table" "$out"
pass "the whole machine: 80 columns, the unsupported events named once with why, EVENTS once"

# --wide: every column and section in every snapshot
run "$out" "$err" "$PFMTOP" -b -n 3 -d 0.3 --wide
expect_rc 0 "pfmtop -b -n 3 -d 0.3 --wide" "$out" "$err"
[ "$(grep -c '^EVENT ' "$out")" -eq 3 ] || fail "--wide: the EVENTS table is not in every snapshot" "$out"
grep -q '^not shown' "$out" && fail "--wide: columns said to be left out" "$out"
for ev in "${hw[@]}"; do
	[ "$(grep -E '^CPU ' "$out" | grep -cw -- "$ev")" -eq 3 ] ||
		fail "--wide: $ev is not a CPU column in every snapshot" "$out"
done
grep -qE '^CPU .* IPC$' "$out" || fail "--wide: no IPC column" "$out"
[ "$(grep -c '^n/s not supported' "$out")" -eq 3 ] || fail "--wide: the key is not in every snapshot" "$out"
pass "--wide: every column, EVENTS and the key in every snapshot"
