#!/bin/bash
# Symbols where perf finds them: the vDSO (one row per function, at perf
# report's share), code in anonymous memory (its address, a row per 4 KB
# page), and debug files by build id in /usr/lib/debug/.build-id and in
# the user's perf cache (~/.debug/.build-id), and by .gnu_debuglink. Each
# fixture is built here.
. "$(dirname "$0")/lib.sh"
need_root # /usr/lib/debug
need_cmd gcc
need_cmd objcopy
need_cmd perf

out=$TMP/out err=$TMP/err
src=$TMP/src
mkdir -p "$src"

# hot_rows FILE: the final snapshot's hotspots, "share symbol module" a line
hot_rows() {
	json "$1" "'\\n'.join('%.1f %s %s' % (h['share'], h['symbol'], h['module']) for h in final['hotspots']['rows'])"
}
# top CMD...: run CMD under pfmtop and print its hotspot rows
top() {
	run "$out" "$err" timeout 60 "$PFMTOP" -b --format json --hot 10 -e task-clock -- "$@"
	expect_rc 0 "pfmtop -- $*" "$out" "$err"
	hot_rows "$out"
}

# --- the vDSO ---
cat >"$src/vdso.c" <<'C'
#include <time.h>
int main(void)
{
	struct timespec ts;
	double end;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + 2.0;
	do
		clock_gettime(CLOCK_MONOTONIC, &ts);
	while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	return 0;
}
C
gcc -O2 -o "$src/vdso" "$src/vdso.c"
top "$src/vdso" >"$TMP/rows"
mine=$(awk '$2 == "__vdso_clock_gettime" && $3 == "[vdso]" { print $1 }' "$TMP/rows")
[ -n "$mine" ] || fail "no __vdso_clock_gettime [vdso] row for a program that loops on clock_gettime" "$TMP/rows"
perf record -q -e cpu-clock -F 999 -o "$TMP/perf.data" -- "$src/vdso" >/dev/null 2>&1 || fail "perf record failed"
perf report -i "$TMP/perf.data" --stdio --sort sym,dso 2>/dev/null | grep -v '^#' >"$TMP/perf.rows"
theirs=$(awk '/__vdso_clock_gettime/ { sub("%", "", $1); print $1; exit }' "$TMP/perf.rows")
[ -n "$theirs" ] || fail "perf report has no __vdso_clock_gettime row" "$TMP/perf.rows"
# A vDSO names only its entry points: on some kernels the code of its
# internal functions (the clock reads behind __vdso_clock_gettime) has no
# name in the image, and perf shows it as 0x... [vdso] offsets. Where perf
# names every sample, so must pfmtop; where it cannot, pfmtop leaves unnamed
# only offsets perf leaves unnamed too.
if ! grep -q '0x[0-9a-f]* *\[vdso\]' "$TMP/perf.rows"; then
	grep -q '\[vdso\]+0x' "$TMP/rows" && fail "the vDSO is shown as [vdso]+0xOFFSET rows, not by function" "$TMP/rows"
	[ "$(grep -c ' \[vdso\]$' "$TMP/rows")" -eq 1 ] || fail "the vDSO function is split over several rows" "$TMP/rows"
	how="one row"
else
	while read -r share off; do
		grep -Eq "0x0*${off#0x} +\[vdso\]" "$TMP/perf.rows" ||
			fail "[vdso]+$off ($share%) is unnamed, and perf report names it" "$TMP/rows" "$TMP/perf.rows"
	done < <(awk '$3 == "[vdso]" && $2 ~ /^\[vdso\]\+0x/ && $1 >= 5 { sub(/^\[vdso\]\+/, "", $2); print $1, $2 }' "$TMP/rows")
	how="named as perf names it (this kernel's vDSO leaves $(grep -c '0x[0-9a-f]* *\[vdso\]' "$TMP/perf.rows") internal offsets unnamed for perf too)"
fi
check "abs($mine - $theirs) <= 10" "__vdso_clock_gettime: pfmtop $mine%, perf report $theirs%" "$TMP/rows"
pass "vDSO: __vdso_clock_gettime at $mine% (perf report: $theirs%), $how"

# --- a process that exited long before the totals ---
# Its rows in the final totals keep their names, however many refreshes
# came between its exit and the end (here about 8, at -d 0.2).
cat >"$src/early.c" <<'C'
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void early_spin(void)
{
	for (int i = 0; i < 1000; i++)
		sink += i;
}
int main(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		early_spin();
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 500000000L);
	return 0;
}
C
gcc -O2 -o "$src/early" "$src/early.c"
run "$out" "$err" timeout 60 "$PFMTOP" -b --format json --hot 3 -d 0.2 -e task-clock -- \
	sh -c "'$src/early'; sleep 1.6"
expect_rc 0 "pfmtop -- sh -c 'early; sleep 1.6'" "$out" "$err"
hot_rows "$out" >"$TMP/rows"
grep -q ' early_spin early$' "$TMP/rows" ||
	fail "the final totals do not name early_spin in a process that exited 1.6 s before them" "$TMP/rows"
pass "a process that exited 1.6 s before the totals keeps its names in them"

