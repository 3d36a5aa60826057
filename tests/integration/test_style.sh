#!/bin/bash
# Every product source file (src/ and ui/) is as the checked-in .clang-format
# lays it out, and no file there is over 1200 lines.
. "$(dirname "$0")/lib.sh"
need_cmd clang-format

cd "$PFMTOP_SRCDIR" || fail "no source tree at $PFMTOP_SRCDIR"
bad=()
for f in src/*.[ch] ui/*.[ch]; do
	clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
[ "${#bad[@]}" -eq 0 ] || fail "not laid out as .clang-format says (run clang-format -i): ${bad[*]}"
long=$(wc -l src/*.c ui/*.c | awk '$2 != "total" && $1 > 1200 { print $2 " (" $1 " lines)" }')
[ -z "$long" ] || fail "files over 1200 lines: $long"
pass "$(ls src/*.[ch] ui/*.[ch] | wc -l) files formatted, none over 1200 lines"
