#!/bin/bash
# The per-boot cache of the kernel symbol table. pfmtop runs memburn zero (the
# kernel's read_zero does the work) three times with HOME and XDG_CACHE_HOME
# in a temporary directory, under strace -e trace=openat,read,close:
#   1. no cache yet: /proc/kallsyms is read in full and
#      $XDG_CACHE_HOME/pfmtop/kallsyms-BOOT_ID written (mode 0600, directory
#      0700), the file of another boot planted there removed;
#   2. the cache is used: /proc/kallsyms is opened once and read once, 4 KiB
#      at most (the check that it still starts as the file says); then as
#      the file an earlier boot left (another boot id): used the same way
#      when /sys/kernel/notes gives the kernel's build id, and renamed;
#   3. PFMTOP_NO_KSYM_CACHE=1: read in full again, nothing written.
# Every run names the command's kernel hotspots with /proc/kallsyms text
# symbols, and the top one is the same in all three.
. "$(dirname "$0")/lib.sh"

need_root
need_cmd strace
awk 'NR <= 200 && $1 !~ /^0+$/ { found = 1; exit } END { exit !found }' /proc/kallsyms ||
	skip_host "/proc/kallsyms hides its addresses (kptr_restrict)"

memburn=$(helper memburn)
home=$TMP/home
xdg=$home/xdg
boot=$(cat /proc/sys/kernel/random/boot_id)
file=$xdg/pfmtop/kallsyms-$boot
stale=$xdg/pfmtop/kallsyms-00000000-0000-4000-8000-000000000000
out=$TMP/out err=$TMP/err trace=$TMP/trace
mkdir -m 700 "$home"

# profile N [ENV...]: run pfmtop on memburn zero under strace; the output is
# in $out.N, the trace in $trace.N. (LeakSanitizer cannot run under ptrace:
# off, for the sanitizer build.)
profile() {
	local n=$1
	shift
	run "$out.$n" "$err.$n" env HOME="$home" XDG_CACHE_HOME="$xdg" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$@" \
		strace -o "$trace.$n" -e trace=openat,read,close \
		"$PFMTOP" -b --format json -F 2000 --hot 50 -- "$memburn" zero 1
	expect_rc 0 "run $n: pfmtop -b --format json -F 2000 --hot 50 -- memburn zero 1" "$out.$n" "$err.$n"
}

# kallsyms_io N: "OPENS READS BYTES": how often run N opened /proc/kallsyms,
# and the reads and bytes read on those descriptors.
kallsyms_io() {
	python3 - "$trace.$1" <<'EOF'
import re, sys
opens = reads = nbytes = 0
fds = set()
for line in open(sys.argv[1]):
    m = re.match(r'openat\(.*"/proc/kallsyms".*\) = (\d+)', line)
    if m:
        opens += 1
        fds.add(int(m.group(1)))
        continue
    m = re.match(r'read\((\d+), .*\) = (\d+)', line)
    if m and int(m.group(1)) in fds:
        reads += 1
        nbytes += int(m.group(2))
        continue
    m = re.match(r'close\((\d+)\)', line)
    if m:
        fds.discard(int(m.group(1)))
print(opens, reads, nbytes)
EOF
}

# kernel_rows N: the kernel hotspots of memburn in run N, "share symbol module"
# by share; fails unless each is a text symbol of /proc/kallsyms.
kernel_rows() {
	local o=$out.$1 pid
	pid=$(json "$o" 'next(t["pid"] for t in final["tasks"] if t["comm"] == "memburn")')
	json "$o" "'\\n'.join('%.2f %s %s' % (r['share'], r['symbol'], r['module'])
		for r in sorted(final['hotspots']['rows'], key=lambda r: -r['share'])
		if r['pid'] == $pid and r['kernel'])" >"$TMP/rows.$1"
	[ -s "$TMP/rows.$1" ] || fail "run $1: no kernel hotspot for memburn zero" "$o"
	awk 'NR == FNR { if ($2 ~ /^[tTwW]$/) text[$3] = 1; next }
		!($2 in text) { print "not a kallsyms text symbol: " $0; bad = 1 }
		END { exit bad }' /proc/kallsyms "$TMP/rows.$1" >"$TMP/bad.$1" ||
		fail "run $1: kernel hotspots not named from kallsyms" "$TMP/bad.$1" "$TMP/rows.$1"
	head -1 "$TMP/rows.$1" | awk '{ print $2 }'
}

# --- 1: no cache yet ---
mkdir -p -m 700 "$xdg/pfmtop"
echo stale >"$stale"
profile 1
[ -f "$file" ] || fail "run 1 wrote no $file" "$err.1"
[ "$(stat -c %a "$file")" = 600 ] || fail "$file has mode $(stat -c %a "$file"), expected 600"
[ "$(stat -c %u "$file")" = "$(id -u)" ] || fail "$file is not owned by uid $(id -u)"
[ "$(stat -c %a "$xdg/pfmtop")" = 700 ] || fail "$xdg/pfmtop has mode $(stat -c %a "$xdg/pfmtop")"
[ ! -e "$stale" ] || fail "run 1 left the cache file of another boot"
read -r opens reads bytes < <(kallsyms_io 1)
info "run 1: /proc/kallsyms opened $opens time(s), $reads reads, $bytes bytes; cache $(stat -c %s "$file") bytes"
check "$bytes >= 100000" "run 1 should read /proc/kallsyms in full" "$trace.1"
top1=$(kernel_rows 1)
pass "no cache: kallsyms read in full, $(basename "$file") written (0600), stale file removed"

