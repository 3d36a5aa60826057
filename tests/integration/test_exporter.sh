#!/bin/bash
# The Prometheus exporter, against the real thing: a Debian prometheus
# server scrapes pfmtop --listen every second, and the page faults it
# stores for a known workload agree with perf stat's; promtool and the
# Python client's strict OpenMetrics parser accept what is served; the
# counters only grow; the address, method, size and file rules hold; the
# textfile (--format prometheus -o FILE) is never seen half written.
. "$(dirname "$0")/lib.sh"
need_root # system-wide counting and perf stat -a
need_cmd curl promtool prometheus perf
# Debian's python3, with Debian's python3-prometheus-client (a python3
# earlier in PATH may be another installation without it).
pyd=/usr/bin/python3
[ -x "$pyd" ] && "$pyd" -c 'import prometheus_client.openmetrics.parser' 2>/dev/null ||
	skip "python3-prometheus-client is not installed"

bursts=$(helper bursts)
out=$TMP/out err=$TMP/err

free_port() {
	"$pyd" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
served() { grep -q '^pfmtop: serving ' "$1"; }
# scrape URL FILE [CURL ARGS...]: the body in FILE, the headers in FILE.h
scrape() {
	local url=$1 f=$2
	shift 2
	curl -sS --max-time 10 -D "$f.h" -o "$f" "$@" "$url" || fail "curl $url failed"
}

# --- a service: headless, both formats, counters that only grow ---
port=$(free_port)
"$PFMTOP" --listen "127.0.0.1:$port" -e page-faults,task-clock,context-switches,cycles -d 0.5 \
	--export-tasks 5 </dev/null >"$out" 2>"$err" &
EXP=$!
cleanup_add "kill -KILL $EXP"
wait_for 20 served "$err" || fail "pfmtop --listen did not start serving" "$err"
sleep 1.2
url=http://127.0.0.1:$port/metrics
scrape "$url" "$TMP/a.prom"
grep -qi '^content-type: text/plain; version=0.0.4' "$TMP/a.prom.h" ||
	fail "a plain scrape is not the 0.0.4 text format" "$TMP/a.prom.h"
promtool check metrics <"$TMP/a.prom" >"$TMP/promtool" 2>&1 ||
	fail "promtool check metrics refuses the scrape" "$TMP/promtool" "$TMP/a.prom"
grep -q '^pfmtop_cpu_page_faults_total{event="page-faults",cpu="0"} [0-9]' "$TMP/a.prom" ||
	fail "no per-CPU page fault counter" "$TMP/a.prom"
grep -q '^pfmtop_cpu_task_clock_seconds_total{event="task-clock",cpu="0"} [0-9.]' "$TMP/a.prom" ||
	fail "no task-clock in seconds" "$TMP/a.prom"
grep -q '^pfmtop_task_page_faults_total{event="page-faults",pid="[0-9]*",comm="' "$TMP/a.prom" ||
	fail "--export-tasks 5 exports no task" "$TMP/a.prom"
[ ! -s "$out" ] || fail "a service printed snapshots on standard output" "$out"
if no_hw_pmu; then
	grep -q '^pfmtop_event_state{event="cycles",state="unsupported"} 1$' "$TMP/a.prom" ||
		fail "cycles, not supported here, has no state saying so" "$TMP/a.prom"
	! grep -q '^pfmtop_\(cpu_\|task_\)\?cycles_total' "$TMP/a.prom" || fail "an unsupported event has a counter" "$TMP/a.prom"
fi
pass "a plain scrape is the 0.0.4 text format and promtool check metrics accepts it"

# One scope a family: every series of a family has the same label names (a
# CPU, a task, the machine are never summed together), and sum() over the
# CPU family is the machine's family, in the same scrape.
"$pyd" - "$TMP/a.prom" >"$TMP/scopes" 2>&1 <<'EOF' || fail "a family mixes scopes, or the CPUs do not sum to the machine" "$TMP/scopes" "$TMP/a.prom"
import re, sys
label = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')
keys, value, bad = {}, {}, []
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    m = re.match(r"([A-Za-z_:][A-Za-z0-9_:]*)(\{.*\})?\s+(\S+)$", line.rstrip("\n"))
    name, lab = m.group(1), dict(label.findall(m.group(2) or ""))
    k = tuple(sorted(lab))
    if keys.setdefault(name, k) != k:
        bad.append("%s: series labelled %s and %s" % (name, keys[name], k))
    value.setdefault(name, []).append((lab, float(m.group(3))))
for ev, fam in (("page-faults", "page_faults"), ("task-clock", "task_clock_seconds"),
                ("context-switches", "context_switches")):
    cpu = [v for lab, v in value.get("pfmtop_cpu_%s_total" % fam, []) if lab["event"] == ev]
    allv = [v for lab, v in value.get("pfmtop_%s_total" % fam, []) if lab["event"] == ev]
    if len(cpu) < 1 or len(allv) != 1:
        bad.append("%s: %d CPU series, %d machine series" % (ev, len(cpu), len(allv)))
    elif abs(sum(cpu) - allv[0]) > 1e-9 * max(allv[0], 1):
        bad.append("%s: the CPUs sum to %r, the machine has %r" % (ev, sum(cpu), allv[0]))
    else:
        print("%s: %d CPUs sum to %g" % (ev, len(cpu), allv[0]))
tasks = value.get("pfmtop_task_page_faults_total", [])
if not tasks or any("pid" not in lab or "cpu" in lab for lab, _ in tasks):
    bad.append("pfmtop_task_page_faults_total: %r" % tasks)
if bad:
    print("\n".join(bad))
    sys.exit(1)
EOF
pass "no family mixes scopes; $(paste -sd';' "$TMP/scopes")"

scrape "$url" "$TMP/om.txt" -H 'Accept: application/openmetrics-text; version=1.0.0; charset=utf-8'
grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$TMP/om.txt.h" ||
	fail "asked for OpenMetrics, got something else" "$TMP/om.txt.h"
"$pyd" - "$TMP/om.txt" >"$TMP/om.check" 2>&1 <<'EOF' || fail "the OpenMetrics scrape does not parse strictly" "$TMP/om.check" "$TMP/om.txt"
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
pf = fams["pfmtop_page_faults"]
assert pf.type == "counter", pf.type
names = {s.name for s in pf.samples}
assert names == {"pfmtop_page_faults_total", "pfmtop_page_faults_created"}, names
assert fams["pfmtop_task_clock_seconds"].unit == "seconds"
assert fams["pfmtop_cpu_page_faults"].type == "counter"
assert fams["pfmtop_cpu_task_clock_seconds"].unit == "seconds"
assert fams["pfmtop_build_info"].type == "gauge"
print(len(fams), "families")
EOF
pass "OpenMetrics when the scraper asks for it: $(cat "$TMP/om.check") parsed strictly"

# Every counter of the first scrape is still there and no smaller.
"$pyd" - "$TMP/a.prom" "$url" >"$TMP/mono" 2>&1 <<'EOF' || fail "a counter went down between two scrapes" "$TMP/mono"
import sys, time, urllib.request
def read(text):
    v = {}
    for line in text.splitlines():
        if line.startswith("#") or "_total" not in line:
            continue
        key, val = line.rsplit(" ", 1)
        v[key] = float(val)
    return v
a = read(open(sys.argv[1]).read())
time.sleep(1.2)
b = read(urllib.request.urlopen(sys.argv[2], timeout=10).read().decode())
cpu = [k for k in a if 'cpu="' in k]
assert cpu, "no per-CPU counters"
for k in cpu:
    assert k in b and b[k] >= a[k], (k, a[k], b.get(k))
assert any(b[k] > a[k] for k in cpu), "nothing grew in 1.2 s"
EOF
pass "counters only grow from one scrape to the next"

# --- the HTTP rules ---
code() { curl -s -o /dev/null --max-time 10 -w '%{http_code}' "$@"; }
[ "$(code -X POST "$url")" = 405 ] || fail "POST /metrics is not 405"
[ "$(code "http://127.0.0.1:$port/nothing")" = 404 ] || fail "GET /nothing is not 404"
[ "$(code -X GET --data-binary 'x=1' "$url")" = 413 ] || fail "a request body is not refused with 413"
big=$(head -c 20000 /dev/zero | tr '\0' a)
c=$(code -H "X-Big: $big" "$url")
case "$c" in 413 | 431) ;; *) fail "a 20 KB header got $c, not 413 or 431" ;; esac
[ "$(code "$url")" = 200 ] || fail "the exporter stopped answering after the refused requests"
sleep 1.1 # the page is made once an interval: the counts as of the next one
scrape "$url" "$TMP/c.prom"
grep -q '^pfmtop_http_requests_total{code="405"} [1-9]' "$TMP/c.prom" ||
	fail "the 405 is not counted" "$TMP/c.prom"
