#!/bin/bash
# --replay in the view (tmux, 80x24): the header says where in the recording
# the screen is; Left/Right, [ ], g and space move through it; keys that
# would count something say why not. And the live view's history: Left
# pauses and steps back, space goes on live.
. "$(dirname "$0")/lib.sh"

need_root # system-wide target (the default)
tmux_setup

rec=$TMP/run.pfr
run "$TMP/out" "$TMP/err" "$PFMTOP" -b -d 0.2 -n 12 -o "$rec"
expect_rc 0 "pfmtop -b -n 12 -o FILE.pfr" "$TMP/out" "$TMP/err"

keys() { tm send-keys -t t "$@"; }
tm new-session -d -s t -x 80 -y 24 "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"

keys "$PFMTOP --replay $rec; echo status=\$?" Enter
wait_for 5 pane_has "replay " " 1/12 paused" || fail "--replay: no 'replay ... 1/12 paused' in the header" "$TMP/pane"
pane_has "CPU%" || fail "--replay: the CPUs view is not drawn" "$TMP/pane"
keys Right Right
wait_for 3 pane_has " 3/12 paused" || fail "Right Right: not at 3/12" "$TMP/pane"
keys ']'
wait_for 3 pane_has " 12/12 paused" || fail "]: not at the last frame (12/12)" "$TMP/pane"
keys '[' Left
wait_for 3 pane_has " 1/12 paused" || fail "[ then Left: not back at 1/12" "$TMP/pane"
keys 3
wait_for 3 pane_has "PID" || fail "3: the Tasks view of the recording is not drawn" "$TMP/pane"
keys p
wait_for 3 pane_has "counts nothing" || fail "p in a replay: no reason given" "$TMP/pane"
keys x
wait_for 3 pane_has "x2" || fail "x: the speed is not shown" "$TMP/pane"
keys ' '
wait_for 10 pane_has " 12/12 playing" || fail "space: the replay did not play to the end" "$TMP/pane"
keys g 00:00 Enter
wait_for 3 pane_has " 1/12 " || fail "g 00:00: not at the first frame" "$TMP/pane"
keys g 99 Enter
wait_for 3 pane_has "not a time" || fail "g 99: no message" "$TMP/pane"
keys q
wait_for 5 pane_has "status=0" || fail "q: the replay did not end with status 0" "$TMP/pane"
pass "--replay at 80x24: header, Right/[/]/Left, views, p refused, x, space plays, g, q"

# a recording written again from its start while it is viewed (a recorder
# started again on it with --force): indexed again, never old entries over
# new bytes; shorter than before, then longer with another first frame
rw=$TMP/rw.pfr
run "$TMP/out" "$TMP/err" "$PFMTOP" -b -d 0.2 -n 12 -o "$rw"
expect_rc 0 "pfmtop -b -n 12 -o RW.pfr" "$TMP/out" "$TMP/err"
keys clear Enter "$PFMTOP --replay $rw; echo status=\$?" Enter
wait_for 5 pane_has " 1/12 paused" || fail "--replay RW: no '1/12 paused'" "$TMP/pane"
keys ']' ']'
wait_for 3 pane_has " 12/12 paused" || fail "--replay RW: ] ] not at 12/12" "$TMP/pane"
run "$TMP/out" "$TMP/err" "$PFMTOP" -b -d 0.2 -n 3 -o "$rw" --force
expect_rc 0 "pfmtop -b -n 3 -o RW.pfr --force (while it is viewed)" "$TMP/out" "$TMP/err"
keys Left
wait_for 3 pane_has " 3/3 paused" || fail "a recording written again shorter: the view is not at 3/3" "$TMP/pane"
pane_has "written again from its start" || fail "a recording written again: no status line says so" "$TMP/pane"
run "$TMP/out" "$TMP/err" "$PFMTOP" -b -d 0.2 -n 16 -o "$rw" --force
expect_rc 0 "pfmtop -b -n 16 -o RW.pfr --force (while it is viewed)" "$TMP/out" "$TMP/err"
keys ']' ']'
wait_for 3 pane_has " 16/16 paused" || fail "a recording written again longer: the view is not at 16/16" "$TMP/pane"
# another recording moved into its name's place: that one is read
run "$TMP/out" "$TMP/err" "$PFMTOP" -b -d 0.2 -n 5 -o "$TMP/other.pfr"
expect_rc 0 "pfmtop -b -n 5 -o OTHER.pfr" "$TMP/out" "$TMP/err"
mv "$TMP/other.pfr" "$rw"
keys Left
wait_for 3 pane_has " 5/5 paused" || fail "another recording moved into the name's place: the view is not at 5/5" "$TMP/pane"
keys q
wait_for 5 pane_has "status=0" || fail "--replay RW: q did not end it with status 0" "$TMP/pane"
pass "a recording written again while viewed (--force, 12 then 3 then 16 frames; another moved in its place, 5): indexed again each time"

# a JSON Lines run replays the same way
"$PFMTOP" --convert "$rec" --format json -o "$TMP/run.json"
keys clear Enter "$PFMTOP --replay $TMP/run.json; echo status=\$?" Enter
wait_for 5 pane_has " 1/12 paused" "CPU%" || fail "--replay of a JSON Lines run: no '1/12 paused'" "$TMP/pane"
keys ']' q
wait_for 5 pane_has "status=0" || fail "--replay of a JSON Lines run: q did not end it with status 0" "$TMP/pane"
pass "--replay of a JSON Lines run: the same view"

# --- the live view's history ---
keys clear Enter "$PFMTOP -d 0.2; echo status=\$?" Enter
wait_for 10 pane_has "CPU%" || fail "the live view did not start" "$TMP/pane"
sleep 1.5
keys Left Left
wait_for 3 pane_has "history " "2 back" || fail "Left Left in the live view: no 'history ... 2 back'" "$TMP/pane"
pane_has "PAUSED" && fail "the history badge should replace PAUSED" "$TMP/pane"
keys Right
wait_for 3 pane_has "1 back" || fail "Right: not 1 back" "$TMP/pane"
keys ' '
wait_for 3 bash -c "! tmux -S '$TMUX_SOCK' capture-pane -p -t t | grep -q 'history '" ||
	fail "space: still showing the history" "$TMP/pane"
keys q
wait_for 5 pane_has "status=0" || fail "q: the live view did not end with status 0" "$TMP/pane"
run "$TMP/out" "$TMP/err" "$PFMTOP" --history 2000 -b -n 1
expect_rc 2 "--history 2000 (more than a day)" "$TMP/out" "$TMP/err"
pass "live history: Left pauses and steps back (2 back, 1 back), space goes on live"
