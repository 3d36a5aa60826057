# Shared by the observer benchmarks (bench_observer.sh, bench_switchgroups.sh):
# sourced after TMP is set. OBS_PID is the observer running in the
# background (empty: none); stop_observer ends it (SIGINT, then SIGKILL
# after 5 s) and any tmux server on $TMP/tmux.sock.
# shellcheck shell=bash
OBS_PID=
stop_observer() {
	if [ -n "$OBS_PID" ]; then
		kill -INT "$OBS_PID" 2>/dev/null || true
		for _ in $(seq 100); do
			kill -0 "$OBS_PID" 2>/dev/null || break
			sleep 0.05
		done
		kill -KILL "$OBS_PID" 2>/dev/null || true
		wait "$OBS_PID" 2>/dev/null || true
	fi
	OBS_PID=
	tmux -S "$TMP/tmux.sock" kill-server 2>/dev/null || true
}
trap 'stop_observer; rm -rf "$TMP"' EXIT
