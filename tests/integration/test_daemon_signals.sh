#!/bin/bash
# Signals as a service takes them: in --daemon mode SIGHUP is logged and the
# exporter serves on; SIGQUIT ends it cleanly like SIGTERM (exit 0). In batch
# mode SIGQUIT, like SIGINT and SIGTERM, ends the run after the final totals
# (128+3), and with a command it is passed on to the command. First: a
# service samples nothing (/metrics has no hotspots), while -b --listen and
# a recording without a terminal sample as before.
. "$(dirname "$0")/lib.sh"

need_root # system-wide counting
py3=$(command -v python3) || skip "python3 is not installed"
ulimit -c 0 # SIGQUIT dumps a core where it is not caught

out=$TMP/out err=$TMP/err
free_port() {
	"$py3" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# scrape PORT: 0 when /metrics answers 200 within 5 s.
scrape() {
	"$py3" -c 'import sys, urllib.request
r = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5)
sys.exit(0 if r.status == 200 and b"pfmtop_" in r.read() else 1)' "$1" 2>/dev/null
}

# fetch PORT FILE: 0 when /metrics answers 200 with a refreshed page, into FILE.
fetch() {
	"$py3" -c 'import sys, urllib.request
r = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5)
b = r.read()
open(sys.argv[2], "wb").write(b)
sys.exit(0 if r.status == 200 and b"\npfmtop_last_refresh_timestamp_seconds " in b else 1)' "$1" "$2" 2>/dev/null
}
# rings PID: the sampling rings PID has mapped. With --mmap-pages 32 a
# sampling ring is 33 pages of a perf fd; the side-band rings that watch
# tasks are 9.
rings() {
	"$py3" -c 'import sys
n = 0
for l in open("/proc/%s/maps" % sys.argv[1]):
    if "anon_inode:[perf_event]" in l:
        a, b = (int(x, 16) for x in l.split()[0].split("-"))
        n += (b - a) // 4096 == 33
print(n)' "$1"
}
has_rings() { [ "$(rings "$1")" -ge 1 ]; }
no_samples() { ! grep -q '^pfmtop_samples_total [1-9]' "$1"; }

# --- a service samples nothing: nothing it serves uses samples ---
for how in --daemon "(no terminal)"; do
	port=$(free_port)
	flag=$how
	[ "$how" = --daemon ] || flag=
	"$PFMTOP" $flag --listen "127.0.0.1:$port" -e task-clock --mmap-pages 32 -d 0.2 \
		</dev/null >"$out" 2>"$err" &
	mon=$!
	cleanup_add "kill -KILL $mon"
	wait_for 20 fetch "$port" "$TMP/m.prom" || fail "$how: /metrics does not answer" "$err"
	sleep 0.5
	fetch "$port" "$TMP/m.prom" || fail "$how: /metrics does not answer" "$err"
	grep -q '^pfmtop_cpu_task_clock_seconds_total{event="task-clock",cpu="0"} [0-9]' "$TMP/m.prom" ||
		fail "$how: task-clock is not counted" "$TMP/m.prom"
	n=$(rings "$mon")
	[ "$n" -eq 0 ] || fail "$how: $n sampling rings are mapped (nothing exports samples)" "/proc/$mon/maps" "$TMP/m.prom"
	! grep -q '^pfmtop_samples_total' "$TMP/m.prom" ||
		fail "$how: pfmtop_samples_total is exported: it samples for nothing" "$TMP/m.prom"
	kill -TERM "$mon"
	wait_gone "$mon" 10 || fail "$how: SIGTERM did not stop it" "$err"
done
run "$out" "$err" timeout 10 "$PFMTOP" --daemon --listen "127.0.0.1:$(free_port)" -g
expect_rc 2 "--daemon -g" "$out" "$err"
grep -q -- '--daemon samples nothing.*drop -g' "$err" || fail "--daemon -g: no reason given" "$err"
pass "--daemon and --listen without a terminal count only: no sampling ring, no pfmtop_samples_total; -g refused"

# -b --listen and a recording without a terminal still sample.
port=$(free_port)
"$PFMTOP" -b --listen "127.0.0.1:$port" -e task-clock --mmap-pages 32 -d 0.2 \
	</dev/null >/dev/null 2>"$err" &
