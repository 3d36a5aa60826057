#!/bin/bash
# Names as perf shows them: samples in a PLT stub are "abs@plt" in the
# program (not "_init", the symbol before the PLT), and no name keeps its
# symbol version ("__libc_start_main", not "__libc_start_main@@GLIBC_2.34",
# which libc's debug file spells), in JSON snapshots and folded stacks alike.
# perf report on the same program names its hottest functions the same way.
. "$(dirname "$0")/lib.sh"
need_root # kernel frames in the stacks, and perf
need_cmd python3

prog=$(helper plt_calls)
out=$TMP/out err=$TMP/err

# A stub is one jmp: it gets a small share of the samples (well under 1%
# here). Run for longer until it has a few, or until there is no doubt.
# leaf_count FILE NAME: the samples of folded stacks whose leaf is NAME.
leaf_count() { awk -v n="$2" '{ k = split($1, f, ";"); if (f[k] == n) c += $NF } END { print c + 0 }' "$1"; }
plt_row() { json "$1" "sum(r['samples'] for r in final['hotspots']['rows'] if r['symbol'] == 'abs@plt' and r['module'] == 'plt_calls')"; }

# until_plt FORMAT: run with -b -g --format FORMAT until abs@plt has 5
# samples (in FORMAT's output) or 16 s of the program's CPU time went by.
until_plt() {
	local fmt=$1 secs=1
	while :; do
		run "$out.$fmt" "$err" timeout 120 "$PFMTOP" -b -g --format "$fmt" --hot 100 --hot-total \
			-F 4000 -e task-clock -- "$prog" "$secs"
		expect_rc 0 "pfmtop -b -g --format $fmt -- plt_calls $secs" "$out.$fmt" "$err"
		if [ "$fmt" = folded ]; then
			plt=$(leaf_count "$out.$fmt" abs@plt)
			total=$(awk '$1 ~ /^plt_calls;/ { c += $NF } END { print c + 0 }' "$out.$fmt")
		else
			plt=$(plt_row "$out.$fmt")
			total=$(json "$out.$fmt" "sum(r['samples'] for r in final['hotspots']['rows'] if r['comm'] == 'plt_calls')")
		fi
		[ "$plt" -ge 5 ] || [ "$secs" -ge 16 ] && break
		secs=$((secs * 2))
	done
	[ "$total" -ge 2000 ] || skip_host "only $total samples of plt_calls in ${secs}s of its CPU time: too few to find its PLT stub"
	[ "$plt" -gt 0 ] || fail "--format $fmt: none of $total samples of plt_calls is in abs@plt" "$out.$fmt"
	info "--format $fmt: $plt of $total samples in abs@plt (plt_calls $secs s)"
}

until_plt folded
# The stub is a leaf called from main; nothing lands in _init, which runs once.
[ "$(grep -c ';main;abs@plt ' "$out.folded")" -ge 1 ] || fail "abs@plt is not called from main" "$out.folded"
[ "$(leaf_count "$out.folded" _init)" -eq 0 ] || fail "samples named _init: the PLT's?" "$out.folded"
! grep -E '@@?GLIBC' "$out.folded" >"$TMP/versioned" || fail "versioned names in folded stacks" "$TMP/versioned"
if grep -q ';__libc_start_main;' "$out.folded"; then
	info "stacks reach __libc_start_main, without its version"
fi
pass "folded stacks: main;abs@plt, no symbol versions"

until_plt json
json_check "$out.json" "all('@GLIBC' not in json.dumps(l) for l in lines)" "a name keeps its symbol version"
json_check "$out.json" "not any(r['symbol'] == '_init' for r in final['hotspots']['rows'])" "a row is named _init"
pass "JSON rows: abs@plt in plt_calls, no symbol versions"

# perf on the same program: its two hottest user functions (versions left
# out, which newer perf leaves out itself) are pfmtop's two hottest rows by
# their own samples (with -g the rows are in children order).
if command -v perf >/dev/null 2>&1 &&
	perf record -q -F 4000 -e task-clock -o "$TMP/perf.data" -- "$prog" 2 >/dev/null 2>&1; then
	perf report -i "$TMP/perf.data" --stdio -q --sort dso,sym --comm plt_calls 2>/dev/null |
		awk '$3 == "[.]" { sub(/@.*/, "", $4); print $4 }' | head -2 | sort >"$TMP/theirs"
	json "$out.json" "'\\n'.join(sorted([r['symbol'] for r in sorted(final['hotspots']['rows'], key=lambda r: -r['share']) if not r['kernel']][:2]))" >"$TMP/mine"
	cmp -s "$TMP/theirs" "$TMP/mine" || fail "hottest functions: perf says $(tr '\n' ' ' <"$TMP/theirs"), pfmtop $(tr '\n' ' ' <"$TMP/mine")" "$out.json"
	theirs=$(perf report -i "$TMP/perf.data" --stdio -q --sort dso,sym --comm plt_calls 2>/dev/null |
		awk '$2 == "plt_calls" && ($4 == "abs@plt" || $4 == "_init") { print $4 }')
	pass "perf's hottest functions are pfmtop's: $(tr '\n' ' ' <"$TMP/mine")(perf names the PLT stub ${theirs:-nothing})"
else
	info "perf record failed or perf is missing: no cross-check"
fi