pass "405 for POST, 404 elsewhere, 413 for a body, $c for a 20 KB header; each counted"

# Command lines are never exported: only comm (a busy task, so among the 5).
"$pyd" -c 'while True: pass' "secret-token-$$" &
bp=$!
cleanup_add "kill -KILL $bp"
sleep 1.5
scrape "$url" "$TMP/d.prom"
grep -q "pid=\"$bp\",comm=\"python3\"" "$TMP/d.prom" || fail "the busy task is not exported" "$TMP/d.prom"
! grep -q "secret-token" "$TMP/d.prom" || fail "a command line was exported" "$TMP/d.prom"
# ...unless asked: --export-cmdline
run "$TMP/e.prom" "$err" "$PFMTOP" -b -n 2 -d 0.3 --format prometheus -e task-clock \
	--export-tasks 5 --export-cmdline
grep -q "pid=\"$bp\",comm=\"python3\",cmdline=\"$pyd -c while True: pass secret-token-$$\"" "$TMP/e.prom" ||
	fail "--export-cmdline: no cmdline label on the busy task" "$TMP/e.prom" "$err"
kill -KILL $bp 2>/dev/null || true
pass "a task is exported by its comm, never its command line unless --export-cmdline"

# A service told to stop exits 0.
kill -TERM $EXP
set +e
wait $EXP
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "SIGTERM: exit status $rc, expected 0" "$err"
pass "SIGTERM stops the service with status 0"

