#!/bin/bash
# The exporter under attack from an unprivileged user on the machine
# (nobody), with basic auth from --web-config: wrong passwords do not stall
# root's pfmtop nor slow a scrape that logged in before (bcrypt's results
# are remembered, its time a second bounded); an unknown user takes as long
# as a known one; half-open requests trickling bytes are closed at the
# header deadline and cannot lock others out; a flood of requests without
# a login does not spend the requests of a scraper that logs in; and
# HTTP/1.1 connections are kept alive.
. "$(dirname "$0")/lib.sh"
need_root # the victim is root's pfmtop
need_cmd curl htpasswd python3
nobody_setup
install -m 755 "$(dirname "$0")/http_attack.py" "$TMP/bin/http_attack.py"
# the system's python3 (one earlier in root's PATH may not be nobody's to run)
pyn=/usr/bin/python3
[ -x "$pyn" ] || skip "no /usr/bin/python3 for the attacker"

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# alice's cost (10) comes first: the old dummy hash of an unknown user took
# the first user's cost, and bob's (12) is four times that.
mkdir -m 700 "$TMP/web"
cat >"$TMP/web/web.yml" <<EOF
basic_auth_users:
  alice: '$(htpasswd -nbBC 10 alice 'right one' | cut -d: -f2-)'
  bob: '$(htpasswd -nbBC 12 bob 'his own' | cut -d: -f2-)'
EOF
chmod 600 "$TMP/web/web.yml"

# start: root's pfmtop serving on a new port (in PORT, URL), figures in.
# Without hotspots: what it would symbolize of other programs on the
# machine is no part of this test.
start() {
	PORT=$(free_port)
	URL=http://127.0.0.1:$PORT/metrics
	rm -f "$TMP/victim.json" # the last one's: victim_start waits for it
	victim_start --listen "127.0.0.1:$PORT" --web-config "$TMP/web/web.yml" -e page-faults \
		--no-hotspots
}
# scrape: alice's scrape, "CODE SECONDS" (000 when curl got nothing)
scrape() {
	curl -s -o /dev/null --max-time 5 -u 'alice:right one' -w '%{http_code} %{time_total}\n' \
		"$URL" || true
}
# scrapes_ok SECS WHAT: alice's scrape every 0.2 s for SECS s: each a 200
# within 1 s; the slowest in SLOWEST.
scrapes_ok() {
	local end=$((SECONDS + $1)) r code t n=0
	SLOWEST=0
	while [ "$SECONDS" -lt "$end" ]; do
		r=$(scrape)
		code=${r% *} t=${r#* }
		n=$((n + 1))
		[ "$code" = 200 ] || fail "$2: alice's scrape $n got $code (in $t s)" "$TMP/victim.err"
		check "$t <= 1" "$2: alice's scrape $n took $t s"
		SLOWEST=$(py "max(float(a[0]), float(a[1]))" "$SLOWEST" "$t")
		sleep 0.2
	done
	info "$2: $n scrapes, all 200, the slowest in $SLOWEST s"
}

# attack MODE ARGS...: nobody's http_attack.py MODE PORT ARGS... in the
# background (ATT), its figures in $TMP/MODE.json; attack_end MODE waits
# for it and prints them.
attack() {
	local mode=$1
	shift
	as_nobody "$pyn" http_attack.py "$mode" "$PORT" "$@" >"$TMP/$mode.json" 2>"$TMP/$mode.err" &
	ATT=$!
	cleanup_add "kill -KILL $ATT"
}
attack_end() {
	wait "$ATT" || fail "the attacker failed" "$TMP/$1.err"
	info "the attacker: $(cat "$TMP/$1.json")"
}

# --- (a) wrong passwords: no stall, alice (checked before) answered at once ---
start
[ "$(scrape | cut -d' ' -f1)" = 200 ] || fail "alice's first scrape is not a 200" "$TMP/victim.err"
attack wrong 8 8
sleep 0.5
scrapes_ok 7 "8 clients with wrong passwords"
attack_end wrong
victim_stop "8 clients with wrong passwords"
pass "8 clients with wrong passwords: no stall of root's pfmtop, alice's scrapes answered within 1 s"

# --- (b) an unknown user takes as long as bob (cost 12) with a wrong password ---
start
# cpu_ns: the CPU time root's pfmtop has had, in ns
cpu_ns() { cut -d' ' -f1 "/proc/$VICTIM/schedstat"; }
# login_time USER: "WALL CPU", the seconds of a 401 for USER with a new
# wrong password as curl saw them and the CPU seconds pfmtop spent
# meanwhile (what the check costs, without the noise of a busy machine),
# waiting as told when bcrypt's budget is spent (429, Retry-After)
login_time() {
	local i r c0 c1
	for ((i = 0; i < 20; i++)); do
		c0=$(cpu_ns)
		r=$(curl -s -o /dev/null -D "$TMP/h" --max-time 10 -u "$1:wrong$RANDOM$RANDOM" \
			-w '%{http_code} %{time_total}' "$URL")
		c1=$(cpu_ns)
		case ${r% *} in
		401)
			echo "${r#* } $(py "(int(a[1]) - int(a[0])) / 1e9" "$c0" "$c1")"
			return
			;;
		429) sleep "$(awk 'tolower($1) == "retry-after:" { print $2 + 0 }' "$TMP/h")" ;;
		*) fail "a wrong password for $1: ${r% *}, not 401" "$TMP/victim.err" ;;
		esac
	done
	fail "a wrong password for $1: no 401 in 20 tries" "$TMP/victim.err"
}
# the fastest of 3 each, taken in turns (the machine may be busy)
t_bob="99 99" t_unknown="99 99"
fastest() { py "'%g %g' % (min(float(a[0]), float(a[2])), min(float(a[1]), float(a[3])))" $1 $2; }
for i in 1 2 3; do
	t_bob=$(fastest "$t_bob" "$(login_time bob)")
	t_unknown=$(fastest "$t_unknown" "$(login_time nosuchuser)")
