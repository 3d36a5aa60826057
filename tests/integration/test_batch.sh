#!/bin/bash
# Batch mode: snapshot count, exit status, the no-PMU story, JSON Lines shape.
. "$(dirname "$0")/lib.sh"

need_root # the default target is the whole machine

out=$TMP/out err=$TMP/err

# --- text ---
run "$out" "$err" "$PFMTOP" -b -n 2 -d 0.3
expect_rc 0 "pfmtop -b -n 2 -d 0.3" "$out" "$err"
n=$(grep -cE '^pfmtop .* snapshot [0-9]+ ' "$out" || true)
[ "$n" -eq 2 ] || fail "pfmtop -b -n 2 printed $n snapshot headers, expected 2" "$out"
grep -qE '^pfmtop .* snapshot 1 ' "$out" || fail "no 'snapshot 1' header" "$out"
grep -qE '^pfmtop .* snapshot 2 ' "$out" || fail "no 'snapshot 2' header" "$out"
! grep -qE '^pfmtop .* snapshot 3 ' "$out" || fail "a third snapshot after -n 2" "$out"
[ ! -s "$err" ] || fail "pfmtop -b -n 2 wrote to stderr" "$err"
pass "text: exactly 2 snapshots, exit 0"

# --- hardware events without a PMU ---
hw=(cycles instructions cache-misses branch-misses)
if no_hw_pmu; then
	# Every default hardware event must be n/s in the CPU table (--wide: by
	# default those columns are left out, test_text_width) and the note must say why.
	run "$out" "$err" "$PFMTOP" -b -n 2 -d 0.3 --wide
	expect_rc 0 "pfmtop -b -n 2 -d 0.3 --wide" "$out" "$err"
	for ev in "${hw[@]}"; do
		grep -qE "^$ev +not supported " "$out" ||
			fail "$ev is not listed as 'not supported' in the EVENTS table" "$out"
	done
	# CPU table: header row starts with CPU; take each hardware column's cells.
	python3 - "$out" "${hw[@]}" <<'EOF' || fail "hardware columns in the CPU table are not all n/s" "$out"
import sys
path, evs = sys.argv[1], sys.argv[2:]
rows = open(path).read().split("\n")
bad = []
seen = 0
for i, l in enumerate(rows):
    if not l.startswith("CPU "):
        continue
    hdr = l.split()
    j = i + 1
    while j < len(rows) and rows[j].strip():
        cells = rows[j].split()
        for ev in evs:
            if ev not in hdr:
                bad.append("no %s column" % ev)
            elif cells[hdr.index(ev)] != "n/s":
                bad.append("%s=%s on row %s" % (ev, cells[hdr.index(ev)], cells[0]))
        seen += 1
        j += 1
if not seen or bad:
    print("CPU rows seen: %d; problems: %s" % (seen, "; ".join(bad[:8])), file=sys.stderr)
    sys.exit(1)
EOF
	grep -qiE '^note: .*no hardware PMU' "$out" ||
		fail "no 'note: ... no hardware PMU' line although perf stat cannot count cycles" "$out"
	pass "hardware events n/s with a 'no hardware PMU' note"
else
	info "perf stat counts cycles here (or perf is missing): hardware PMU checks skipped"
fi

# --- JSON Lines ---
run "$out" "$err" "$PFMTOP" -b -n 2 -d 0.3 --format json
expect_rc 0 "pfmtop -b -n 2 -d 0.3 --format json" "$out" "$err"
n=$(wc -l <"$out")
[ "$n" -eq 2 ] || fail "--format json -n 2 printed $n lines, expected 2" "$out"
json_check "$out" 'len(lines) == 2 and [x["seq"] for x in lines] == [1, 2]' \
	"JSON lines do not carry seq 1 and 2"
json_check "$out" 'all(type(ctr(x["total"], "task-clock")) in (int, float) and ctr(x["total"], "task-clock") > 0 for x in lines)' \
	"total task-clock is not a positive JSON number"
json_check "$out" 'all(type(c["counters"]["task-clock"]["value"]) in (int, float) for x in lines for c in x["cpus"])' \
	"per-CPU task-clock is not a JSON number"
json_check "$out" 'all(type(x["interval_s"]) in (int, float) and type(x["paranoid"]) is int for x in lines)' \
	"interval_s / paranoid are not JSON numbers"
ncpu=$(nproc)
json_check "$out" "all(len(x['cpus']) == $ncpu for x in lines)" "cpus array length is not nproc ($ncpu)"
json_check "$out" "all(sorted(c['cpu'] for c in x['cpus']) == list(range($ncpu)) for x in lines)" \
	"cpus array does not hold CPUs 0..$((ncpu - 1))"
json_check "$out" 'all(x["final"] is False and x["mode"] == "system-wide" for x in lines)' \
	"system-wide batch snapshots should be final=false, mode system-wide"
if no_hw_pmu; then
	json_check "$out" 'all(state(x["total"], "cycles") == "not supported" and ctr(x["total"], "cycles") is None for x in lines)' \
		"cycles should be state 'not supported' with value null in JSON"
fi
pass "json: 2 parseable lines, numbers as numbers, $ncpu cpus"

# --- one name per column: an event given twice gets a label of its own ---
run "$out" "$err" timeout 20 "$PFMTOP" -b -n 1 -d 0.2 --format json -e page-faults,page-faults --sort 'page-faults#2' -- "$(helper touch_pages)" 3000
expect_rc 0 "pfmtop -e page-faults,page-faults --sort 'page-faults#2'" "$out" "$err"
python3 - "$out" <<'PY' || fail "-e page-faults,page-faults: a JSON object has a key twice" "$out"
import json, sys
def strict(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)
for l in open(sys.argv[1]):
    json.loads(l, object_pairs_hook=strict)
PY
json_check "$out" "[e['name'] for e in last['events']] == ['page-faults', 'page-faults#2'] and ctr(last['total'], 'page-faults') == ctr(last['total'], 'page-faults#2') >= 3000" \
	"the two page-faults columns are not labelled page-faults and page-faults#2 with the same count"
run "$out" "$err" timeout 20 "$PFMTOP" -b -n 1 -d 0.2 -e page-faults,page-faults -- true
grep -qE '^ +PID .* page-faults +page-faults#2 +COMMAND$' "$out" || fail "the text table does not label the columns page-faults, page-faults#2" "$out"
pass "an event given twice: columns page-faults and page-faults#2 in JSON, text and --sort"
