#!/bin/bash
# --annotate FUNCTION: a chain of dependent 64-bit divisions (annot_div) is
# annotated; the hottest instruction is the one perf annotate finds hottest
# on the same program (cpu-clock: the sample lands on the instruction after
# the div, skid), with the same share within 5 points; the header names the
# binary, says its build-id matches, counts the samples, and the code comes
# with its source lines and its loop's jump target. A function never sampled
# and one that does not exist get one line each; a binary replaced while it
# runs is said to be (as root its code is read through map_files); the
# options say what they need.
. "$(dirname "$0")/lib.sh"
need_cmd perf python3

div=$(helper annot_div)
out=$TMP/out err=$TMP/err

# ---------------------------------------------------------------- options
run "$out" "$err" "$PFMTOP" --annotate divloop -n 1
expect_rc 2 "--annotate without -b" "$err"
grep -q 'add -b' "$err" || fail "--annotate without -b does not say to add -b" "$err"
run "$out" "$err" "$PFMTOP" -b --annotate divloop --format json -n 1
expect_rc 2 "--annotate with --format json" "$err"
run "$out" "$err" "$PFMTOP" -b --annotate divloop --no-hotspots -n 1
expect_rc 2 "--annotate with --no-hotspots" "$err"
run "$out" "$err" "$PFMTOP" -b --annotate '' -n 1
expect_rc 2 "--annotate ''" "$err"
pass "--annotate refuses what it cannot do, exit 2"

# ---------------------------------------------------------------- against perf
# Both watch the same process at the same time: two copies of the program
# run on two CPUs, and the share of the instruction after the div moved by
# 15 points between them on a busy VM host.
"$div" 4 &
div_pid=$!
cleanup_add "kill $div_pid 2>/dev/null"
perf record -q -e cpu-clock -F 4000 -o "$TMP/perf.data" -p "$div_pid" >"$TMP/perf.out" 2>&1 &
perf_pid=$!
run "$out" "$err" "$PFMTOP" -b -d 1 --hot 5 --annotate divloop -p "$div_pid"
expect_rc 0 "pfmtop -b --annotate divloop -p PID (annot_div 4)" "$err"
wait "$perf_pid" || skip "perf record -e cpu-clock cannot run here: $(tail -1 "$TMP/perf.out")"
perf annotate --stdio -i "$TMP/perf.data" divloop >"$TMP/perf.txt" 2>"$TMP/perf.err" ||
	skip "perf annotate failed: $(tail -1 "$TMP/perf.err")"

sed -n '/^ANNOTATE /,$p' "$out" >"$TMP/annot"
[ -s "$TMP/annot" ] || fail "no ANNOTATE section after the snapshots" "$out"
grep -qE '^ANNOTATE divloop \[annot_div\] pid [0-9]+ annot_div$' "$TMP/annot" ||
	fail "the title does not name divloop, its module, pid and command" "$TMP/annot"
grep -qE '^  build-id [0-9a-f]{40} matches the mapped file' "$TMP/annot" ||
	fail "the header does not say the build-id matches" "$TMP/annot"
grep -qE '^  [0-9]+ samples in the function; hottest: [0-9a-f]+ \([0-9.]+%\)' "$TMP/annot" ||
	fail "the header does not count the samples and name the hottest" "$TMP/annot"
grep -q 'annot_div.c:[0-9]*  x = x / d' "$TMP/annot" || fail "no source line for the division" "$TMP/annot"
grep -qE 'jne .*-> [0-9a-f]+$' "$TMP/annot" || fail "the loop's jump has no target" "$TMP/annot"
[ "$(grep -c '<- hottest' "$TMP/annot")" = 1 ] || fail "not exactly one hottest line" "$TMP/annot"

# pfmtop's hottest: "> SHARE ADDR: insn", and the instruction before it
read -r our_share our_addr < <(sed -n 's/^> *\([0-9.]*\) *\([0-9a-f]*\):.*/\1 \2/p' "$TMP/annot")
before=$(grep -E '^[ >] *[0-9.]* +[0-9a-f]+:  ' "$TMP/annot" | grep -B1 -F "$our_addr:" | head -1 || true)
hot_line=$(grep -F '<- hottest' "$TMP/annot")
# perf's: "  SHARE :   ADDR:   insn", the heaviest
read -r perf_share perf_addr < <(sed -n 's/^ *\([0-9][0-9.]*\) *: *\([0-9a-f]*\):.*/\1 \2/p' "$TMP/perf.txt" |
	sort -k1,1 -g -r | head -1)
