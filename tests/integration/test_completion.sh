#!/bin/bash
# The bash completion (packaging/bash-completion/pfmtop), driven the way bash
# drives it: options are exactly those of --help, every option of --help that
# takes an argument has its own case (so its argument is never completed as
# an option), and preset, event, theme, file, list and command arguments
# complete as they should.
. "$(dirname "$0")/lib.sh"

bash_completion=/usr/share/bash-completion/bash_completion
[ -r "$bash_completion" ] || skip "bash-completion is not installed ($bash_completion)"
script=$PFMTOP_SRCDIR/packaging/bash-completion/pfmtop
[ -f "$script" ] || fail "$script is missing"
out=$TMP/out err=$TMP/err

run "$out" "$err" bash -n "$script"
expect_rc 0 "bash -n $script" "$err"

# complete WORD...: the completions bash would offer for the command line
# WORD... with the cursor at the end of the last WORD ("" for a new word),
# one per line, sorted, in $out.
complete_words() {
	bash -c '
		. "$1"
		. "$2"
		compopt() { :; }  # only works inside a real completion
		shift 2
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_pfmtop "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' complete "$bash_completion" "$script" "$@" 2>"$err" | sed '/^$/d' | sort -u >"$out" ||
		fail "completing '$*' failed" "$err"
}

# has WORD...: fail unless every WORD is one of the completions in $out.
has() {
	local w
	for w in "$@"; do
		grep -qxF -- "$w" "$out" || fail "completing '$what' does not offer '$w'" "$out" "$err"
	done
}

run "$TMP/help" "$err" "$PFMTOP" --help
expect_rc 0 "pfmtop --help" "$TMP/help" "$err"
# Option lines of --help are indented at most 8 columns.
sed -nE 's/^ {1,8}(-[A-Za-z], )?(--[a-z][a-z-]*).*/\2/p' "$TMP/help" | sort -u >"$TMP/long"
sed -nE 's/^ {1,8}(-[A-Za-z]),.*/\1/p' "$TMP/help" | sort -u >"$TMP/short"
[ "$(wc -l <"$TMP/long")" -ge 20 ] || fail "found too few long options in --help" "$TMP/help"

# --- options: exactly those of --help ---
what="pfmtop --"
complete_words "$PFMTOP" --
diff -u "$TMP/long" "$out" >"$TMP/diff" || fail "'pfmtop --<TAB>' differs from the long options of --help" "$TMP/diff"
what="pfmtop -"
complete_words "$PFMTOP" -
sort -u "$TMP/long" "$TMP/short" >"$TMP/all"
diff -u "$TMP/all" "$out" >"$TMP/diff" || fail "'pfmtop -<TAB>' differs from the options of --help" "$TMP/diff"
what="pfmtop -b --pre"
complete_words "$PFMTOP" -b --pre
has --preset
pass "options: the $(wc -l <"$TMP/long") long and $(wc -l <"$TMP/short") short ones of --help"

# --- every option taking an argument has a case, and its argument is not an option ---
# "  -p, --pid PID" / "      --list-events [GLOB]": one space, then the argument.
sed -nE 's/^ {1,8}(-[A-Za-z], )?(--[a-z][a-z-]*) [^ ].*/\1 \2/p' "$TMP/help" | tr -d ',' |
	tr ' ' '\n' | sed '/^$/d' | sort -u >"$TMP/with-arg"
[ "$(wc -l <"$TMP/with-arg")" -ge 20 ] || fail "found too few options with an argument in --help" "$TMP/with-arg"
# The case labels of the completion: lines of "-x | --xx)" or "... | \".
sed -n '/case \$prev in/,/esac/p' "$script" | grep -E '^ +-.*(\)|\\)$' | tr -d ')\\' | tr '|' '\n' |
	tr -d ' ' | sed '/^$/d' | sort -u >"$TMP/cases"
missing=$(comm -23 "$TMP/with-arg" "$TMP/cases" | tr '\n' ' ')
[ -z "$missing" ] || fail "the completion has no case for these options of --help that take an argument: $missing" "$TMP/cases"
while read -r opt; do
	what="pfmtop $opt -"
	complete_words "$PFMTOP" "$opt" -
	! grep -q -- '^--' "$out" || fail "completing the argument of $opt offers options" "$out"
done <"$TMP/with-arg"
pass "all $(wc -l <"$TMP/with-arg") options with an argument have a case"

