# shellcheck shell=bash
# load.sh: sourced by bench_tasks.sh and bench_view.sh. The bench_load
# helper ($BENCH_LOAD: $NIDLE idle processes, one with $NBUSY spinning
# threads) started and stopped; needs $TMP.

load=
# start_load NAME: start it, wait until it is ready (exit 1 if it is not),
# print what is on the machine, then let it settle for a second.
start_load() {
	local start ntasks
	start=$(date +%s.%N)
	"$BENCH_LOAD" "$NIDLE" "$NBUSY" 1200 >"$TMP/load.out" &
	load=$!
	for _ in $(seq 600); do
		grep -q ready "$TMP/load.out" 2>/dev/null && break
		kill -0 "$load" 2>/dev/null || break
		sleep 0.05
	done
	grep -q ready "$TMP/load.out" || {
		echo "$1: bench_load $NIDLE $NBUSY did not get ready" >&2
		exit 1
	}
	ntasks=$(printf '%s\n' /proc/[0-9]*/task/[0-9]* | wc -l)
	printf 'load: %d idle processes + %d spinning threads, up in %.1f s; %s threads on the machine, %d CPUs; %s\n' \
		"$NIDLE" "$NBUSY" "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" \
		"$ntasks" "$(nproc)" "$(uptime | sed 's/.*load/load/')"
	sleep 1 # let it settle
}

stop_load() {
	[ -n "$load" ] || return 0
	kill -TERM "$load" 2>/dev/null || true
	for _ in $(seq 100); do
		kill -0 "$load" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$load" 2>/dev/null || true # its children die with it (PDEATHSIG)
	wait "$load" 2>/dev/null || true
	load=
}
