#!/bin/bash
# The JSON snapshot against its schema, packaging/schema/pfmtop-snapshot.schema.json
# (JSON Schema 2020-12, checked with python3-jsonschema): live snapshots of
# every kind pfmtop writes (system-wide with and without hotspots, a
# command's intervals, its last one cut short and its totals, -p, -H with
# --hot-total, several presets with metrics, a cgroup), the same recordings
# written again by --convert, the fixtures (golden, round trip, and the
# recordings of earlier builds, converted). Beyond the schema: "pfmtop" and
# "schema_version" come first, every row's counters follow the events in
# order, times are RFC 3339 to the millisecond and mono_s lines up with
# interval_s. The schema is also shown to refuse snapshots that are wrong
# (a wrong type, an unknown member, a bad state), and --convert to refuse a
# newer schema_version.
. "$(dirname "$0")/lib.sh"

# Debian's python3, where python3-jsonschema is: the python3 first in PATH
# may be another one.
py3=/usr/bin/python3
[ -x "$py3" ] || skip "$py3 is not installed"
"$py3" -c 'import jsonschema; jsonschema.Draft202012Validator' 2>/dev/null ||
	skip "python3-jsonschema (4.0 or later, for draft 2020-12) is not installed for $py3"
src=$PFMTOP_SRCDIR
schema=$src/packaging/schema/pfmtop-snapshot.schema.json
out=$TMP/out err=$TMP/err
rec=$TMP/rec
mkdir "$rec"
bursts=$(helper bursts)
threads=$(helper threads)

# validate.py SCHEMA FILE... [--invalid FILE...]: every line of every FILE
# against the schema and the checks beside it; after --invalid, every line
# must be refused instead. One process for all: jsonschema is slow to load.
cat >"$TMP/validate.py" <<'EOF'
import datetime, json, sys
import jsonschema

schema_path, args = sys.argv[1], sys.argv[2:]
with open(schema_path) as f:
    schema = json.load(f)
cls = jsonschema.Draft202012Validator
cls.check_schema(schema)
validator = cls(schema, format_checker=cls.FORMAT_CHECKER)


def extra(s):
    """What the schema cannot say."""
    keys = list(s)
    if keys[:2] != ["pfmtop", "schema_version"]:
        yield "the members start %s, not pfmtop, schema_version" % keys[:2]
    names = [e["name"] for e in s["events"]]
    metrics = None
    rows = s["cpus"] + s["tasks"] + s["cgroups"] + [s["total"]]
    rows += [s["unattributed"]] if "unattributed" in s else []
    for r in rows:
        if "counters" in r and list(r["counters"]) != names:
            yield "a row's counters %s are not the events %s" % (list(r["counters"]), names)
        if "metrics" in r:
            if metrics is None:
                metrics = list(r["metrics"])
            elif list(r["metrics"]) != metrics:
                yield "a row's metrics %s differ from %s" % (list(r["metrics"]), metrics)
    if len({"counters" in t for t in s["tasks"]}) > 1:
        yield "some task rows have counters, some not"
    datetime.datetime.strptime(s["time"], "%Y-%m-%dT%H:%M:%S.%fZ")


def mono(s, prev):
    """An interval ends interval_s after the one before it; the totals
    span the run. (null: a converted recording of an earlier build.)"""
    m = s["mono_s"]
    if m is None:
        return
    if s["final"] and abs(m - s["interval_s"]) > 0.002:
        yield "final: mono_s %s, interval_s %s" % (m, s["interval_s"])
    if prev and not s["final"] and prev["mono_s"] is not None and s["seq"] == prev["seq"] + 1 \
            and abs(m - prev["mono_s"] - s["interval_s"]) > 0.002:
        yield "mono_s %s after %s, but interval_s %s" % (m, prev["mono_s"], s["interval_s"])