# --- presets: the names --list-presets shows, and .ini files ---
mkdir -p "$TMP/cwd/sub"
: >"$TMP/cwd/mine.ini"
: >"$TMP/cwd/notes.txt"
cd "$TMP/cwd" || fail "cannot cd to $TMP/cwd"
run "$TMP/presets" "$err" "$PFMTOP" --list-presets
awk 'NR > 1 && NF { sub(/:.*/, "", $1); print $1 }' "$TMP/presets" | sort -u >"$TMP/names"
grep -qx default "$TMP/names" || fail "--list-presets shows no default preset" "$TMP/presets"
for opt in --preset --check-preset; do
	what="pfmtop $opt"
	complete_words "$PFMTOP" $opt ""
	# shellcheck disable=SC2046
	has $(cat "$TMP/names") mine.ini sub
	! grep -qx notes.txt "$out" || fail "completing $opt offers a file that is not .ini" "$out"
done
what="pfmtop --preset=ca"
complete_words "$PFMTOP" --preset=ca
has cache
what="pfmtop --check-preset ./n"
complete_words "$PFMTOP" --check-preset ./n
has ./notes.txt
pass "preset names ($(wc -l <"$TMP/names")) and files"

# --- events: the first column of --list-events, in lists and groups ---
run "$TMP/events" "$err" "$PFMTOP" --list-events
awk '/^  [^ ]/ { print $1 }' "$TMP/events" >"$TMP/event-names"
grep -qx task-clock "$TMP/event-names" || fail "--list-events does not list task-clock" "$TMP/events"
what="pfmtop -e task-cl"
complete_words "$PFMTOP" -e task-cl
has task-clock
what="pfmtop --events cycles,page-f"
complete_words "$PFMTOP" --events cycles,page-f
has cycles,page-faults
what="pfmtop -e {cycles,instr"
complete_words "$PFMTOP" -e '{cycles,instr'
has '{cycles,instructions'
for opt in --sample-event --list-events; do
	what="pfmtop $opt cpu-cl"
	complete_words "$PFMTOP" $opt cpu-cl
	has cpu-clock
done
# --sort: the columns of the preset or the -e list on the line, not every event
what="pfmtop --sort ''"
complete_words "$PFMTOP" --sort ""
has cpu pid command task-clock page-faults IPC
[ "$(wc -l <"$out")" -lt 30 ] || fail "pfmtop --sort '' offers $(wc -l <"$out") words, not the preset's columns" "$out"
what="pfmtop -e task-clock,page-faults --sort ''"
complete_words "$PFMTOP" -e task-clock,page-faults --sort ""
has cpu pid command task-clock page-faults
! grep -qx IPC "$out" || fail "--sort after -e offers the default preset's columns" "$out"
what="pfmtop --preset memory --sort ma"
complete_words "$PFMTOP" --preset memory --sort ma
has major-faults
# A name with a colon: bash completes only the part after the last colon.
ev=$(grep -m1 ':' "$TMP/event-names" || true)
if [ -n "$ev" ]; then
	what="pfmtop -e ${ev%?}"
	complete_words "$PFMTOP" -e "${ev%?}"
	has "${ev##*:}"
fi
pass "event names ($(wc -l <"$TMP/event-names")) in lists and groups"

# --- themes: default, and the .ini files of the share and config theme dirs ---
mkdir -p "$TMP/prefix/bin" "$TMP/prefix/share/pfmtop/themes" "$TMP/cfg/pfmtop/themes"
cp "$PFMTOP" "$TMP/prefix/bin/pfmtop"
: >"$TMP/prefix/share/pfmtop/themes/shipped.ini"
: >"$TMP/cfg/pfmtop/themes/mytheme.ini"
what="pfmtop --theme"
XDG_CONFIG_HOME=$TMP/cfg complete_words "$TMP/prefix/bin/pfmtop" --theme ""
has default shipped mytheme mine.ini
pass "theme names from the share and config dirs"

# --- the other arguments ---
what="pfmtop -o"
complete_words "$PFMTOP" -b -o n
has notes.txt
what="pfmtop --format"
complete_words "$PFMTOP" --format ""
has text json
what="pfmtop -p"
complete_words "$PFMTOP" -p "1,$$"
has "1,$$"
what="pfmtop --cgroup"
complete_words "$PFMTOP" --cgroup a
has auto
what="pfmtop -b -- ech"
complete_words "$PFMTOP" -b -- ech
has echo
pass "output file, format, pid list, cgroup and command arguments"