info "perf annotate: $perf_share% at $perf_addr; pfmtop: $our_share% at $our_addr"
[ -n "$perf_addr" ] || fail "no instruction with a share in perf annotate's output" "$TMP/perf.txt"
case "$hot_line $before" in
*div*) ;;
*) fail "the hottest instruction is neither the div nor the one after it" "$TMP/annot" ;;
esac
[ "$our_addr" = "$perf_addr" ] || fail "pfmtop's hottest ($our_addr) is not perf's ($perf_addr)" "$TMP/annot" "$TMP/perf.txt"
check "abs($our_share - $perf_share) <= 5" "the hottest share differs from perf's by more than 5 points" "$TMP/annot" "$TMP/perf.txt"
pass "divloop's hottest instruction $our_addr: $our_share% (perf annotate: $perf_share%)"

# ---------------------------------------------------------------- no such function, never sampled
run "$out" "$err" "$PFMTOP" -b -d 1 --annotate no_such_function_here -- "$div" 0.5
expect_rc 0 "--annotate no_such_function_here" "$err"
[ "$(sed -n '/^ANNOTATE /,$p' "$out" | wc -l)" = 1 ] || fail "more than one line for an unknown function" "$out"
grep -q '^ANNOTATE no_such_function_here: no function of that name' "$out" ||
	fail "an unknown function is not said to be unknown" "$out"
run "$out" "$err" "$PFMTOP" -b -d 1 --annotate never_called -- "$div" 0.5
expect_rc 0 "--annotate never_called" "$err"
grep -q '^ANNOTATE never_called: never sampled (it is in annot_div' "$out" ||
	fail "a function never run is not said to be never sampled" "$out"
pass "an unknown function and one never sampled: one line each"

# ---------------------------------------------------------------- the binary replaced
cp "$div" "$TMP/prog"
cp "$(helper spin)" "$TMP/other"
# replaced before pfmtop reads it (the first tick is 1 s in)
run "$out" "$err" "$PFMTOP" -b -d 1 --annotate divloop -- \
	sh -c "'$TMP/prog' 2 & sleep 0.3; cp '$TMP/other' '$TMP/new'; mv '$TMP/new' '$TMP/prog'; wait"
expect_rc 0 "the binary replaced after 0.3 s" "$err"
sed -n '/^ANNOTATE /,$p' "$out" >"$TMP/annot"
if [ "$(id -u)" = 0 ]; then
	# root reads the very file mapped: the right code, and says why
	grep -q 'the file at its path was replaced since it was mapped: code read from the mapped file' "$TMP/annot" ||
		fail "a binary replaced before it was read: not said (root)" "$TMP/annot"
	grep -q '<- hottest' "$TMP/annot" || fail "the mapped file's code is not shown (root)" "$TMP/annot"
else
	grep -qE 'replaced since it was mapped|no function of that name' "$TMP/annot" ||
		fail "a binary replaced before it was read: not said" "$TMP/annot"
fi
# replaced after its code was read: the code shown is the one that ran, and the note says so
cp "$div" "$TMP/prog"
run "$out" "$err" "$PFMTOP" -b -d 0.5 --annotate divloop -- \
	sh -c "'$TMP/prog' 3 & sleep 2; cp '$TMP/other' '$TMP/new'; mv '$TMP/new' '$TMP/prog'; wait"
expect_rc 0 "the binary replaced after 2 s" "$err"
sed -n '/^ANNOTATE /,$p' "$out" >"$TMP/annot"
grep -q "note: $TMP/prog was replaced since: the code above was read from the mapped file while it ran" "$TMP/annot" ||
	fail "a binary replaced after its code was read: no note" "$TMP/annot"
grep -q 'build-id [0-9a-f]* matches the mapped file' "$TMP/annot" || fail "the code read while it ran is not shown" "$TMP/annot"
pass "a binary replaced while it runs is said to be"

