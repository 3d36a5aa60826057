#!/bin/bash
# The manual pages: both format without a single groff warning, lexgrog
# finds their NAME line (whatis/apropos), pfmtop.1 documents every long
# option of --help and no option --help lacks, and pfmtop-presets.5 names
# every shipped preset.
. "$(dirname "$0")/lib.sh"

need_cmd man groff lexgrog

man_dir=$PFMTOP_SRCDIR/packaging/man
page1=$man_dir/pfmtop.1
page5=$man_dir/pfmtop-presets.5
out=$TMP/out err=$TMP/err

for page in "$page1" "$page5"; do
	[ -f "$page" ] || fail "$page is missing"
done

# --- both pages format cleanly and have a NAME line lexgrog understands ---
for page in "$page1" "$page5"; do
	name=$(basename "$page")
	run "$out" "$err" env LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l "$page"
	expect_rc 0 "man -l $name" "$err"
	[ ! -s "$err" ] || fail "man --warnings -l $name printed warnings" "$err"
	[ -s "$out" ] || fail "man -l $name printed nothing" "$out"
	run "$out" "$err" lexgrog "$page"
	expect_rc 0 "lexgrog $name" "$out" "$err"
	grep -q ' - ' "$out" || fail "lexgrog $name found no 'name - description' line" "$out"
done
pass "both pages format without warnings and lexgrog reads their NAME"

# The roff source as plain text: \- and \-\- become dashes, font changes,
# zero-width \& and no-break \% go away, so option names can be grepped.
plain() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\f\[[^]]*\]//g' \
		-e 's/\\&//g' -e 's/\\%//g' "$1"
}
plain "$page1" >"$TMP/pfmtop.1.txt"
plain "$page5" >"$TMP/pfmtop-presets.5.txt"

# --- every long option of --help is in pfmtop.1 ---
run "$out" "$err" "$PFMTOP" --help
expect_rc 0 "pfmtop --help" "$out" "$err"
grep -oE -- '--[a-z][a-z-]*' "$out" | sort -u >"$TMP/help-opts"
[ "$(wc -l <"$TMP/help-opts")" -ge 20 ] || fail "found too few long options in --help" "$out" "$TMP/help-opts"
missing=
while read -r opt; do
	grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)" "$TMP/pfmtop.1.txt" || missing="$missing $opt"
done <"$TMP/help-opts"
[ -z "$missing" ] || fail "pfmtop.1 does not document:$missing" "$TMP/help-opts"
pass "pfmtop.1 documents all $(wc -l <"$TMP/help-opts") long options of --help"

# --- and neither page names a long option that --help lacks ---
for txt in "$TMP/pfmtop.1.txt" "$TMP/pfmtop-presets.5.txt"; do
	extra=
	grep -oE -- '(^|[^a-z-])--[a-z][a-z-]*' "$txt" | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$TMP/page-opts" || true
	while read -r opt; do
		grep -qxF -- "$opt" "$TMP/help-opts" || extra="$extra $opt"
	done <"$TMP/page-opts"
	[ -z "$extra" ] || fail "$(basename "$txt" .txt) names options pfmtop --help does not have:$extra" "$TMP/help-opts"
done
pass "the pages name no option that --help lacks"

# --- every shipped preset is in pfmtop-presets.5 ---
n=0
missing=
for ini in "$PFMTOP_SRCDIR"/src/presets/*.ini; do
	[ -e "$ini" ] || fail "no presets in $PFMTOP_SRCDIR/src/presets"
	name=$(basename "$ini" .ini)
	n=$((n + 1))
	grep -qE -- "(^|[^A-Za-z0-9_-])$name([^A-Za-z0-9_-]|\$)" "$TMP/pfmtop-presets.5.txt" ||
		missing="$missing $name"
done
[ -z "$missing" ] || fail "pfmtop-presets.5 does not name the shipped presets:$missing"
pass "pfmtop-presets.5 names all $n shipped presets"
