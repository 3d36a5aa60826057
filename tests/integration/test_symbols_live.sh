#!/bin/bash
# Live symbolization of shared-library and kernel hotspots:
#   - memburn memfrob spends its time in libc's exported memfrob: the top row
#     must be symbol "memfrob", module "libc.so.6";
#   - memburn memset spends it in libc's memset implementation (an ifunc
#     target such as __memset_avx2_unaligned_erms, named only in libc's full
#     symbol table or its separate debug file): the top row must be module
#     libc.so.6 with a symbol starting with __mem or mem, whenever perf report
#     names it on this machine;
#   - memburn zero reads /dev/zero in 1 MiB chunks, so the kernel zeroes user
#     memory: the top kernel row must be kernel=true, module "[kernel]", and a
#     real function name from /proc/kallsyms (root and kptr_restrict 0 only).
. "$(dirname "$0")/lib.sh"

memburn=$(helper memburn)
out=$TMP/out err=$TMP/err
rows=$TMP/rows
failed=

# profile MODE: run pfmtop on memburn MODE; the snapshots are in $out, the
# command's pid in $pid, its top rows (for failure messages) in $rows.
profile() {
	run "$out" "$err" "$PFMTOP" -b --format json -F 2000 --hot 20 -- "$memburn" "$1" 1
	expect_rc 0 "pfmtop -b --format json -F 2000 --hot 20 -- memburn $1 1" "$out" "$err"
	json_check "$out" 'final is not None and final["sampling"]["enabled"] is True' \
		"no final snapshot with sampling enabled"
	pid=$(json "$out" 'next(t["pid"] for t in final["tasks"] if t["comm"] == "memburn")')
	json "$out" "'\\n'.join(['%7.2f%% %5d %-6s %-40s %s' % (r['share'], r['samples'],
		'kernel' if r['kernel'] else 'user', r['symbol'], r['module'])
		for r in final['hotspots']['rows'] if r['pid'] == $pid][:8])" >"$rows"
}

# top FIELD [COND]: FIELD of the command's highest-share row (with COND, a
# Python expression on r, true); "null" if there is none.
top() {
	json "$out" "(lambda r: r and r['$1'])(max((r for r in final['hotspots']['rows']
		if r['pid'] == $pid and (${2:-True})), key=lambda r: r['share'], default=None))"
}

# An address, not a name: "0x...", "module+0x...", "[...]".
unnamed() { [[ $1 =~ ^(0x[0-9a-fA-F]+|.*\+0x[0-9a-fA-F]+|\[.*\])$ ]]; }

# --- an exported libc function ---
profile memfrob
sym=$(top symbol) mod=$(top module) kern=$(top kernel) share=$(top share)
info "memfrob: top row '$sym' in '$mod' (kernel $kern), $share%"
[ "$sym" = memfrob ] && [ "$mod" = libc.so.6 ] && [ "$kern" = 0 ] ||
	fail "memburn memfrob: the top row is '$sym' in '$mod' (kernel $kern), expected user symbol memfrob in libc.so.6" "$rows"
check "$share >= 50" "memburn memfrob: memfrob holds only $share% of the samples, expected >= 50%" "$rows"
pass "memfrob: $share% in libc.so.6 memfrob"

# --- libc's memset implementation ---
profile memset
sym=$(top symbol) mod=$(top module) kern=$(top kernel) share=$(top share)
info "memset: top row '$sym' in '$mod' (kernel $kern), $share%"
[ "$mod" = libc.so.6 ] && [ "$kern" = 0 ] ||
	fail "memburn memset: the top row is '$sym' in '$mod' (kernel $kern), expected a user row in libc.so.6" "$rows"
check "$share >= 50" "memburn memset: the top row holds only $share% of the samples, expected >= 50%" "$rows"
# Can this machine name that code at all? Ask perf (it reads libc's separate
# debug file, e.g. from libc6-dbg, or an unstripped libc).
perf_sym=
if command -v perf >/dev/null 2>&1 &&
	perf record -q -F 2000 -e cpu-clock -o "$TMP/perf.data" -- "$memburn" memset 1 >"$TMP/perf.rec" 2>&1 &&
	perf report -i "$TMP/perf.data" --stdio --no-children -F overhead,sym,dso >"$TMP/perf.rep" 2>/dev/null; then
	perf_sym=$(awk '$2 == "[.]" && $NF == "libc.so.6" { print $3; exit }' "$TMP/perf.rep")
	info "memset: perf report's top libc symbol: '$perf_sym'"
fi
if [ -z "$perf_sym" ] || unnamed "$perf_sym"; then
	info "memset: perf cannot name libc's memset implementation here either; not asking pfmtop to"
elif unnamed "$sym" || ! [[ $sym =~ ^(__mem|mem) ]]; then
	# Reported at the end, so the kernel part below still runs.
	failed="memburn memset: the top row is '$sym' in libc.so.6, but perf report names the same code '$perf_sym' (expected a symbol starting with __mem or mem)"
	cp "$rows" "$TMP/rows.memset"
	echo "FAIL (deferred): $failed"
else
	pass "memset: top row '$sym' in libc.so.6 (perf report: '$perf_sym')"
fi

# --- a kernel function ---
if [ "$(id -u)" -ne 0 ]; then
	info "kernel symbols: skipped, needs root"
elif [ "$(cat /proc/sys/kernel/kptr_restrict)" != 0 ]; then
	info "kernel symbols: skipped, kptr_restrict is $(cat /proc/sys/kernel/kptr_restrict), not 0"
else
	profile zero
	ksym=$(top symbol "r['kernel']") kmod=$(top module "r['kernel']")
	kshare=$(json "$out" "round(sum(r['share'] for r in final['hotspots']['rows'] if r['pid'] == $pid and r['kernel']), 2)")
	info "zero: top kernel row '$ksym' in '$kmod'; kernel rows hold $kshare% of the samples"
	[ "$ksym" != null ] || fail "memburn zero: no kernel row at all" "$rows"
	check "$kshare >= 50" "memburn zero: kernel rows hold only $kshare% of the samples, expected >= 50% (reading /dev/zero is kernel work)" "$rows"
	[ "$kmod" = "[kernel]" ] || fail "memburn zero: the top kernel row's module is '$kmod', expected [kernel]" "$rows"
	! unnamed "$ksym" || fail "memburn zero: the top kernel row is '$ksym', an address, not a function name" "$rows"
	awk -v s="$ksym" '$3 == s { found = 1; exit } END { exit !found }' /proc/kallsyms ||
		fail "memburn zero: the top kernel row's symbol '$ksym' is not in /proc/kallsyms" "$rows"
	pass "zero: top kernel row '$ksym' in [kernel], a /proc/kallsyms name"
fi

[ -z "$failed" ] || fail "$failed" "$TMP/rows.memset"
pass "libc and kernel hotspots carry function names"
