#!/bin/bash
# A JIT process of the user nobody owns /tmp/perf-PID.map, and with it what
# root's pfmtop reads for it. Whatever nobody makes of that file, root's
# `pfmtop -b -d 0.5` keeps to the security section's bar (no interval over
# 0.75 s, RSS under 60 MB, victim_stop) and names nothing from a file of
# root's:
#  1. the map made a sparse 1 GB file (before: 1,053 MB of RSS, 8.5 s gap);
#  2. a 200 MB map touched every second (before: 1.5-3.5 s gaps);
#  3. the map replaced by a symbolic link to a root-only file that is a
#     perf map naming the JIT's code (before: its name was shown).
# (test_perfmap_bound: thousands of new names a second.)
source "$(dirname "$0")/lib.sh"

need_root
[ "$(uname -m)" = x86_64 ] || skip_host "jitmap runs x86-64 code"
nobody_setup
install -m 755 "$(helper jitmap)" "$TMP/bin/jitmap"

# jit_start SECS: nobody's jitmap with one region of code, named once (a
# rate so low that no second region comes); JIT is its pid, MAP its map
jit_start() {
	(cd /tmp && as_nobody "$TMP/bin/jitmap" "$1" 0.001 60 >"$TMP/jit.out" 2>&1) &
	cleanup_add "kill $!"
	wait_for 5 grep -q ready "$TMP/jit.out" || fail "jitmap did not start" "$TMP/jit.out"
	JIT=$(pgrep -n -u nobody -x jitmap) || fail "no jitmap process"
	MAP=/tmp/perf-$JIT.map
	cleanup_add "kill $JIT; rm -f $MAP"
}
jit_rows() { json "$TMP/victim.json" "[r['symbol'] for l in lines for r in l['hotspots']['rows'] if r['pid'] == $JIT $1]"; }

# --- 1. a sparse 1 GB map ---
jit_start 12
victim_start --hot-sort pid,dso,sym
victim_watch 2
as_nobody truncate -s 1G "$MAP"
victim_watch 6
victim_stop "nobody's perf map made a sparse 1 GB file"
kill "$JIT"
pass "a 1 GB perf map costs root's pfmtop no stall and no memory"

# --- 2. a 200 MB map touched every second ---
jit_start 12
victim_start --hot-sort pid,dso,sym
as_nobody sh -c "head -c 200000000 /dev/urandom | tr -c '0-9a-f \n' 'x' >>'$MAP'"
for _ in 1 2 3 4 5 6 7 8; do
	as_nobody touch "$MAP"
	victim_watch 1
done
victim_stop "nobody's 200 MB perf map, touched every second"
kill "$JIT"
pass "a 200 MB perf map touched every second costs root's pfmtop no stall"

# --- 3. the map a link to a root-only file ---
jit_start 14
read -r start _ <"$MAP"
printf '%s 4000 ROOT_ONLY_NAME\n' "$start" >"$TMP/root.map" # the whole region
chmod 600 "$TMP/root.map"
as_nobody ln -sf "$TMP/root.map" "$MAP"
victim_start --hot-sort pid,dso,sym
victim_watch 5
victim_stop "nobody's perf map a link to a root-only file"
[ "$(jit_rows "and 'ROOT_ONLY' in r['symbol']")" = "[]" ] ||
	fail "root's pfmtop read a root-only file through nobody's perf map link"
[ "$(jit_rows "")" != "[]" ] || fail "the JIT was never sampled" "$TMP/victim.err"
pass "a perf map link to a root-only file is not followed"