# ---------------------------------------------------------------- the viewer: a on a hotspot
if ! command -v tmux >/dev/null 2>&1; then
	info "tmux is not installed: the annotate screen is not tested"
	exit 0
fi
tmux_setup
keys() { tm send-keys -t t "$@"; }
# The line selected (the theme's row.selected background: 153 in 256 colours).
selected() { tm capture-pane -p -e -t t | grep -F $'\e[48;5;153m' | sed 's/\x1b\[[0-9;]*m//g'; }
for size in 80x24 200x60; do
	tm kill-session -t t 2>/dev/null || true
	tm new-session -d -s t -x "${size%x*}" -y "${size#*x}" \
		"TERM=xterm-256color '$PFMTOP' -d 0.5 -- '$div' 60" ||
		skip "tmux cannot start a session here"
	wait_for 10 pane_has 'annot_div' || fail "$size: the viewer did not start" "$TMP/pane"
	keys 4
	wait_for 5 pane_has 'divloop' || fail "$size: divloop is not in the Hotspots view" "$TMP/pane"
	keys a
	wait_for 5 pane_has 'Annotate divloop [annot_div] pid' 'samples since the start' 'matches the mapped file' ||
		fail "$size: a did not open the annotate screen of divloop" "$TMP/pane"
	wait_for 5 pane_has 'x = x / d' '-> ' || fail "$size: no source line or jump on the annotate screen" "$TMP/pane"
	# the hottest instruction, marked and selected
	wait_for 3 bash -c "tmux -S '$TMUX_SOCK' capture-pane -p -t t | grep -qE '^ +[0-9.]+> +[0-9a-f]+:  '" ||
		fail "$size: no hottest instruction marked" "$TMP/pane"
	hot=$(pane | sed -n 's/^ *[0-9.]*> *\([0-9a-f]*\):.*/\1/p')
	selected | grep -qF "$hot:" || fail "$size: the hottest instruction ($hot) is not selected" "$TMP/pane"
	# Enter on the loop's jump goes to its target; Backspace comes back
	jne=$(pane | sed -n 's/^.* \([0-9a-f]*\):  jne .*-> \([0-9a-f]*\)$/\1 \2/p')
	[ -n "$jne" ] || fail "$size: no jne with a target" "$TMP/pane"
	read -r from to <<<"$jne"
	for _ in 1 2 3 4 5 6 7 8; do
		selected | grep -qF "$from:" && break
		keys Down
		sleep 0.1
	done
	selected | grep -qF "$from:" || fail "$size: cannot select the jne at $from" "$TMP/pane"
	keys Enter
	wait_for 3 bash -c "tmux -S '$TMUX_SOCK' capture-pane -p -e -t t | grep -F \$'\\e[48;5;153m' | grep -qF ' $to:'" ||
		fail "$size: Enter on the jne did not go to $to" "$TMP/pane"
	keys BSpace
	wait_for 3 bash -c "tmux -S '$TMUX_SOCK' capture-pane -p -e -t t | grep -F \$'\\e[48;5;153m' | grep -qF ' $from:'" ||
		fail "$size: Backspace did not come back to $from" "$TMP/pane"
	keys h
	wait_for 3 pane_has 'Annotate screen' || fail "$size: the help does not tell the annotate keys" "$TMP/pane"
	keys Escape
	keys Escape
	wait_for 3 pane_has 'SHARE' 'SYMBOL' || fail "$size: Esc did not go back to the hotspots" "$TMP/pane"
	pane_has 'Annotate divloop' && fail "$size: the annotate screen stays after Esc" "$TMP/pane"
	# Enter on a hotspot opens it too; q goes back, a second q quits
	keys Enter
	wait_for 5 pane_has 'Annotate divloop' || fail "$size: Enter on a hotspot did not annotate it" "$TMP/pane"
	keys q
	wait_for 3 pane_has 'SHARE' || fail "$size: q did not go back to the hotspots" "$TMP/pane"
	keys q
	pass "viewer $size: a and Enter annotate, hottest selected, Enter follows the jump, Backspace, help, Esc and q"
done
