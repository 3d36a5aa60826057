#!/bin/bash
# What root's pfmtop reads on behalf of another user's process is theirs to
# name, not theirs to aim: the user nobody, attacking root's pfmtop, cannot
#  1. stall it with a .gnu_debuglink naming a huge (sparse) file: no CRC of
#     it is taken in the loop (a 4 GB one stalled it ~5 s per binary);
#  2. make `--annotate` print a file nobody cannot read, through a line
#     table that says its code is in /etc/shadow (while a source file that
#     nobody can read is still shown);
#     (nor, through --web-config, quote the first line of it);
#  3. plant the symbol names root sees for root's own process, with a debug
#     file for libm (the very build id) in a mount namespace of nobody's,
#     whose process loaded libm first.
# During each attack root's `pfmtop -b -d 0.5` has no interval over 0.75 s
# and stays under 60 MB (victim_stop).
source "$(dirname "$0")/lib.sh"

need_root
need_cmd cc objcopy readelf nm
nobody_setup
NB=$TMP/nb
mkdir -m 755 "$NB"
chown nobody:"$group" "$NB"
nb() { as_nobody sh -c "cd '$NB' && $1"; }
rows() { json "$TMP/victim.json" "[(r['pid'], r['comm'], r['symbol'], r['module']) for l in lines for r in l['hotspots']['rows'] $1]"; }

# --- 1. a debug link to a huge file ---
cat >"$NB/spin.c" <<'EOF'
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) unsigned long spin_link(unsigned long n)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		x += i;
	return x;
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + atoi(argv[1]);
	while (time(NULL) < end)
		spin_link(1000000);
	return 0;
}
EOF
chown nobody "$NB/spin.c"
nb 'cc -O1 -o spin_id spin.c && cc -O1 -Wl,--build-id=none -o spin_noid spin.c && : >evil.debug &&
	objcopy --add-gnu-debuglink=evil.debug spin_id && objcopy --add-gnu-debuglink=evil.debug spin_noid &&
	truncate -s 4G evil.debug' || fail "nobody could not build the spinners"
victim_start
nb 'exec ./spin_id 4' &
id_pid=$!
nb 'exec ./spin_noid 4' &
noid_pid=$!
cleanup_add "kill $id_pid $noid_pid"
victim_watch 1
pids=$(pgrep -u nobody -x 'spin_(no)?id' | tr '\n' ' ')
victim_watch 4
wait "$id_pid" "$noid_pid" || true
victim_stop "a .gnu_debuglink to a sparse 4 GB file"
[ "$(wc -w <<<"$pids")" = 2 ] || fail "the two spinners did not run (pids: $pids)"
for p in $pids; do
	[ "$(rows "if r['pid'] == $p and r['symbol'] == 'spin_link'")" != "[]" ] ||
		fail "pid $p's function is not named from its own symbols: $(rows "if r['pid'] == $p" | head -c 400)"
done
pass "a debug link to a huge file costs root's pfmtop no stall, and the binaries keep their names"

# --- 2. a line table that names /etc/shadow ---
[ -r /etc/shadow ] && [ -s /etc/shadow ] || skip_host "no /etc/shadow to aim at"
secret=$(head -1 /etc/shadow | cut -d: -f1-2)
cat >"$NB/prog.c" <<EOF
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) unsigned long spin_ok(unsigned long n)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		x += i * 3; /* visible_source_marker */
	return x;
}
#line 1 "/etc/shadow"
__attribute__((noinline)) unsigned long spin_here(unsigned long n)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		x += i;
	return x;
}
#line 30 "$NB/prog.c"
int main(int argc, char **argv)
{
	time_t end = time(NULL) + atoi(argv[1]);
	while (time(NULL) < end)
		spin_ok(500000), spin_here(500000);
	return 0;
}
EOF
chown nobody "$NB/prog.c"
nb 'cc -g -O1 -o prog prog.c' || fail "nobody could not build prog"
nb 'exec ./prog 30' &
cleanup_add "kill $!"
wait_for 5 pgrep -u nobody -x prog >/dev/null || fail "nobody's prog did not start"
prog=$(pgrep -u nobody -x prog)
for f in spin_here spin_ok; do
	run "$TMP/$f.out" "$TMP/$f.err" "$PFMTOP" -b -d 1.5 -n 1 -p "$prog" --annotate "$f"
	expect_rc 0 "pfmtop -b -p PID --annotate $f" "$TMP/$f.err"
	grep -qE "^  [0-9]+ samples in the function" "$TMP/$f.out" || fail "$f was not sampled" "$TMP/$f.out"
