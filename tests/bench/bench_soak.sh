#!/bin/bash
# bench_soak: pfmtop's memory over a long run on a machine that never
# settles. Two pfmtops sample system-wide (as root): the view in tmux at
# 200x60 and `pfmtop -b -d 0.1 --format json -o /dev/null`, beside
#   (a) process churn: short-lived processes starting constantly (/bin/true
#       and short spinners from a shell loop),
#   (b) a hostile JIT (jitmap) running as nobody: code in anonymous
#       mappings it makes anew, and /tmp/perf-PID.map appended and rewritten
#       with about 9,000 new 500-byte names a second covering it,
#   (c) a thread storm (threadstorm): threads created and exiting constantly.
# Prints each pfmtop's RSS (VmRSS) every minute, and a verdict line: the
# largest RSS of the first 5 minutes, the largest after them, and the slope
# after them (of the whole run when shorter). Figures only: it asserts
# nothing. The background load is about one core.
#
#   SOAK_MIN=30 tests/bench/bench_soak.sh [PFMTOP]
#
# defaults: build/test/pfmtop, 30 minutes (SOAK_MIN=3 for a quick look);
# VIEW_ARGS / BATCH_ARGS add options to either pfmtop (e.g. VIEW_ARGS=-g).
# The helpers are the integration tests' (BUILD/tests/jitmap, threadstorm,
# spin): `cmake --build BUILD` builds them. Needs root and tmux.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
PFMTOP=$(realpath "${1:-${PFMTOP:-$here/../../build/test/pfmtop}}")
HELPERS=${PFMTOP_HELPERS:-$(dirname "$PFMTOP")/tests}
MIN=${SOAK_MIN:-30}
[ "$(id -u)" -eq 0 ] || {
	echo "bench_soak: needs root (system-wide sampling, a user to drop to)" >&2
	exit 1
}
for c in tmux setpriv; do
	command -v "$c" >/dev/null || {
		echo "bench_soak: $c is not installed" >&2
		exit 1
	}
done
for h in jitmap threadstorm spin; do
	[ -x "$HELPERS/$h" ] || {
		echo "bench_soak: no $HELPERS/$h (build the tree first)" >&2
		exit 1
	}
done
[ -x "$PFMTOP" ] || {
	echo "bench_soak: no pfmtop at $PFMTOP" >&2
	exit 1
}