invalid = False
bad = n = refused = 0
for path in args:
    if path == "--invalid":
        invalid = True
        continue
    prev = None
    with open(path) as f:
        for i, line in enumerate(f, 1):
            n += 1
            s = json.loads(line)
            problems = ["%s: %s" % ("/".join(map(str, e.absolute_path)) or "(top)", e.message[:300])
                        for e in validator.iter_errors(s)]
            if not problems and not invalid:  # a wrong one: the schema must see it
                problems = list(extra(s)) + list(mono(s, prev))
            prev = s
            if invalid:
                refused += bool(problems)
                if not problems:
                    print("%s:%d: accepted, but it is wrong" % (path, i))
                    bad += 1
                continue
            for p in problems:
                print("%s:%d: %s" % (path, i, p))
            bad += bool(problems)
print("%d snapshots, %d wrong ones refused, %d problems" % (n, refused, bad), file=sys.stderr)
sys.exit(1 if bad or not n else 0)
EOF

# record NAME PFMTOP_ARGS...: a recording in $rec/NAME.json, exit 0
record() {
	local name=$1
	shift
	run "$out" "$err" timeout 60 "$PFMTOP" -b --format json -o "$rec/$name.json" "$@"
	expect_rc 0 "pfmtop -b --format json $*" "$out" "$err"
	[ -s "$rec/$name.json" ] || fail "pfmtop $* wrote nothing" "$err"
}

# --- live ---
record system -n 2 -d 0.3
[ "$(id -u)" -ne 0 ] ||
	json_check "$rec/system.json" "all(x['sampling']['enabled'] for x in lines)" "system-wide: sampling is off"
record system-nohot -n 2 -d 0.3 --no-hotspots
json_check "$rec/system-nohot.json" "not any(x['sampling']['enabled'] for x in lines)" "--no-hotspots: sampling is on"
record command -d 0.2 -e page-faults,task-clock,page-faults -- "$bursts" 400 37 10
json_check "$rec/command.json" "lines[-1]['final'] and lines[-2]['partial'] and lines[0]['mode'] == 'command'" \
	"-- COMMAND: no intervals, last one cut short, then totals"
"$threads" 3 30 >"$TMP/threads.out" & # killed once recorded: it burns 80% of a CPU
tpid=$!
disown "$tpid"
cleanup_add "kill -KILL $tpid"
wait_for 10 grep -q ready "$TMP/threads.out" || fail "the threads helper did not start"
record threads -n 2 -d 0.3 -H -p "$tpid" --hot-total -K
json_check "$rec/threads.json" "len(lines[0]['tasks']) == 4 and any(t['tid'] != t['pid'] for t in lines[0]['tasks'])" \
	"-H -p PID: not a row for each of its 4 threads"
kill -KILL "$tpid"
sleep 30 &
spid=$!
disown "$spid"
cleanup_add "kill -KILL $spid"
sleep 30 &
spid2=$!
disown "$spid2"
cleanup_add "kill -KILL $spid2"
record pid -n 2 -d 0.3 -p "$spid,$spid2"
json_check "$rec/pid.json" "lines[0]['mode'] == 'tasks' and len(lines[0]['tasks']) == 2" "-p PID,PID: not 2 task rows"
record calltree -d 0.2 -g --hot-sort comm,sym -e task-clock -- "$bursts" 400 37 5
json_check "$rec/calltree.json" "lines[-1]['hotspots'].get('call_chains') and lines[-1]['hotspots']['keys'] == 'comm,sym' and any(r.get('callers') for r in lines[-1]['hotspots']['rows'])" \
	"-g --hot-sort comm,sym: no call paths or keys in the totals"
for p in ipc cache scheduler; do
	record "preset-$p" -n 1 -d 0.2 --no-hotspots --preset "$p"
done
json_check "$rec/preset-ipc.json" "len(lines[0]['total']['metrics']) > 0" "--preset ipc: no metrics"