# --- anonymous executable memory ---
cat >"$src/anon.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
int main(void)
{
	/* dec %rdi; jnz .-3; ret, at page + 0x100 */
	static const unsigned char loop[] = {0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3};
	unsigned char *p = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec ts;
	double end;
	if (p == MAP_FAILED)
		return 1;
	memcpy(p + 0x100, loop, sizeof(loop));
	printf("%p\n", (void *)p);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + 1.5;
	do {
		((void (*)(long))(p + 0x100))(1000000);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	return 0;
}
C
gcc -O2 -o "$src/anon" "$src/anon.c"
[ "$(uname -m)" = x86_64 ] || skip_host "the anonymous-code fixture is x86-64 machine code"
run "$out" "$err" timeout 60 "$PFMTOP" -b --format json --hot 10 -e task-clock -o "$TMP/anon.json" -- "$src/anon"
page=$(head -1 "$out")
hot_rows "$TMP/anon.json" >"$TMP/rows"
awk -v p="$page" '$2 == p && $3 == "[anon]" && $1 > 50 { ok = 1 } END { exit !ok }' "$TMP/rows" ||
	fail "the loop in anonymous page $page is not one '$page [anon]' row of most samples" "$TMP/rows"
pass "anonymous code: one row '$page [anon]' ($(awk -v p="$page" '$2 == p { print $1 }' "$TMP/rows")%)"

# --- debug files ---
# build NAME: a program with its own build id (the salt), its debug file and
# a stripped copy
build() {
	sed "s/SALT/$1$$RANDOM/" >"$src/$1.c" <<'C'
#include <time.h>
__attribute__((noinline)) double hot_spin_here(double x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 1.0000001 + 0.5;
	return x;
}
const char salt[] = "SALT";
int main(void)
{
	struct timespec ts;
	double end, acc = 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + 1.5;
	do {
		acc += hot_spin_here(acc);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	return acc > 0 && salt[0] ? 0 : 1;
}
C
	gcc -O2 -g -Wl,--build-id -o "$src/$1.full" "$src/$1.c"
	objcopy --only-keep-debug "$src/$1.full" "$src/$1.debug"
	objcopy --strip-all "$src/$1.full" "$src/$1"
}
build_id() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
expect_symbol() {
	local what=$1
	shift
	top "$@" >"$TMP/rows"
	awk '$2 == "hot_spin_here" && $1 > 50 { ok = 1 } END { exit !ok }' "$TMP/rows" ||
		fail "$what: hot_spin_here is not named" "$TMP/rows"
}

# stripped, no debug file: no name (the fixture is sound)
build plain
top "$src/plain" >"$TMP/rows"
grep -q hot_spin_here "$TMP/rows" && fail "a stripped binary with no debug file was named: the fixture is wrong" "$TMP/rows"

# /usr/lib/debug/.build-id/XX/REST.debug
build sys
id=$(build_id "$src/sys")
dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
[ ! -e "$dbg" ] || fail "$dbg exists already"
mkdir -p "$(dirname "$dbg")"
cleanup_add "rm -f '$dbg'"
cp "$src/sys.debug" "$dbg"
expect_symbol "a debug file in /usr/lib/debug/.build-id" "$src/sys"
rm -f "$dbg"
pass "build id in /usr/lib/debug/.build-id"

# ~/.debug/.build-id/XX/REST -> a directory with elf, perf's layout
build home
id=$(build_id "$src/home")
home=$TMP/home
mkdir -p "$home/.debug/.build-id/${id:0:2}" "$home/.debug$src/home/$id"
cp "$src/home.full" "$home/.debug$src/home/$id/elf"
ln -s "../..$src/home/$id" "$home/.debug/.build-id/${id:0:2}/${id:2}"
HOME=$home expect_symbol "perf's build-id cache in \$HOME/.debug" "$src/home"
# a file the user could not read is not taken, wherever the link points
chown nobody "$home/.debug$src/home/$id/elf"
chmod 600 "$home/.debug$src/home/$id/elf"
HOME=$home top "$src/home" >"$TMP/rows"
grep -q hot_spin_here "$TMP/rows" && fail "a cache file of another user, mode 600, was read" "$TMP/rows"
pass "build id in ~/.debug/.build-id (perf's cache), and only files its user may read"

# .gnu_debuglink, the debug file beside the binary
build link
objcopy --add-gnu-debuglink="$src/link.debug" "$src/link"
expect_symbol "a .gnu_debuglink debug file beside the binary" "$src/link"
pass ".gnu_debuglink"

# MiniDebugInfo: the functions .dynsym lacks, as an xz-compressed .symtab in
# the binary's .gnu_debugdata (how Fedora ships its binaries)
need_cmd xz
build mini
nm -D "$src/mini.full" --format=posix --defined-only | awk '{ print $1 }' | sort >"$TMP/dynsyms"
nm "$src/mini.full" --format=posix --defined-only | awk '$2 == "T" || $2 == "t" { print $1 }' |
	sort >"$TMP/funcsyms"
comm -13 "$TMP/dynsyms" "$TMP/funcsyms" >"$TMP/keep"
grep -qx hot_spin_here "$TMP/keep" || fail "the MiniDebugInfo fixture would not keep hot_spin_here" "$TMP/keep"
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$TMP/keep" \
	"$src/mini.debug" "$src/mini.mdi"
xz -f "$src/mini.mdi"
objcopy --add-section .gnu_debugdata="$src/mini.mdi.xz" "$src/mini"
expect_symbol "MiniDebugInfo (.gnu_debugdata)" "$src/mini"
# a damaged one names nothing, and breaks nothing
build bad
head -c 200 /dev/urandom >"$src/bad.xz"
objcopy --add-section .gnu_debugdata="$src/bad.xz" "$src/bad"
top "$src/bad" >"$TMP/rows"
grep -q hot_spin_here "$TMP/rows" && fail "a garbage .gnu_debugdata named a function" "$TMP/rows"
pass "MiniDebugInfo (.gnu_debugdata); a garbage one is ignored"