mon=$!
cleanup_add "kill -KILL $mon"
wait_for 20 has_rings "$mon" || fail "-b --listen: no sampling ring" "$err"
sampled() { fetch "$port" "$TMP/b.prom" && ! no_samples "$TMP/b.prom"; }
wait_for 20 sampled || fail "-b --listen: pfmtop_samples_total does not grow" "$TMP/b.prom" "$err"
kill -TERM "$mon"
wait_gone "$mon" 10 || fail "-b --listen: SIGTERM did not stop it" "$err"
"$PFMTOP" --record "$TMP/r.pfr" -e task-clock --mmap-pages 32 -d 0.2 </dev/null >"$out" 2>"$err" &
mon=$!
cleanup_add "kill -KILL $mon"
wait_for 20 has_rings "$mon" || fail "--record without a terminal: no sampling ring (the recording holds hotspots)" "$err"
kill -TERM "$mon"
wait_gone "$mon" 10 || fail "--record: SIGTERM did not stop it" "$err"
pass "-b --listen ($(grep '^pfmtop_samples_total' "$TMP/b.prom")) and --record without a terminal sample"

# --- --daemon: SIGHUP is logged, and it serves on; SIGQUIT stops it, exit 0 ---
port=$(free_port)
# (env --default-signal: a background job of a script starts with SIGQUIT
# and SIGINT ignored.)
env --default-signal "$PFMTOP" --daemon --listen "127.0.0.1:$port" -e task-clock --no-hotspots \
	-d 0.2 </dev/null >"$out" 2>"$err" &
mon=$!
cleanup_add "kill -KILL $mon"
wait_for 20 scrape "$port" || fail "--daemon: /metrics does not answer" "$err"
kill -HUP "$mon"
logged() { grep -q '^pfmtop: SIGHUP: ' "$err"; }
wait_for 10 logged || {
	kill -0 "$mon" 2>/dev/null || { wait "$mon" || RC=$?; fail "--daemon: SIGHUP ended it silently (exit ${RC:-0})" "$err"; }
	fail "--daemon: SIGHUP was not logged" "$err"
}
kill -0 "$mon" 2>/dev/null || fail "--daemon: SIGHUP ended it" "$err"
scrape "$port" || fail "--daemon: /metrics no longer answers after SIGHUP" "$err"
pass "--daemon: SIGHUP logged ($(grep '^pfmtop: SIGHUP' "$err")), /metrics still served"

signal_and_wait QUIT "$mon"
expect_rc 0 "pfmtop --daemon sent SIGQUIT (a service told to stop)" "$out" "$err"
[ "$(grep -vc '^pfmtop: \(serving\|SIGHUP\)' "$err")" -eq 0 ] || fail "--daemon SIGQUIT: unexpected messages" "$err"
pass "--daemon: SIGQUIT ends it cleanly, exit 0"

# --- batch mode: SIGQUIT ends the run after the final totals, 131 ---
: >"$out"
env --default-signal "$PFMTOP" -b -d 0.2 -e task-clock --no-hotspots --format json >"$out" 2>"$err" &
mon=$!
cleanup_add "kill -KILL $mon"
first() { [ "$(nlines "$out")" -ge 1 ]; }
wait_for 20 first || fail "batch: no first snapshot" "$out" "$err"
signal_and_wait QUIT "$mon"
expect_rc 131 "pfmtop -b sent SIGQUIT (128 + 3)" "$out" "$err"
json_check "$out" "last['final'] is True" "batch SIGQUIT: the last snapshot is not the final totals"
pass "batch: SIGQUIT gives the final totals and exit 131"

# --- with a command: SIGQUIT is passed on to it ---
tag=$$$RANDOM
: >"$out"
env --default-signal "$PFMTOP" -b -d 0.2 -e task-clock --no-hotspots --format json -- \
	sleep "60.$tag" >"$out" 2>"$err" &
mon=$!
cleanup_add "kill -KILL $mon"
started() { pgrep -f "^sleep 60\\.$tag\$" >/dev/null && [ "$(nlines "$out")" -ge 1 ]; }
wait_for 20 started || fail "command: did not start" "$out" "$err"
signal_and_wait QUIT "$mon"
expect_rc 131 "pfmtop -- sleep sent SIGQUIT (sleep killed by it: 128 + 3)" "$out" "$err"
json_check "$out" "last['final'] is True" "command SIGQUIT: the last snapshot is not the final totals"
pass "with a command: SIGQUIT passed on, final totals, exit 131"
