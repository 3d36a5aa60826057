#!/bin/bash
# The Grafana dashboard, packaging/grafana/pfmtop-dashboard.json: valid
# against what Grafana's dashboard JSON model requires
# (tests/fixtures/grafana-dashboard.schema.json, with python3-jsonschema),
# panel ids unique, panels on the 24-column grid without overlapping, the
# datasource and instance variables its queries use, PromQL that promtool
# parses (when it is installed). Then every pfmtop_ metric its queries name
# is one pfmtop exports: in --format prometheus snapshots, or on /metrics of
# pfmtop --daemon (pfmtop_http_requests_total only exists when serving). A
# counter of an event this machine cannot count (the hardware events on a
# VM) is allowed missing when pfmtop_event_state says so for that event.
. "$(dirname "$0")/lib.sh"

need_cmd python3 timeout
python3 -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema is not installed"
src=$PFMTOP_SRCDIR
dash=$src/packaging/grafana/pfmtop-dashboard.json
schema=$src/tests/fixtures/grafana-dashboard.schema.json
out=$TMP/out err=$TMP/err
events=cycles,instructions,cache-misses,branch-misses,task-clock,context-switches,cpu-migrations,page-faults

# --- (a) the dashboard as Grafana wants it ---
# Writes the metric names its queries use to $TMP/used, and the queries, with
# Grafana's variables replaced, as recording rules for promtool to $TMP/rules.yml.
run "$out" "$err" python3 - "$dash" "$schema" "$TMP" <<'EOF'
import json, re, sys
import jsonschema

dash_path, schema_path, tmp = sys.argv[1:4]
problems = []
with open(dash_path) as f:
    dash = json.load(f)
with open(schema_path) as f:
    schema = json.load(f)
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
for e in sorted(cls(schema).iter_errors(dash), key=lambda e: list(e.absolute_path)):
    problems.append("schema: %s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)", e.message))
if problems:
    print("\n".join(problems))
    sys.exit(1)

# Panels: top level, and those a collapsed row holds (placed as the row
# will show them once opened: checked among themselves).
layouts, allp = [[]], []
for p in dash["panels"]:
    layouts[0].append(p)
    allp.append(p)
    if p["type"] == "row" and p.get("collapsed"):
        layouts.append(p["panels"])
        allp.extend(p["panels"])
ids = [p["id"] for p in allp]
for i in sorted(set(i for i in ids if ids.count(i) > 1)):
    problems.append("panel id %d is used %d times" % (i, ids.count(i)))
for panels in layouts:
    for p in panels:
        g = p["gridPos"]
        if g["x"] + g["w"] > 24:
            problems.append("panel %d (%s) reaches column %d of 24" % (p["id"], p["title"], g["x"] + g["w"]))
    for i, p in enumerate(panels):
        for q in panels[i + 1:]:
            a, b = p["gridPos"], q["gridPos"]
            if a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"] and \
               a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]:
                problems.append("panels %d (%s) and %d (%s) overlap: %s, %s"
                                % (p["id"], p["title"], q["id"], q["title"], a, b))

# The variables: a Prometheus data source, and the instances that export pfmtop_build_info.
var = {v["name"]: v for v in dash["templating"]["list"]}
v = var.get("datasource")
if not v or v["type"] != "datasource" or v.get("query") != "prometheus":
    problems.append("no variable datasource of type datasource, query prometheus")
v = var.get("instance")
q = v and (v["query"]["query"] if isinstance(v["query"], dict) else v["query"])
if not v or v["type"] != "query" or re.sub(r"\s", "", q or "") != "label_values(pfmtop_build_info,instance)":
    problems.append("no variable instance of type query, label_values(pfmtop_build_info, instance)")

# Every query: on the data source variable, naming only known variables.
builtin = {"__rate_interval", "__interval", "__interval_ms", "__range", "__range_s", "__range_ms"}
exprs = []
for p in allp:
    if p["type"] == "row":
        continue
    for t in p["targets"]:
        ds = t.get("datasource", p["datasource"])
        if ds.get("uid") != "${datasource}":
            problems.append("panel %d (%s) %s: data source %s, not ${datasource}" % (p["id"], p["title"], t["refId"], ds))
        for name in re.findall(r"\$\{?(\w+)", t["expr"]):
            if name not in var and name not in builtin:
                problems.append("panel %d (%s) %s: unknown variable $%s" % (p["id"], p["title"], t["refId"], name))
        exprs.append(("p%d_%s" % (p["id"], t["refId"]), t["expr"]))
refs = [r for r, _ in exprs]
for v in var.values():
    if v["type"] == "query":
        exprs.append(("var_" + v["name"], v["query"]["query"] if isinstance(v["query"], dict) else v["query"]))

used = set()
for _, e in exprs:
    used.update(re.findall(r"\bpfmtop_[A-Za-z0-9_:]*", e))
with open(tmp + "/used", "w") as f:
    f.write("".join(n + "\n" for n in sorted(used)))
# label_values() is Grafana's, not PromQL: only the panels' queries go to promtool.
sub = lambda e: e.replace("$__rate_interval", "1m").replace("$instance", ".*")
rules = {"groups": [{"name": "dashboard", "rules": [
    {"record": "pfmtop_dashboard:" + r, "expr": sub(e)} for r, e in exprs if r in refs]}]}
