#!/bin/bash
# What the view says is what it does (tmux): the help names the settings
# file in use ($XDG_CONFIG_HOME), or that none is saved; Enter's label in the
# key bar is what Enter does in each view; g with --history 0 says there is
# no history instead of asking for a time; the header at 80x24 keeps whole
# fields (live and in a replay), never a word cut; p to a preset with a
# typo keeps the running one; the annotate title shows [kernel] once.
. "$(dirname "$0")/lib.sh"

need_root # system-wide target (the default), kernel hotspots
tmux_setup

keys() { tm send-keys -t t "$@"; }
pane_lacks() { pane >"$TMP/pane" && ! grep -qF -- "$1" "$TMP/pane"; }
line_of() { pane | sed -n "${1}p" >"$TMP/line"; }
line_has() { line_of "$1" && grep -qF -- "$2" "$TMP/line"; }
start() { # start ARGS...: pfmtop ARGS in the pane, its status printed after
	keys "clear; '$PFMTOP' $*; echo status=\$?" Enter
	wait_for 8 pane_has 'pfmtop ' 'F1Help' || fail "pfmtop $* did not draw" "$TMP/pane"
}
quit() {
	keys q
	wait_for 5 pane_has 'status=0' || fail "q did not end pfmtop with status 0" "$TMP/pane"
}

tm new-session -d -s t -x 100 -y 90 "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"

# ---------------------------------------------------------------- help: the settings file
start -e task-clock
keys F1
wait_for 3 pane_has 'pfmtop keys' "$XDG_CONFIG_HOME/pfmtop/pfmtoprc" ||
	fail "the help does not name the settings file in use ($XDG_CONFIG_HOME/pfmtop/pfmtoprc)" "$TMP/pane"
pane_lacks '~/.config/pfmtop/pfmtoprc' || fail "the help names ~/.config although XDG_CONFIG_HOME is set" "$TMP/pane"
keys Escape
quit
start -e task-clock --no-config
keys F1
wait_for 3 pane_has 'pfmtop keys' 'nowhere (--no-config)' || fail "with --no-config the help does not say nothing is saved" "$TMP/pane"
keys Escape
quit
pass "the help names $XDG_CONFIG_HOME/pfmtop/pfmtoprc, and nowhere with --no-config"

# ---------------------------------------------------------------- Enter's label
tm resize-window -t t -x 200 -y 40
start -e task-clock
bar() { line_of 40 && grep -qF -- "$1" "$TMP/line"; }
keys 3
wait_for 3 bar 'EnterDetail' || fail "the Tasks bar does not say Enter opens the detail" "$TMP/line"
keys Enter
wait_for 3 pane_has 'Esc' || true
keys Escape
keys 4
wait_for 3 bar 'EnterAnnotate' || fail "the Hotspots bar does not say Enter annotates" "$TMP/line"
keys 2
wait_for 3 bar 'EnterHot' || fail "the CPUs bar does not say Enter shows the hotspots" "$TMP/line"
quit
pass "Enter's label: Detail in Tasks, Annotate in Hotspots, Hot in CPUs"

# ---------------------------------------------------------------- g without history
tm resize-window -t t -x 80 -y 24
start -e task-clock --history 0
keys g
wait_for 3 pane_has 'no history kept (--history 0)' || fail "g with --history 0 does not say there is no history" "$TMP/pane"
pane_lacks 'HH:MM:SS' || fail "g with --history 0 still asks for a time" "$TMP/pane"
quit
pass "g with --history 0 says no history is kept, no prompt"