done
! grep -qF "$secret" "$TMP/spin_here.out" || fail "--annotate printed /etc/shadow for nobody's program"
! grep -qE 'shadow:[0-9]+  .' "$TMP/spin_here.out" || fail "--annotate shows lines of /etc/shadow" "$TMP/spin_here.out"
grep -q 'prog.c:[0-9]*  x += i \* 3; /\* visible_source_marker' "$TMP/spin_ok.out" ||
	fail "--annotate no longer shows a source file nobody can read" "$TMP/spin_ok.out"
{
	kill "$prog"
	wait
} 2>/dev/null || true
pass "--annotate shows nobody's own source, not /etc/shadow its line table names"

# --- 2b. a --web-config that is a link to /etc/shadow ---
ln -s /etc/shadow "$TMP/web.yml"
run "$TMP/web.out" "$TMP/web.err" "$PFMTOP" --listen 127.0.0.1:1 --web-config "$TMP/web.yml" -b -n 1
expect_rc 2 "--web-config naming /etc/shadow" "$TMP/web.err"
! grep -qF "$secret" "$TMP/web.err" || fail "--web-config's error quotes /etc/shadow"
grep -q "web.yml:1: " "$TMP/web.err" || fail "--web-config's error names no line" "$TMP/web.err"
pass "a --web-config that is a link to /etc/shadow is refused by line, not quoted"

# --- 3. a forged debug file for libm, in nobody's mount namespace ---
cat >"$TMP/bin/mathloop.c" <<'EOF'
#include <math.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
	volatile double x = 0.5;
	time_t end = time(NULL) + atoi(argv[1]);
	while (time(NULL) < end)
		for (int i = 0; i < 100000; i++)
			x = sin(x) + cos(x) * 0.5;
	return 0;
}
EOF
cc -O1 -o "$TMP/bin/mathloop" "$TMP/bin/mathloop.c" -lm || fail "could not build mathloop"
libm=$(ldd "$TMP/bin/mathloop" | awk '/libm\.so/ { print $3 }')
libm=$(readlink -f "$libm")
bid=$(readelf -n "$libm" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || skip_host "$libm has no build id"
read -r text_addr text_size < <(readelf -SW "$libm" | sed 's/^ *\[ *[0-9]*\]//' |
	awk '$1 == ".text" { print $3, $5 }')
# one function over the whole of libm's .text, at its addresses, under its
# build id: what a renamed copy of libm's real debug file would name
printf '.text\n.globl FORGED_libm\n.type FORGED_libm,@function\nFORGED_libm:\n.skip 0x%s\n.size FORGED_libm, .-FORGED_libm\n' \
	"$text_size" >"$TMP/forged.s"
cc -shared -nostdlib -Wl,--build-id=0x"$bid" -Wl,--section-start=.text=0x"$text_addr" \
	-o "$TMP/bin/forged.debug" "$TMP/forged.s" 2>"$TMP/forge.err" ||
	skip_host "could not link a forged debug file: $(tail -1 "$TMP/forge.err")"
chmod 644 "$TMP/bin/forged.debug"
as_nobody unshare -Urm true 2>/dev/null || skip_host "unprivileged user namespaces are off here"
dir=/usr/lib/debug/.build-id/${bid:0:2}
[ -d /usr/lib/debug ] || skip_host "no /usr/lib/debug to mount over"
victim_start --hot-sort pid,dso,sym
as_nobody unshare -Urm sh -c "mount -t tmpfs tmpfs /usr/lib/debug && mkdir -p $dir &&
	cp forged.debug $dir/${bid:2}.debug && exec ./mathloop 8" 2>"$TMP/ns.err" &
ns_job=$!
cleanup_add "kill $ns_job"
victim_watch 2
kill -0 "$ns_job" 2>/dev/null || fail "nobody's namespace did not start" "$TMP/ns.err"
"$TMP/bin/mathloop" 4 &
root_math=$!
cleanup_add "kill $root_math"
victim_watch 5
wait "$root_math" || true
victim_stop "a forged libm debug file in nobody's namespace"
[ "$(rows "if r['symbol'].startswith('FORGED')")" = "[]" ] ||
	fail "root's pfmtop shows names from nobody's forged debug file: $(rows "if r['symbol'].startswith('FORGED')" | head -c 300)"
[ "$(rows "if r['pid'] == $root_math and r['module'].startswith('libm')")" != "[]" ] ||
	fail "root's mathloop has no libm rows to check: $(rows "if r['pid'] == $root_math" | head -c 400)"
pass "a debug file nobody planted names nothing, for root's process or nobody's own"
