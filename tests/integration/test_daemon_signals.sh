#!/bin/bash
# Signals as a service takes them: in --daemon mode SIGHUP is logged and the
# exporter serves on; SIGQUIT ends it cleanly like SIGTERM (exit 0). In batch
# mode SIGQUIT, like SIGINT and SIGTERM, ends the run after the final totals
# (128+3), and with a command it is passed on to the command.
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
