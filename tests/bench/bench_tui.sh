#!/bin/bash
# bench_tui: pfmtop and `perf top` side by side in tmux, on the same workload
# at the same sampling frequency; prints each one's CPU time and peak RSS,
# and pfmtop's time from launch to its first full frame. Figures only: it
# asserts nothing. The first frame is timed twice: when tmux shows it, and
# when pfmtop writes it to a pseudo-terminal (first_frame.py).
#
#   tests/bench/bench_tui.sh [PFMTOP] [SECONDS] [FREQ]
#
# defaults: build/pfmtop, 20 s, 4000 Hz. CALLGRAPH=fp or dwarf samples call
# chains, both tools the same way (--call-graph; pfmtop's -g is dwarf,
# perf top's -g is fp). COLD=1 runs pfmtop as on its first run after a
# boot: its cache directory holds what a run before the boot left, the
# binaries' symbol tables and the kernel table of that boot (pfmtop takes
# it when the kernel is the same build and can be placed: see README).
# COLD=kernel: as on the first run on a new kernel, the same without a
# kernel table (pfmtop reads /proc/kallsyms and writes it). COLD=first
# gives it an empty cache directory, as on its very first run. Otherwise
# it uses the user's cache.
# Needs tmux and perf; run as root (or with perf_event_paranoid low enough
# for system-wide sampling).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
PFMTOP=$(realpath "${1:-$here/../../build/pfmtop}")
SECS=${2:-20}
FREQ=${3:-4000}
for c in tmux perf; do
	command -v "$c" >/dev/null || {
		echo "bench_tui: $c is not installed" >&2
		exit 1
	}
done
[ -x "$PFMTOP" ] || {
	echo "bench_tui: no pfmtop at $PFMTOP (give its path)" >&2
	exit 1
}

TMP=$(mktemp -d /tmp/bench_tui.XXXXXX)
sock=$TMP/tmux.sock
tm() { tmux -S "$sock" "$@"; }
workload_pid=
cleanup() {
	tm kill-server 2>/dev/null || true
	# shellcheck disable=SC2086
	[ -z "$workload_pid" ] || kill $workload_pid 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# CPU seconds of a process since it exec'd (the pane's shell ran in the
# same process before: its CPU, saved in FILE0 from /proc/PID/stat just
# before the exec, is not the tool's): the larger of /proc/PID/stat (every
# thread that ever ran, children included, in clock ticks) and the sum of
# its live threads' schedstat run times (nanoseconds: precise where ticks
# are coarse), less the shell's part.
stat_s() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.3f", ($12 + $13 + $14 + $15) / hz }' "$1"; }
cpu_s() {
	local ticks ns before
	ticks=$(stat_s "/proc/$1/stat")
	before=$(stat_s "$2")
	ns=$(cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ n += $1 } END { printf "%.3f", n / 1e9 }')
	awk -v a="$ticks" -v b="$ns" -v c="$before" 'BEGIN { printf "%.3f\n", (a - c > b ? a - c : b) }'
}
rss_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
child_of() { # the process a pane's shell exec'd into
	tm display-message -p -t "$1" '#{pane_pid}'
}

# The workload: one busy process per CPU (tests/integration/spin.c when it
# is built beside pfmtop, else a shell loop), ending on its own.
spin=$(dirname "$PFMTOP")/tests/spin
for ((i = 0; i < $(nproc); i++)); do
	if [ -x "$spin" ]; then
		"$spin" $((SECS + 30)) >/dev/null 2>&1 &
	else
		timeout $((SECS + 30)) bash -c 'while :; do :; done' >/dev/null 2>&1 &
	fi
	workload_pid="$workload_pid $!"
done

cg_pfm= cg_perf= frame_re='^ *[0-9.]+% +[0-9.]+[KMG]? +[0-9]+ +[^ ]+ +[A-Za-z_]'
[ "${VIEW:-hotspots}" = overview ] && frame_re='^ *[0-9.]+% +[A-Za-z_]' # the top hotspots strip
if [ -n "${CALLGRAPH:-}" ]; then
	cg_pfm="--call-graph $CALLGRAPH"
	cg_perf="--call-graph $CALLGRAPH"
	frame_re='^ *[0-9.]+% +[0-9.]+% .*[A-Za-z_]' # CHILDREN SELF ... SYMBOL
fi
# COLD=1: as on the first run after a boot, the cache directory a run
# before the boot left: made by one short run, its kernel table then given
# another boot's id (file name, and the header's boot id 40 bytes in).
# COLD=kernel: the same without the kernel table, as on a new kernel.
# COLD=first: an empty one, as on pfmtop's very first run.
earlier_boot=00000000-0000-4000-8000-0000000000b0
cold_cache() {
	local k
	rm -rf "$TMP/cache" && mkdir "$TMP/cache"
	[ "$COLD" = first ] && return
	if [ ! -d "$TMP/primed" ]; then
		mkdir "$TMP/primed"
		# shellcheck disable=SC2086
		XDG_CACHE_HOME="$TMP/primed" "$PFMTOP" -b -n 1 -d 1 -F "$FREQ" \
			--sample-event cpu-clock $cg_pfm >/dev/null 2>&1 || true
		for k in "$TMP/primed/pfmtop/kallsyms-"*; do
			[ -f "$k" ] || continue
			if [ "$COLD" = kernel ]; then
				rm -f "$k"
			else
				printf '%s' "$earlier_boot" | dd of="$k" bs=1 seek=40 conv=notrunc status=none
				mv "$k" "$TMP/primed/pfmtop/kallsyms-$earlier_boot"
			fi
		done
	fi
	cp -a "$TMP/primed/." "$TMP/cache/"
}
cache_env=
case "${COLD:-0}" in
0) ;;
1 | kernel | first)
	cold_cache
	cache_env="XDG_CACHE_HOME='$TMP/cache'"
	;;