# a cgroup (root, cgroup v2): a CGROUPS row, and task rows naming theirs
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
name=pfmtop-schema-$$
if [ "$(id -u)" -eq 0 ] && [ -n "$cgroot" ] && mkdir "$cgroot/$name" 2>/dev/null; then
	cleanup_add "for i in \$(seq 50); do rmdir '$cgroot/$name' && break; sleep 0.1; done"
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cgroot/$name" sleep 30 >/dev/null 2>&1 &
	cpid=$!
	disown "$cpid"
	cleanup_add "kill -KILL $cpid"
	record cgroup -n 2 -d 0.3 --cgroup "$name" -e task-clock,page-faults
	json_check "$rec/cgroup.json" "[g['cgroup'] for g in last['cgroups']] == ['/$name'] and any(t['cgroup'] for t in last['tasks'])" \
		"--cgroup $name: no CGROUPS row, or no task row with its cgroup"
else
	info "no cgroup made (not root, or no cgroup v2 here): --cgroup not covered"
fi
pass "live: $(cat "$rec"/*.json | wc -l) snapshots of $(ls "$rec" | wc -l) runs"

# --- --convert: live recordings and round-trip fixtures the same bytes, those of earlier builds versioned ---
mkdir "$TMP/conv"
for f in "$rec"/*.json "$src"/tests/fixtures/roundtrip/*.jsonl "$src"/tests/fixtures/legacy/*.jsonl; do
	c=$TMP/conv/$(basename "$f")
	run "$c" "$err" "$PFMTOP" --convert "$f" --format json
	expect_rc 0 "pfmtop --convert $f --format json" "$c" "$err"
	case $f in
	*/legacy/*) ;;
	*) cmp -s "$f" "$c" || fail "--convert $(basename "$f") --format json changed it" "$f" "$c" ;;
	esac
done
pass "converted: $(ls "$TMP/conv" | wc -l) recordings"

# --- what the schema refuses ---
"$py3" - "$rec/system.json" "$TMP/wrong.json" <<'EOF'
import json, sys
src, dst = sys.argv[1:3]
with open(src) as f:
    s = json.loads(f.readline())
ev = s["events"][0]["name"]
wrong = []
def variant(fn):
    x = json.loads(json.dumps(s))
    fn(x)
    wrong.append(x)
variant(lambda x: x.update(seq=str(x["seq"])))                      # a wrong type
variant(lambda x: x.update(interval_s="0.3"))
variant(lambda x: x["total"]["counters"][ev].update(state="fine"))   # not a state
variant(lambda x: x.update(bogus=1))                                 # an unknown member
variant(lambda x: x["cpus"][0].update(extra=True))
variant(lambda x: x.pop("mono_s"))                                   # a member missing
variant(lambda x: x.update(time=x["time"][:19] + "Z"))              # no milliseconds
variant(lambda x: x.update(schema_version=2))
variant(lambda x: x.update(mode="everything"))
variant(lambda x: x["total"]["counters"][ev].update(state="not supported", value=0))
variant(lambda x: x["sampling"].update(enabled=False))               # with its members still there
with open(dst, "w") as f:
    for x in wrong:
        f.write(json.dumps(x, separators=(",", ":")) + "\n")
EOF

# --- all of it against the schema (the golden file given a version) ---
sed "s/@VERSION@/0.0.0/" "$src/tests/fixtures/golden/tasks.json" >"$TMP/golden.json"
run "$out" "$err" "$py3" "$TMP/validate.py" "$schema" "$rec"/*.json "$TMP"/conv/[0-9]*.jsonl \
	"$src"/tests/fixtures/roundtrip/*.jsonl "$TMP/golden.json" --invalid "$TMP/wrong.json"
[ "$RC" -eq 0 ] || fail "against the schema" "$out" "$err"
pass "live, converted from earlier builds, golden and round-trip: valid; $(cat "$err")"

# --- a newer schema_version: refused by --convert, with the versions ---
head -1 "$rec/system.json" | sed 's/"schema_version":1,/"schema_version":2,/' >"$TMP/newer.json"
run "$out" "$err" "$PFMTOP" --convert "$TMP/newer.json"
expect_rc 1 "pfmtop --convert NEWER" "$out" "$err"
grep -q "newer.json:1: written by a newer pfmtop: schema_version 2, this one reads 1" "$err" ||
	fail "--convert NEWER: no message naming both versions" "$err"
pass "a newer schema_version: $(cat "$err")"