# ---------------------------------------------------------------- p to a misspelt preset
# as at the start (exit 2 there), a preset with a typo is refused: the
# running one is kept, the status line names the typo
mkdir -p -m 755 "$XDG_CONFIG_HOME/pfmtop/presets.d"
printf '[preset typo]\nevents = task-clock, pgae-faults\n' >"$XDG_CONFIG_HOME/pfmtop/presets.d/typo.ini"
chmod 644 "$XDG_CONFIG_HOME/pfmtop/presets.d/typo.ini"
run "$TMP/list" "$TMP/err" "$PFMTOP" --list-presets
idx=$(awk 'NR > 1 && !seen[$1]++ { print $1 }' "$TMP/list" | grep -nx typo | cut -d: -f1)
[ -n "$idx" ] || fail "--list-presets does not list the user's preset typo" "$TMP/list" "$TMP/err"
start --no-hotspots
moves=(p)
for ((i = 0; i < 20; i++)); do moves+=(Up); done
for ((i = 1; i < idx; i++)); do moves+=(Down); done
keys "${moves[@]}" Enter
wait_for 5 pane_has "preset typo: unknown event 'pgae-faults'" || fail "p to a misspelt preset: the status line does not name the typo" "$TMP/pane"
line_has 1 'preset default' || fail "p to a misspelt preset: the running preset was not kept" "$TMP/line"
quit
rm -r "$XDG_CONFIG_HOME/pfmtop/presets.d"
pass "p to a preset with a typo keeps the running one and names the typo"

# ---------------------------------------------------------------- the header at 80x24
# every field whole: "pfmtop V", "host H", "kernel K", "MODE (TARGET)",
# "every Ns", "preset P", then a badge; any may be dropped, none cut
header_whole() {
	line_of 1
	py "__import__('re').fullmatch(r' pfmtop \S+(  host \S+)?(  kernel \S+)?(  (system-wide|tasks|command) \([^)]*\))?(  every [0-9.]+s)?(  preset default)? *( (PAUSED|replay [^ ].*) ?)?', open(a[0]).read().rstrip('\n')) is not None" "$TMP/line"
}
# a snapshot is in (before it the header has no host), all fields whole,
# the interval and the preset kept
tm resize-window -t t -x 80 -y 24
live_ok() { [ "$(header_whole)" = 1 ] && grep -qF '  host ' "$TMP/line" && grep -qF 'every 1s  preset default' "$TMP/line"; }
start
wait_for 5 live_ok || fail "the live header at 80 columns cuts a field or lacks 'every 1s  preset default'" "$TMP/line"
keys ' '
wait_for 3 pane_has 'PAUSED' || fail "space did not pause" "$TMP/pane"
[ "$(header_whole)" = 1 ] || fail "the paused header at 80 columns cuts a field" "$TMP/line"
quit
rec=$TMP/run.pfr
run "$TMP/out" "$TMP/err" "$PFMTOP" -b -d 0.2 -n 3 -o "$rec"
expect_rc 0 "pfmtop -b -n 3 -o FILE.pfr" "$TMP/out" "$TMP/err"
start --replay "$rec"
wait_for 5 pane_has 'replay ' ' 1/3 paused' || fail "--replay: no replay badge" "$TMP/pane"
[ "$(header_whole)" = 1 ] || fail "the replay header at 80 columns cuts a field" "$TMP/line"
grep -qF 'preset default' "$TMP/line" || fail "the replay header at 80 columns lacks 'preset default'" "$TMP/line"
quit
pass "the header at 80x24 keeps whole fields: live, paused and in a replay"

# ---------------------------------------------------------------- [kernel] once
# the kernel function sampled most, annotated in batch
run "$TMP/out" "$TMP/err" "$PFMTOP" -b -n 2 -d 0.3 --format json --hot 50
expect_rc 0 "pfmtop -b --format json" "$TMP/out" "$TMP/err"
sym=$(py "next((h['symbol'] for l in open(a[0]) for h in __import__('json').loads(l)['hotspots']['rows'] if h.get('module') == '[kernel]' and __import__('re').fullmatch('[A-Za-z_][A-Za-z0-9_]*', h['symbol'])), '')" "$TMP/out")
if [ -n "$sym" ]; then
	run "$TMP/out" "$TMP/err" "$PFMTOP" -b -n 2 -d 0.3 --annotate "$sym"
	expect_rc 0 "pfmtop -b --annotate $sym" "$TMP/out" "$TMP/err"
	grep -q '\[\[kernel\]\]' "$TMP/out" && fail "the annotate title shows [[kernel]]" "$TMP/out"
	grep -qF "ANNOTATE $sym [kernel] (kernel, every process)" "$TMP/out" ||
		fail "no 'ANNOTATE $sym [kernel]' title" "$TMP/out"
	pass "the annotate title of $sym says [kernel], once"
else
	echo "skip: no kernel function sampled here to annotate"
fi