*)
	echo "bench_tui: COLD is 1 (after a boot), kernel (a new kernel) or first (an empty cache)" >&2
	exit 1
	;;
esac

# pfmtop: its pane execs it from a wrapper that stamps the launch time. It
# shows the Hotspots view, perf top's job (VIEW=overview: the first screen,
# meters, tasks and the top hotspots); a full frame has symbolized rows.
tm new-session -d -s b -x 120 -y 40 \
	"cat /proc/\$\$/stat >'$TMP/pfm.stat0'; date +%s%N >'$TMP/t0'; exec env TERM=xterm-256color $cache_env '$PFMTOP' -F $FREQ --sample-event cpu-clock --view ${VIEW:-hotspots} $cg_pfm"
start=$(now_ms)
while :; do
	if tm capture-pane -p -t b | grep -Eq "$frame_re"; then
		t1=$(date +%s%N)
		break
	fi
	if [ $(($(now_ms) - start)) -gt 10000 ]; then
		echo "bench_tui: pfmtop showed no full frame in 10 s" >&2
		tm capture-pane -p -t b >&2
		exit 1
	fi
	sleep 0.005
done
first_ms=$(((t1 - $(cat "$TMP/t0")) / 1000000))
pfm_pid=$(child_of b)

# perf top beside it, same event and frequency, in its own window.
tm new-window -d -t b: -n perf "cat /proc/\$\$/stat >'$TMP/perf.stat0'; exec env TERM=xterm-256color perf top -e cpu-clock -F $FREQ $cg_perf"
sleep 1
perf_pid=$(child_of b:perf)

sleep "$SECS"
pfm_cpu=$(cpu_s "$pfm_pid" "$TMP/pfm.stat0")
pfm_rss=$(rss_kb "$pfm_pid")
perf_cpu=$(cpu_s "$perf_pid" "$TMP/perf.stat0")
perf_rss=$(rss_kb "$perf_pid")
tm send-keys -t b:0 q
tm send-keys -t b:perf q
sleep 1 # both gone before the launches below

# The first full frame again, as the program writes it: three launches on a
# pseudo-terminal of the same size, with the workload still running (tmux,
# above, shows a frame some 30-100 ms after it is written; that is tmux's
# time, not pfmtop's).
pty_ms=
for _ in 1 2 3; do
	cache=()
	if [ "${COLD:-0}" != 0 ]; then
		cold_cache
		cache=("XDG_CACHE_HOME=$TMP/cache")
	fi
	# shellcheck disable=SC2086
	ms=$(env "${cache[@]}" TERM=xterm-256color /usr/bin/python3 "$here/first_frame.py" 120x40 \
		"$frame_re" -- "$PFMTOP" -F "$FREQ" --sample-event cpu-clock --view "${VIEW:-hotspots}" \
		$cg_pfm) || ms=10000
	pty_ms="$pty_ms $ms"
done
pty_med=$(printf '%s\n' $pty_ms | sort -n | sed -n 2p)

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
printf 'bench_tui: %d s, %s Hz cpu-clock%s, %d CPUs busy%s\n' "$SECS" "$FREQ" \
	"${CALLGRAPH:+, --call-graph $CALLGRAPH}" "$(nproc)" \
	"$(case "${COLD:-0}" in 1) echo ', pfmtop cold (after a boot: the kernel table an earlier boot left)' ;;
	kernel) echo ', pfmtop cold (a new kernel: no kernel symbol table cached)' ;;
	first) echo ', pfmtop on its first run (empty cache)' ;; esac)"
printf '%-10s %12s %14s\n' "" "CPU time (s)" "peak RSS (KiB)"
printf '%-10s %12s %14s\n' pfmtop "$pfm_cpu" "$pfm_rss"
printf '%-10s %12s %14s\n' "perf top" "$perf_cpu" "$perf_rss"
printf 'pfmtop/perf top: CPU %s, RSS %s (target 0.25 or less)\n' "$(ratio "$pfm_cpu" "$perf_cpu")" \
	"$(ratio "$pfm_rss" "$perf_rss")"
printf 'pfmtop first full frame: written %d ms after launch (median of%s ms; target under 150 ms), shown by tmux at %d ms\n' \
	"$pty_med" "$pty_ms" "$first_ms"
