#!/bin/bash
# A process that ran before pfmtop started and exits before its samples are
# read keeps its name in the hotspot rows (pfmtop names every running
# process as sampling starts, as perf synthesizes COMM records): before, its
# rows read COMMAND "?".
source "$(dirname "$0")/lib.sh"

need_root # system-wide sampling
need_cmd python3
# asleep while pfmtop starts, then 0.3 s of CPU and gone: too few samples
# to wake the reader before it exits
python3 -c '
import time
time.sleep(1.5)
t = time.time()
while time.time() - t < 0.3:
    pass' &
late=$!
cleanup_add "kill $late"
sleep 0.3
run "$TMP/out" "$TMP/err" "$PFMTOP" -b -d 3 -n 1 --format json --hot-sort pid,comm,sym --hot 100
expect_rc 0 "pfmtop -b -d 3 -n 1" "$TMP/err"
names=$(json "$TMP/out" "sorted({r['comm'] for l in lines for r in l['hotspots']['rows'] if r['pid'] == $late})")
[ "$names" != "[]" ] || skip_host "the late process got no sample row (a busy machine?)"
[ "$names" = "['python3']" ] || fail "the process that ran before pfmtop and exited is named $names, not python3"
pass "a process from before pfmtop that exits before its samples are read keeps its name"