done
t_alice=$(login_time alice)
info "wrong password, seconds (as curl saw them, of pfmtop's CPU): bob (cost 12) $t_bob," \
	"an unknown user $t_unknown, alice (cost 10) $t_alice"
within "${t_unknown#* }" "${t_bob#* }" 20 ||
	fail "an unknown user's check takes ${t_unknown#* } s, bob's ${t_bob#* } s: user names can be told apart"
# bob's check (cost 12) holds the loop for as long as it takes (~0.25-0.5 s)
MAX_GAP=1.5 victim_stop "logins timed (a cost-12 check in the loop)"
pass "an unknown user's wrong login takes as long as bob's (the highest cost)"

# --- (c) slowloris: half-open requests closed at the deadline, alice served ---
start
# 30 (10 from 127.0.0.1, 20 from addresses of their own), within the
# limits: each closed 5 s after it is taken in (its first byte, or a
# second after it connected, TCP_DEFER_ACCEPT), however it trickles
as_nobody "$pyn" http_attack.py slow "$PORT" 8 30 10 >"$TMP/slow.json" 2>"$TMP/slow.err" ||
	fail "the attacker failed" "$TMP/slow.err"
info "30 half-open requests: $(cat "$TMP/slow.json")"
check "$(json "$TMP/slow.json" 'last["closed"]') >= 30" \
	"not every half-open request was closed at the deadline" "$TMP/slow.json"
check "4 <= $(json "$TMP/slow.json" 'last["shortest_closed"]') and \
	$(json "$TMP/slow.json" 'last["longest_closed"]') <= 6.5" \
	"half-open requests were not closed at the 5 s header deadline" "$TMP/slow.json"
# 70 (40 from 127.0.0.1, 30 from addresses of their own), past the limits
# of an address (32) and of all (64): the waiting ones make room for alice
scrape >/dev/null
attack slow 14 70 40
sleep 1
scrapes_ok 11 "70 half-open requests"
wait "$ATT" || fail "the attacker failed" "$TMP/slow.err" # its figures: checked below
info "70 half-open requests: $(cat "$TMP/slow.json")"
check "$(json "$TMP/slow.json" 'last["longest_closed"]') <= 6.5 and \
	$(json "$TMP/slow.json" 'last["oldest_open"]') <= 6.5" \
	"half-open requests outlived the 5 s header deadline" "$TMP/slow.json"
victim_stop "70 half-open requests"
pass "half-open requests closed at the 5 s header deadline; 70 of them from 127.0.0.1 and 30 addresses: alice served within 1 s"

# --- (d) a flood without a login: alice's scrapes still 200 ---
start
scrape >/dev/null
attack flood 9 4
sleep 1
scrapes_ok 7 "a flood without a login"
attack_end flood
n429=$(json "$TMP/flood.json" 'last["codes"].get("429", 0)')
check "$n429 > 0" "the flood was never limited: too slow to test anything" "$TMP/flood.json"
victim_stop "a flood without a login"
pass "a flood of requests without a login (limited to its own 429s) does not starve alice's scrapes"

# --- (e) keep-alive: two URLs on one curl share one connection ---
start
n=$(curl -s -u 'alice:right one' -o /dev/null -o /dev/null -w '%{num_connects}\n' "$URL" "$URL" |
	tr '\n' ' ')
[ "$n" = "1 0 " ] || fail "two scrapes on one curl opened connections: $n(expected 1 0)"
# 100 requests on a connection, then it closes (Connection: close)
for i in $(seq 150); do printf 'url = "%s"\noutput = "/dev/null"\n' "$URL"; done >"$TMP/urls"
n=$(curl -s -u 'alice:right one' -w '%{num_connects}\n' -K "$TMP/urls" | awk '{ s += $1 } END { print s }')
[ "$n" = 2 ] || fail "150 scrapes on one curl took $n connections, expected 2 (100 on one)"
victim_stop "keep-alive"
pass "HTTP/1.1 keep-alive: a second scrape reuses the connection, 100 at most on one"