with open(tmp + "/rules.yml", "w") as f:
    json.dump(rules, f, indent=1)  # JSON is YAML

if problems:
    print("\n".join(problems))
    sys.exit(1)
print("%d panels, %d queries, %d metric names" % (len(allp), len(refs), len(used)))
EOF
expect_rc 0 "the dashboard against tests/fixtures/grafana-dashboard.schema.json and the grid" "$out" "$err"
pass "$(basename "$dash"): valid against the schema, panel ids unique, no overlap; $(cat "$out")"

if command -v promtool >/dev/null 2>&1; then
	run "$out" "$err" promtool check rules "$TMP/rules.yml"
	expect_rc 0 "promtool check rules (the dashboard's queries as recording rules)" "$out" "$err" "$TMP/rules.yml"
	pass "promtool parses every query of the dashboard"
else
	info "promtool is not installed: the PromQL of the dashboard is not parsed"
fi

# --- (b) the metric names are those pfmtop exports ---
run "$out" "$err" timeout 60 "$PFMTOP" -b -n 2 -d 0.3 --format prometheus -e "$events" --export-tasks 5
expect_rc 0 "pfmtop -b -n 2 --format prometheus -e $events --export-tasks 5" "$out" "$err"
cp "$out" "$TMP/batch.prom"
pass "pfmtop -b --format prometheus: $(grep -c '^# TYPE ' "$TMP/batch.prom") metric families"

# The same from /metrics of the exporter, scraped until it counts its own
# HTTP requests.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$PFMTOP" --daemon --listen "127.0.0.1:$port" -d 0.3 -e "$events" --export-tasks 5 >"$TMP/daemon.out" 2>"$TMP/daemon.err" &
daemon=$!
cleanup_add "kill -KILL $daemon"
run "$out" "$err" python3 - "http://127.0.0.1:$port/metrics" "$daemon" "$TMP/scrape.prom" <<'EOF'
import os, sys, time, urllib.request

url, pid, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
last = "nothing"
for _ in range(150):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        print("pfmtop --daemon exited; last answer: %s" % last)
        sys.exit(1)
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            body = r.read().decode()
            last = "HTTP %d, %d bytes" % (r.status, len(body))
            if r.status == 200 and "\npfmtop_http_requests_total{" in "\n" + body:
                with open(path, "w") as f:
                    f.write(body)
                print(last)
                sys.exit(0)
    except Exception as e:
        last = "%s: %s" % (type(e).__name__, e)
    time.sleep(0.2)
print("no /metrics with pfmtop_http_requests_total in 30 s; last answer: %s" % last)
sys.exit(1)
EOF
expect_rc 0 "scraping $PFMTOP --daemon --listen 127.0.0.1:$port" "$out" "$err" "$TMP/daemon.out" "$TMP/daemon.err"
kill -TERM "$daemon" 2>/dev/null || true
wait_gone "$daemon" 10 || fail "pfmtop --daemon did not stop on SIGTERM" "$TMP/daemon.err"
pass "pfmtop --daemon: /metrics answered ($(cat "$out")), with $(grep -c '^# TYPE ' "$TMP/scrape.prom") families"

run "$out" "$err" python3 - "$TMP/used" "$TMP/batch.prom" "$TMP/scrape.prom" <<'EOF'
import re, sys

used = open(sys.argv[1]).read().split()
names, states = set(), {}
label = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')
for path in sys.argv[2:]:
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("# TYPE "):
            f = line.split()
            names.add(f[2])
            if f[3] == "counter" and not f[2].endswith("_total"):
                names.add(f[2] + "_total")  # OpenMetrics names the family without it
            continue
        m = re.match(r"([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)", line)
        if not m:
            continue
        names.add(m.group(1))
        if m.group(1) == "pfmtop_event_state" and m.group(2):
            lab = dict(label.findall(m.group(2)))
            if float(m.group(3)) == 1 and "event" in lab:
                states[lab["event"]] = lab.get("state", "?")

def family_event(ev):
    """The event part of the family name pfmtop gives an event (page-faults -> page_faults)."""
    return re.sub(r"[^a-z0-9]+", "_", "".join(c.lower() if "A" <= c <= "Z" else c for c in ev)).strip("_")

missing, excused = [], []
for n in used:
    if n in names:
        continue
    base = re.sub(r"(_seconds)?_total$", "", n[len("pfmtop_"):]) if n.endswith("_total") else None
    ev = [e for e in states if family_event(e) == base]
    if ev and states[ev[0]] in ("unsupported", "not_counted", "error"):
        excused.append("%s (%s: %s)" % (n, ev[0], states[ev[0]]))
    else:
        missing.append(n + (" (%s is %s)" % (ev[0], states[ev[0]]) if ev else ""))
if missing:
    print("used by the dashboard, not exported by pfmtop: " + ", ".join(missing))
    print("exported: " + ", ".join(sorted(names)))
    sys.exit(1)
print("%d names exported%s" % (len(used) - len(excused),
      "; not counted here, so not exported: " + ", ".join(excused) if excused else ""))
EOF
expect_rc 0 "the dashboard's metric names against what pfmtop exports" "$out" "$err" "$TMP/used"
pass "every metric the dashboard uses: $(cat "$out")"
