#!/bin/bash
# --hot-sort KEYS: hotspot rows grouped by perf's sort keys. Six short
# processes run one system call loop: grouped by sym, a kernel function of
# that loop is one row over all of them (its processes counted, no single
# PID), while pid,sym gives it a row per process; the shares of all rows
# still add up to 100; the default is perf top's dso,sym; a bad key list
# is a usage error.
. "$(dirname "$0")/lib.sh"
need_root # kernel samples and symbols

sc=$(helper syscalls_n)
out=$TMP/out err=$TMP/err
work="for i in 1 2 3 4 5 6; do $sc 400000 & done; wait"

run "$out" "$err" timeout 60 "$PFMTOP" -b --format json --hot-sort sym --hot 100000 -F 2000 \
	-e task-clock -- sh -c "$work"
expect_rc 0 "pfmtop --hot-sort sym -- six syscall loops" "$out" "$err"
json_check "$out" "final['hotspots']['keys'] == 'sym'" "the snapshot does not name its keys"
json_check "$out" "abs(sum(r['share'] for r in final['hotspots']['rows']) - 100) <= 0.0005 * len(final['hotspots']['rows']) + 1e-9" \
	"the shares of all rows do not add up to 100 (each rounded to 0.001)"
json_check "$out" "len({(r['symbol'], r['module']) for r in final['hotspots']['rows']}) == len(final['hotspots']['rows'])" \
	"a symbol has two rows when grouped by sym"
krow="max((r for r in final['hotspots']['rows'] if r['kernel']), key=lambda r: r['processes'])"
kname=$(json "$out" "$krow['symbol']")
kprocs=$(json "$out" "$krow['processes']")
json_check "$out" "$krow['processes'] >= 3 and $krow['pid'] == -1" \
	"no kernel function merged over several processes (best: $kname over $kprocs)"
pass "--hot-sort sym: kernel function $kname is one row over $kprocs processes; shares add up to 100"

run "$out" "$err" timeout 60 "$PFMTOP" -b --format json --hot-sort pid,sym --hot 100000 -F 2000 \
	-e task-clock -- sh -c "$work"
expect_rc 0 "pfmtop --hot-sort pid,sym" "$out" "$err"
# The kernel function with rows in the most processes (on a busy machine
# it need not be the one the first run merged most widely).
kpids="{r['symbol']: len({q['pid'] for q in final['hotspots']['rows'] if q['kernel'] and q['symbol'] == r['symbol']}) for r in final['hotspots']['rows'] if r['kernel']}"
kname=$(json "$out" "max($kpids.items(), key=lambda kv: kv[1])[0] if $kpids else ''")
json_check "$out" "$kpids.get('$kname', 0) >= 3" \
	"pid,sym: no kernel function has a row per process (best: '$kname')"
json_check "$out" "all(r['processes'] == 1 and r['pid'] > 0 for r in final['hotspots']['rows'])" \
	"pid,sym: a row spans several processes"
json_check "$out" "abs(sum(r['share'] for r in final['hotspots']['rows']) - 100) <= 0.0005 * len(final['hotspots']['rows']) + 1e-9" \
	"pid,sym: the shares of all rows do not add up to 100"
pass "--hot-sort pid,sym: $kname has a row per process"

# The default, named in text and JSON.
run "$out" "$err" timeout 30 "$PFMTOP" -b -F 1000 -e task-clock --wide -- "$sc" 200000
expect_rc 0 "pfmtop -b --wide (text)" "$out" "$err"
grep -qE '^HOTSPOTS:.*; by dso,sym' "$out" || fail "the text header does not name the default keys" "$out"
pass "the default grouping is dso,sym, named in the header"

# Usage errors: one line, exit 2.
for bad in bogus sym,sym 'sym,' ''; do
	run "$out" "$err" "$PFMTOP" -b -n 1 --hot-sort "$bad" -e task-clock
	expect_rc 2 "--hot-sort '$bad'" "$err"
	[ "$(wc -l <"$err")" -eq 1 ] || fail "--hot-sort '$bad': not one line" "$err"
done
pass "--hot-sort with an unknown, repeated or empty key is refused (exit 2)"