# --- TLS and basic auth from a web config file, as node_exporter reads it ---
need_cmd openssl htpasswd
mkdir -m 700 "$TMP/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$TMP/tls/key.pem" -out "$TMP/tls/cert.pem" >"$TMP/openssl" 2>&1 ||
	fail "openssl could not make a certificate" "$TMP/openssl"
chmod 600 "$TMP/tls/key.pem"
hash=$(htpasswd -nbBC 5 alice 'pass word' | cut -d: -f2-)
cat >"$TMP/tls/web.yml" <<EOF
tls_server_config:
  cert_file: cert.pem
  key_file: key.pem
basic_auth_users:
  alice: '$hash'
EOF
port=$(free_port)
"$PFMTOP" --listen "127.0.0.1:$port" --web-config "$TMP/tls/web.yml" -e page-faults -d 0.5 \
	</dev/null >"$out" 2>"$err" &
TLS=$!
cleanup_add "kill -KILL $TLS"
wait_for 20 served "$err" || fail "pfmtop --web-config did not start serving" "$err"
grep -q "serving https://127.0.0.1:$port/metrics" "$err" || fail "it does not say https" "$err"
sleep 0.8 # the first interval is in (503 before it)
surl=https://127.0.0.1:$port/metrics
[ "$(code --cacert "$TMP/tls/cert.pem" "$surl")" = 401 ] || fail "no password: not 401"
[ "$(code --cacert "$TMP/tls/cert.pem" -u 'alice:wrong' "$surl")" = 401 ] || fail "a wrong password: not 401"
[ "$(code --cacert "$TMP/tls/cert.pem" -u 'bob:pass word' "$surl")" = 401 ] || fail "an unknown user: not 401"
c=$(code --cacert "$TMP/tls/cert.pem" -u 'alice:pass word' "$surl")
[ "$c" = 200 ] ||
	fail "alice with her password: $c, not 200" "$err" "$TMP/tls/web.yml"
