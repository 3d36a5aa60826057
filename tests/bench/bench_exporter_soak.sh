#!/bin/bash
# bench_exporter_soak.sh [SECONDS] [RATE]: pfmtop --listen scraped RATE times
# a second (default 100) for SECONDS (default 600) by a local load generator
# that checks every response (status 200, a whole 0.0.4 text ending with
# pfmtop's last family). Prints pfmtop's CPU use and RSS every minute, and
# the responses that were not valid. Asserts nothing: read the figures
# (CPU and RSS should stay flat; system-wide, new processes add symbol and
# per-task state until they are forgotten). Needs root.
set -euo pipefail
: "${PFMTOP:?PFMTOP must point at the pfmtop binary}"
secs=${1:-600}
rate=${2:-100}
py=/usr/bin/python3
port=$($py -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

"$PFMTOP" --listen "127.0.0.1:$port" --export-tasks 20 </dev/null >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 2
kill -0 $pid || { cat "$tmp/err"; exit 1; }
echo "pfmtop $pid serving 127.0.0.1:$port; $rate scrapes/s for $secs s"

$py - "$port" "$secs" "$rate" >"$tmp/load" 2>&1 <<'EOF' &
import http.client, sys, time
port, secs, rate = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
ok = bad = 0
start = time.monotonic()
i = 0
while time.monotonic() - start < secs:
    wait = start + i / rate - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    i += 1
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request("GET", "/metrics")
        r = c.getresponse()
        body = r.read().decode()
        c.close()
        good = (r.status == 200 and body.endswith("\n")
                and "\npfmtop_last_refresh_timestamp_seconds " in body
                and body.rstrip("\n").rsplit("\n", 1)[-1].startswith("pfmtop_http_requests_total"))
    except Exception as e:
        good = False
    ok += good
    bad += not good
print(f"{ok} valid responses, {bad} not valid, {ok / secs:.1f}/s")
EOF
load=$!

ticks=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$pid/status"; }
printf '%8s %12s %10s\n' "elapsed" "CPU% (min)" "RSS KiB"
last=$(cpu)
for ((t = 60; t <= secs; t += 60)); do
	sleep 60
	now=$(cpu)
	printf '%7ss %12.2f %10s\n' "$t" "$(echo "($now - $last) * 100 / $ticks / 60" | bc -l)" "$(rss)"
	last=$now
done
wait $load || echo "the load generator exited with status $?"
cat "$tmp/load"
kill -TERM $pid
wait $pid && echo "pfmtop exited 0 on SIGTERM"
