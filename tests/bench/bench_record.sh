#!/bin/bash
# bench_record.sh [SECONDS]: a recording as a service makes it (pfmtop
# --record FILE, alone, default preset, whole machine, hotspots on, -d 1)
# for SECONDS (default 600), on a machine of at least BENCH_PROCS processes
# (default 300: idle sleepers are started to make up the number). Prints
# the recording's size, the size of a day at that rate (every task row is
# recorded, and up to PFR_HOT_ROWS hotspot rows), and pfmtop's CPU over the
# run (counting, sampling and recording together); with BENCH_RECORD (the
# bench_record binary) also what writing the frames alone costs: the
# recorder's own CPU. Asserts nothing: read the figures.
set -euo pipefail
: "${PFMTOP:?PFMTOP must point at the pfmtop binary}"
secs=${1:-600}
want=${BENCH_PROCS:-300}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)

procs() { find /proc -maxdepth 1 -name '[0-9]*' | wc -l; }
have=$(procs)
for ((i = have; i < want; i++)); do
	sleep $((secs + 60)) &
done
echo "processes: $(procs) ($have before the sleepers)"

"$PFMTOP" --record "$tmp/run.pfr" </dev/null >/dev/null 2>"$tmp/err" &
pid=$!
sleep 1
kill -0 $pid || { cat "$tmp/err"; exit 1; }
echo "pfmtop $pid recording for $secs s"
t0=$(date +%s.%N)
sleep "$secs"
read -r -a st < <(sed 's/.*) //' "/proc/$pid/stat")
t1=$(date +%s.%N)
kill -TERM $pid
wait $pid || true
cpu=$(((st[11] + st[12])))
bytes=$(stat -c %s "$tmp/run.pfr")
"$PFMTOP" --convert "$tmp/run.pfr" --format json -o "$tmp/run.jsonl" 2>"$tmp/conv"
frames=$(wc -l <"$tmp/run.jsonl")
rows=$(python3 -c '
import json, sys
t = h = n = 0
for l in open(sys.argv[1]):
    x = json.loads(l)
    n += 1; t += len(x["tasks"]); h += len(x.get("hotspots", {}).get("rows", []))
print("%.0f task rows, %.0f hotspot rows a snapshot" % (t / n, h / n))' "$tmp/run.jsonl")
echo "recorded: $rows"
awk -v b="$bytes" -v f="$frames" -v c="$cpu" -v hz="$hz" -v t0="$t0" -v t1="$t1" 'BEGIN {
	printf "%d snapshots, %d bytes: %.0f bytes a snapshot, %.1f MB a day at one a second\n",
	       f, b, b / f, b / f * 86400 / 1e6
	printf "pfmtop CPU over the run: %.2f%% of a core (counting, sampling, recording)\n",
	       c / hz / (t1 - t0) * 100
}'
if [ -n "${BENCH_RECORD:-}" ]; then
	"$BENCH_RECORD" "$tmp/run.jsonl"
fi