[ "$(code "http://127.0.0.1:$port/metrics")" != 200 ] || fail "plain HTTP is served beside TLS"
kill -TERM $TLS
chmod 644 "$TMP/tls/key.pem"
run "$out" "$err" timeout 10 "$PFMTOP" --listen "127.0.0.1:$port" --web-config "$TMP/tls/web.yml"
expect_rc 2 "--web-config with a key others may read" "$err"
grep -q 'key.pem' "$err" || fail "the message does not name the key file" "$err"
pass "TLS and basic auth: 401 without, with a wrong or unknown login, 200 with alice's; a key others may read is refused"

# --- addresses ---
run "$out" "$err" timeout 10 "$PFMTOP" --listen "0.0.0.0:$(free_port)" -e page-faults
expect_rc 2 "--listen 0.0.0.0 without --allow-remote" "$err"
grep -q 'not a loopback address: add --allow-remote' "$err" || fail "no reason given" "$err"
run "$out" "$err" timeout 10 "$PFMTOP" --listen "[::1]:$(free_port)" -e page-faults -n 1 -b -d 0.1
if grep -q 'Cannot assign requested address\|Address family' "$err"; then
	info "no IPv6 loopback here"
else
	expect_rc 0 "--listen [::1]:PORT -b -n 1" "$out" "$err"
fi
blocker=$(free_port)
"$pyd" -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1', $blocker)); s.listen(); time.sleep(30)" &
cleanup_add "kill -KILL $!"
sleep 0.5
run "$out" "$err" timeout 10 "$PFMTOP" --listen "127.0.0.1:$blocker" -e page-faults
expect_rc 1 "--listen on a port in use" "$err"
grep -q 'Address already in use (another program serves that port' "$err" || fail "no reason given" "$err"
run "$out" "$err" timeout 10 "$PFMTOP" --listen 127.0.0.1 -e page-faults
expect_rc 2 "--listen without a port" "$err"
run "$out" "$err" timeout 10 "$PFMTOP" --daemon -b --listen ":$(free_port)"
expect_rc 2 "--daemon with -b" "$err"
pass "loopback unless --allow-remote, [::1] served, a port in use and bad addresses refused in one line"

# --- a real Prometheus scrapes a command's counters ---
# Command mode counts the command and its children only: the faults it
# stores must be perf stat's for the same command, within 5%. Beside it, a
# system-wide pfmtop (-b --listen: it samples too) for the dashboard's
# queries.
workload="sleep 4; $bursts 2000 40 60; sleep 4"
want=$(perf_stat page-faults sh -c "$workload")
port=$(free_port)
pport=$(free_port)
sport=$(free_port)
dash_events=cycles,instructions,cache-misses,branch-misses,task-clock,context-switches,cpu-migrations,page-faults
"$PFMTOP" -b --listen "127.0.0.1:$sport" -d 0.5 -e "$dash_events" --export-tasks 5 \
	</dev/null >/dev/null 2>"$TMP/sys.err" &
SYS=$!
cleanup_add "kill -KILL $SYS"
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: pfmtop
    static_configs:
      - targets: ['127.0.0.1:$port']
  - job_name: pfmtop_sys
    static_configs:
      - targets: ['127.0.0.1:$sport']
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$TMP/prom.log" 2>&1 &
PROM=$!
cleanup_add "kill -KILL $PROM"
api=http://127.0.0.1:$pport
prom_ready() { curl -sf "$api/-/ready" >/dev/null; }
wait_for 60 prom_ready || fail "prometheus did not get ready" "$TMP/prom.log"
# query EXPR: the first value of an instant query, or "" for none
query() {
	curl -sf --data-urlencode "query=$1" "$api/api/v1/query" |
		"$pyd" -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
"$PFMTOP" --listen "127.0.0.1:$port" -e page-faults,task-clock -d 0.5 -- sh -c "$workload" \
	</dev/null >"$out" 2>"$err" &
CMD=$!
cleanup_add "kill -KILL $CMD"
scraped_twice() { [ "$(query 'count_over_time(up{job="pfmtop"}[1m])')" -ge 2 ] 2>/dev/null; }
wait_for 30 scraped_twice || fail "prometheus did not scrape pfmtop twice" "$TMP/prom.log" "$err"
# The burst comes at 4 s and lasts about 3 s: its rate, while it lasts.
peak=0
for _ in $(seq 1 40); do
	r=$(query 'rate(pfmtop_page_faults_total{job="pfmtop"}[3s])')
	[ -n "$r" ] && peak=$(py "max(float(a[0]), float(a[1]))" "$peak" "$r")
	kill -0 $CMD 2>/dev/null || break
	sleep 0.25
done
set +e
wait $CMD
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "pfmtop -- CMD exited $rc" "$err"
sleep 1.5 # the last scrape is in
got=$(query 'max_over_time(pfmtop_page_faults_total{job="pfmtop"}[2m])')
[ -n "$got" ] || fail "prometheus has no pfmtop_page_faults_total" "$TMP/prom.log"
check "$peak > 1000" "rate(pfmtop_page_faults_total[3s]) peaked at $peak/s during 120000 faults"
within "$got" "$want" 5 || fail "prometheus stored $got page faults for the command, perf stat counts $want"
pass "prometheus scraped $got page faults for the command (perf stat: $want), rate peaking at $peak/s"

# The system-wide pfmtop as Prometheus has it: sum() over the CPU family is
# the machine's family, and every query of the shipped dashboard, for that
# instance, gives data (but those of events this machine cannot count, as
# pfmtop_event_state says).
sys_scraped() { [ "$(query 'count_over_time(up{job="pfmtop_sys"}[1m])')" -ge 10 ] 2>/dev/null; }
wait_for 60 sys_scraped || fail "prometheus did not scrape the system-wide pfmtop 10 times" "$TMP/prom.log" "$TMP/sys.err"
"$pyd" - "$api" "127.0.0.1:$sport" "$PFMTOP_SRCDIR/packaging/grafana/pfmtop-dashboard.json" \
	>"$TMP/dash" 2>&1 <<'EOF' || fail "the dashboard's queries against prometheus" "$TMP/dash" "$TMP/sys.err"
import json, re, sys, urllib.parse, urllib.request
api, inst, path = sys.argv[1:4]
def query(q):
    url = api + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
    r = json.load(urllib.request.urlopen(url, timeout=10))
    assert r["status"] == "success", (q, r)
    return r["data"]["result"]
bad = []
sel = '{job="pfmtop_sys"}'
for fam, ev in (("page_faults", "page-faults"), ("task_clock_seconds", "task-clock")):
    # one instant, so one scrape of each family
    diff = query('sum by (event) (pfmtop_cpu_%s_total%s) - sum by (event) (pfmtop_%s_total%s)'
                 % (fam, sel, fam, sel))
    tot = query('sum by (event) (pfmtop_%s_total%s)' % (fam, sel))
    if not diff or not tot or abs(float(diff[0]["value"][1])) > 1e-9 * max(float(tot[0]["value"][1]), 1):
        bad.append("sum(pfmtop_cpu_%s_total) - pfmtop_%s_total: %s (total %s)" % (fam, fam, diff, tot))
    else:
        print("sum(pfmtop_cpu_%s_total) = pfmtop_%s_total = %s" % (fam, fam, tot[0]["value"][1]))
unsupported = {r["metric"]["event"] for r in query(
    'pfmtop_event_state{job="pfmtop_sys",state=~"unsupported|not_counted|error"} == 1')}
fam_of = lambda e: re.sub(r"[^a-z0-9]+", "_", e.lower()).strip("_")
excused = {"pfmtop_%s_total" % fam_of(e) for e in unsupported}
dash = json.load(open(path))
panels = []
for p in dash["panels"]:
    panels.append(p)
    panels.extend(p.get("panels", []))
n = 0
for p in panels:
    for t in p.get("targets", []):
        q = t["expr"].replace("$__rate_interval", "10s").replace("$instance", inst)
        names = set(re.findall(r"\bpfmtop_[A-Za-z0-9_]*", q))
        res = query(q)
        n += 1
        if res:
            continue
        if names & excused:
            print("no data, as expected here: %s (%s)" % (p["title"], ", ".join(sorted(names & excused))))
            continue
        bad.append("panel %s (%s) %s: no data for %s" % (p["id"], p["title"], t["refId"], q))
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("%d dashboard queries answered" % n)
EOF
kill -TERM $SYS 2>/dev/null || true
pass "prometheus: $(grep -c '^sum' "$TMP/dash") CPU families sum to the machine's; $(tail -n1 "$TMP/dash") ($(grep -c '^no data' "$TMP/dash") without data: no hardware PMU)"

# --- the textfile: replaced whole, never seen half written ---
mkdir "$TMP/tf"
tf=$TMP/tf/pfmtop.prom
"$pyd" - "$tf" >"$TMP/reader" 2>&1 <<'EOF' &
import os, sys, time
path, seen, end = sys.argv[1], 0, time.time() + 8
while time.time() < end:
    try:
        text = open(path).read()
    except FileNotFoundError:
        continue
    seen += 1
    last = text.rstrip("\n").rsplit("\n", 1)[-1]
    if not text.endswith("\n") or not last.startswith("pfmtop_last_refresh_timestamp_seconds "):
        print("half a file:", repr(text[-200:]))
        sys.exit(1)
    if seen > 300 and os.path.exists(path + ".done"):
        break
print(seen, "reads")
EOF
READER=$!
run "$out" "$err" "$PFMTOP" -b -n 12 -d 0.2 --format prometheus -e page-faults,task-clock -o "$tf"
expect_rc 0 "--format prometheus -o FILE" "$out" "$err"
touch "$tf.done"
wait $READER || fail "a reader saw half a metrics file" "$TMP/reader"
[ "$(find "$TMP/tf" -name '.pfmtop.prom.*' | wc -l)" -eq 0 ] || fail "temporary files left behind" "$(ls -la "$TMP/tf")"
promtool check metrics <"$tf" >"$TMP/promtool" 2>&1 || fail "promtool refuses the textfile" "$TMP/promtool" "$tf"
# Run again over it (an earlier run's file); a file of someone else's is refused.
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.1 --format openmetrics -e page-faults -o "$tf"
expect_rc 0 "--format openmetrics -o over an earlier run's file" "$out" "$err"
[ "$(tail -n 1 "$tf")" = "# EOF" ] || fail "an OpenMetrics file does not end with # EOF" "$tf"
echo "precious" >"$TMP/tf/other.prom"
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.1 --format prometheus -e page-faults -o "$TMP/tf/other.prom"
expect_rc 2 "-o over a file pfmtop did not write" "$err"
grep -q 'did not write and would be replaced: add --force' "$err" || fail "no reason given" "$err"
[ "$(cat "$TMP/tf/other.prom")" = precious ] || fail "the other file was touched"
pass "the textfile is replaced whole ($(cat "$TMP/reader") never saw half of one), promtool accepts it, others' files are kept"