TMP=$(mktemp -d /tmp/bench_soak.XXXXXX)
chmod 755 "$TMP"
sock=$TMP/tmux.sock
tm() { tmux -S "$sock" "$@"; }
pids=()
cleanup() {
	set +e
	tm kill-server 2>/dev/null
	for p in "${pids[@]}"; do
		kill -- -"$p" 2>/dev/null || kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	[ -z "${jit_pid:-}" ] || rm -f "/tmp/perf-$jit_pid.map"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

secs=$((MIN * 60))
life=$((secs + 120)) # every load also ends on its own

# (a) process churn, in its own process group
install -m 755 "$HELPERS/spin" "$TMP/spin"
setsid timeout "$life" bash -c '
	while :; do
		/bin/true; /bin/true; /bin/true
		'"$TMP"'/spin 0.003
		sleep 0.01
	done' >/dev/null 2>&1 &
pids+=($!)
# (b) the perf-map rewriter, as nobody
install -m 755 "$HELPERS/jitmap" "$TMP/jitmap"
group=$(id -gn nobody)
(cd /tmp && exec setsid timeout "$life" setpriv --reuid=nobody --regid="$group" --clear-groups \
	"$TMP/jitmap" "$life" 9000 30) >"$TMP/jit.out" 2>&1 &
pids+=($!)
# (c) the thread storm
setsid timeout "$life" "$HELPERS/threadstorm" "$life" 200 >/dev/null 2>&1 &
pids+=($!)
sleep 1
jit_pid=$(pgrep -n -x jitmap -u nobody || true)
[ -n "$jit_pid" ] || {
	echo "bench_soak: jitmap did not start:" >&2
	cat "$TMP/jit.out" >&2
	exit 1
}

# The two pfmtops
# shellcheck disable=SC2086
setsid "$PFMTOP" -b -d 0.1 --format json -o /dev/null ${BATCH_ARGS:-} </dev/null \
	>/dev/null 2>"$TMP/batch.err" &
batch=$!
pids+=($batch)
# A third: since-the-start hotspots by process, every 10 s, kept to check
# at the end that they stayed true (shares, names, recycled pids).
# shellcheck disable=SC2086
setsid "$PFMTOP" -b -d 10 --hot-total --hot 500 --hot-sort pid,comm,dso,sym --format json \
	-o "$TMP/truth.jsonl" ${BATCH_ARGS:-} </dev/null >/dev/null 2>"$TMP/truth.err" &
truth=$!
pids+=($truth)
tm -f /dev/null new-session -d -s soak -x 200 -y 60 \
	"exec $PFMTOP -d 0.1 ${VIEW_ARGS:-} 2>$TMP/view.err"
sleep 2
view=$(tm display-message -p -t soak '#{pane_pid}')
for p in "$batch" "$view"; do
	kill -0 "$p" 2>/dev/null || {
		echo "bench_soak: a pfmtop did not start:" >&2
		cat "$TMP"/*.err >&2
		exit 1
	}
done
echo "bench_soak: $MIN min; view $view (tmux 200x60, -d 0.1 ${VIEW_ARGS:-}), batch $batch" \
	"(-b -d 0.1 --format json ${BATCH_ARGS:-}); jitmap $jit_pid as nobody"

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
printf '%6s %12s %12s %12s %10s\n' min "view KiB" "batch KiB" "truth KiB" "map bytes"
printf '%6s %12s %12s %12s %10s\n' 0 "$(rss "$view")" "$(rss "$batch")" "$(rss "$truth")" \
	"$(stat -c %s "/tmp/perf-$jit_pid.map" 2>/dev/null || echo -)"
: >"$TMP/rss"
for ((m = 1; m <= MIN; m++)); do
	sleep 60
	for p in "$batch" "$view" "$truth"; do
		kill -0 "$p" 2>/dev/null || {
			echo "bench_soak: pfmtop $p exited at minute $m" >&2
			cat "$TMP"/*.err >&2
			exit 1
		}
	done
	v=$(rss "$view")
	b=$(rss "$batch")
	t=$(rss "$truth")
	echo "$m $v $b $t" >>"$TMP/rss"
	printf '%6s %12s %12s %12s %10s\n' "$m" "$v" "$b" "$t" \
		"$(stat -c %s "/tmp/perf-$jit_pid.map" 2>/dev/null || echo -)"
done

# Verdict per pfmtop: max RSS in minutes 1-5, max after, slope (KiB/min,
# least squares) after minute 5, or over the whole run when it is shorter.
verdict() { # column name
	awk -v c="$1" -v name="$2" '
	{ m = $1; v = $c; if (m <= 5) { if (v > first) first = v } else { if (v > after) after = v }
	  all[m] = v; n++ }
	END {
		lo = n > 5 ? 6 : 1
		for (m = lo; m <= n; m++) { k++; sx += m; sy += all[m]; sxx += m * m; sxy += m * all[m] }
		slope = k > 1 ? (k * sxy - sx * sy) / (k * sxx - sx * sx) : 0
		later = n > 5 ? sprintf("%.1f MB", after / 1024) : "-"
		printf "verdict %s: first-5-min max %.1f MB, max after %s, slope %+.2f MB/min (minutes %d-%d)\n", \
			name, first / 1024, later, slope / 1024, lo, n
	}' "$TMP/rss"
}
verdict 2 view
verdict 3 batch
verdict 4 truth

# The since-the-start hotspots over the run: every share its row's weight
# over the total, every sample in a row or in other, no process without a
# name, and the recycled pids seen as two processes.
kill -INT "$truth" 2>/dev/null
for _ in $(seq 50); do kill -0 "$truth" 2>/dev/null || break; sleep 0.1; done
python3 - "$TMP/truth.jsonl" <<'PY'
import json, sys
snaps, worst, short, lines = 0, 0.0, 0, []
for l in open(sys.argv[1]):
    try:
        lines.append(json.loads(l))
    except ValueError:
        pass
for o in lines:
    h = o["hotspots"]
    if "total_weight" not in h:
        continue
    snaps += 1
    for r in h["rows"]:
        worst = max(worst, abs(r["share"] - 100.0 * r.get("weight", 0) / h["total_weight"]))
    if sum(r["samples"] for r in h["rows"]) + h["other"]["samples"] != o["sampling"]["total"]["samples"]:
        short += 1
last = lines[-1]["hotspots"] if lines else {"rows": [], "total_samples": 0, "other": {}}
rows, total = last["rows"], last.get("total_samples", 0) or 1
noname = sum(r["samples"] for r in rows if r["comm"] in ("", "?"))
unknown = sum(r["samples"] for r in rows if r["symbol"] == "[unknown]")
comms = {}
for r in rows:
    comms.setdefault(r["pid"], set()).add(r["comm"])
renamed = sum(1 for p, c in comms.items() if p > 0 and len(c) > 1)
print("verdict truth: %d snapshots, worst |share - weight/total| %.4f points, %d snapshots "
      "whose rows and other miss samples; last: %d samples, other %.1f%%, no name %.2f%%, "
      "[unknown] %.2f%%, %d pids with rows under more than one name (an exec, or a recycled pid)"
      % (snaps, worst, short, total, last.get("other", {}).get("share", 0),
         100.0 * noname / total, 100.0 * unknown / total, renamed))
PY