# --- 2: the cache is used ---
profile 2
read -r opens reads bytes < <(kallsyms_io 2)
info "run 2: /proc/kallsyms opened $opens time(s), $reads read(s), $bytes bytes"
grep -E 'kallsyms|pfmtop/' "$trace.2" >"$TMP/kallsyms.2" || true
[ "$opens" = 1 ] || fail "run 2 opened /proc/kallsyms $opens times, expected once" "$TMP/kallsyms.2"
[ "$reads" = 1 ] && check "$bytes <= 4096" "run 2 read $bytes bytes of /proc/kallsyms" "$TMP/kallsyms.2" ||
	fail "run 2 read /proc/kallsyms $reads times, expected once (4 KiB at most)" "$TMP/kallsyms.2"
grep -q "openat(.*\"kallsyms-$boot\"" "$trace.2" || fail "run 2 did not open the cache file" "$TMP/kallsyms.2"
top2=$(kernel_rows 2)
pass "cache: kallsyms opened once, one read of $bytes bytes"

# --- 2b: the file an earlier boot of this kernel left ---
# The file renamed to another boot's name, with that boot id in its header
# (40 bytes in), as a reboot leaves it. With the kernel's build id in
# /sys/kernel/notes it is used, and renamed to this boot's name.
kbuild=$(python3 - <<'EOF2'
import struct
try:
    b = open('/sys/kernel/notes', 'rb').read()
except OSError:
    b = b''
o = 0
while o + 12 <= len(b):
    n, d, t = struct.unpack_from('<III', b, o)
    name, desc = o + 12, o + 12 + (n + 3) // 4 * 4
    if t == 3 and b[name:name + n] == b'GNU\0':
        print(b[desc:desc + d].hex())
        break
    o = desc + (d + 3) // 4 * 4
EOF2
)
mv "$file" "$stale"
printf '%s' "${stale##*kallsyms-}" | dd of="$stale" bs=1 seek=40 conv=notrunc status=none
profile 2b
read -r opens reads bytes < <(kallsyms_io 2b)
grep -E 'kallsyms|pfmtop/' "$trace.2b" >"$TMP/kallsyms.2b" || true
if [ -n "$kbuild" ]; then
	[ "$opens" = 1 ] && [ "$reads" = 1 ] && check "$bytes <= 4096" "run 2b read $bytes bytes of /proc/kallsyms" "$TMP/kallsyms.2b" ||
		fail "run 2b (an earlier boot's file, kernel build id $kbuild) read /proc/kallsyms $reads times in $opens opens, expected one read of 4 KiB at most" "$TMP/kallsyms.2b"
	[ -f "$file" ] && [ ! -e "$stale" ] || fail "run 2b did not rename the earlier boot's file to this boot's" "$TMP/kallsyms.2b"
	top2b=$(kernel_rows 2b)
	[ "$top2b" = "$top2" ] || fail "run 2b: top kernel hotspot '$top2b', with this boot's file '$top2'" "$TMP/rows.2b" "$TMP/rows.2"
	pass "an earlier boot's file of this kernel ($kbuild): used with one read of $bytes bytes, renamed"
else
	check "$bytes >= 100000" "run 2b (no kernel build id) should read /proc/kallsyms in full" "$trace.2b"
	[ ! -e "$stale" ] || fail "run 2b left the cache file of another boot"
	pass "no kernel build id in /sys/kernel/notes: an earlier boot's file is not used"
fi

# --- 3: disabled ---
rm -f "$file"
profile 3 PFMTOP_NO_KSYM_CACHE=1
read -r opens reads bytes < <(kallsyms_io 3)
check "$bytes >= 100000" "run 3 (PFMTOP_NO_KSYM_CACHE=1) should read /proc/kallsyms in full" "$trace.3"
[ ! -e "$file" ] || fail "run 3 (PFMTOP_NO_KSYM_CACHE=1) wrote $file"
top3=$(kernel_rows 3)
pass "PFMTOP_NO_KSYM_CACHE=1: kallsyms read in full, nothing written"

info "top kernel symbol: '$top1' (kallsyms), '$top2' (cache), '$top3' (no cache)"
[ "$top1" = "$top2" ] && [ "$top2" = "$top3" ] ||
	fail "the top kernel hotspot differs: '$top1', '$top2' (cache), '$top3'" "$TMP/rows.1" "$TMP/rows.2" "$TMP/rows.3"
pass "kernel hotspots named from kallsyms alike with and without the cache ('$top1')"
