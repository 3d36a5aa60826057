#!/bin/bash
# Names and terminals: a process named zürich-λ shows as it is and a CJK
# name takes two columns per glyph without moving the columns after it
# (80x24, UTF-8 locale); with LANG=C their non-ASCII bytes show as \xNN,
# nothing else; TERM=dumb is refused with one line suggesting -b.
. "$(dirname "$0")/lib.sh"

tmux_setup
keys() { tm send-keys -t t "$@"; }
locale -a 2>/dev/null | grep -qix 'c.utf-\?8' || skip "no C.UTF-8 locale here"

hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
latin='zürich-λ' cjk='北京进程x'
hex "$latin" >"$TMP/h1"
hex "$cjk" >"$TMP/h2"
"$PFMTOP_HELPERS/rename" "$(cat "$TMP/h1")" 120 >"$TMP/r1" &
cleanup_add "kill $!"
p1=$!
"$PFMTOP_HELPERS/rename" "$(cat "$TMP/h2")" 120 >"$TMP/r2" &
cleanup_add "kill $!"
p2=$!
ready() { grep -q ready "$TMP/r1" && grep -q ready "$TMP/r2"; }
wait_for 10 ready || fail "the renamed helpers did not start"

tm new-session -d -s t -x 80 -y 24 "env PS1='tui\$ ' LANG=C.UTF-8 LC_ALL=C.UTF-8 bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"

# ---- UTF-8: as they are, the columns after them in place ----
keys "clear; TERM=xterm-256color '$PFMTOP' -p $p1,$p2 --view hotspots --hot-sort comm,dso,sym; echo rc=\$?" Enter
wait_for 30 pane_has "$latin" "$cjk" || fail "the names are not shown as they are" "$TMP/pane"
# The display column where "main" (the SYMBOL column) starts on each row.
python3 - "$TMP/pane" "$latin" "$cjk" >"$TMP/cols" <<'EOF'
import sys, unicodedata
def width(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
for name in sys.argv[2:]:
    row = [l for l in lines if name in l and " main " in l]
    print(width(row[0][:row[0].index(" main ")]) if row else -1)
print(max(width(l) for l in lines))
EOF
mapfile -t cols <"$TMP/cols"
[ "${cols[0]}" -gt 0 ] && [ "${cols[0]}" = "${cols[1]}" ] ||
	fail "the SYMBOL column moved after a wide name: columns ${cols[0]} and ${cols[1]}" "$TMP/pane" "$TMP/cols"
[ "${cols[2]}" -le 80 ] || fail "a line is wider than the 80-column terminal (${cols[2]})" "$TMP/pane"
keys 3
wait_for 10 pane_has 'COMMAND' "$latin" "$cjk" || fail "the Tasks view does not show the names" "$TMP/pane"
keys q
wait_for 10 pane_has 'rc=0' || fail "q did not quit" "$TMP/pane"
pass "UTF-8: $latin and $cjk as they are, the columns after them in place at 80x24"

# ---- LANG=C: ASCII only, the bytes escaped ----
keys "clear; LANG=C LC_ALL=C TERM=xterm-256color '$PFMTOP' -p $p1,$p2 --view hotspots --hot-sort comm,dso,sym; echo rc=\$?" Enter
wait_for 30 pane_has 'z\xc3\xbc' || fail "LANG=C: the name's bytes are not escaped" "$TMP/pane"
pane >"$TMP/c-pane"
! LC_ALL=C grep -q '[^ -~]' "$TMP/c-pane" || fail "LANG=C: bytes that are not ASCII on the screen" "$TMP/c-pane"
keys q
wait_for 10 pane_has 'rc=0' || fail "q did not quit" "$TMP/pane"
pass "LANG=C: non-ASCII bytes shown as \\xNN, nothing else"

# ---- TERM=dumb: one line, suggesting -b ----
keys "clear; TERM=dumb '$PFMTOP'; echo rc=\$?" Enter
wait_for 10 pane_has 'rc=2' || fail "TERM=dumb: pfmtop did not exit 2 (a usage error)" "$TMP/pane"
grep -c 'pfmtop:' "$TMP/pane" >"$TMP/n"
[ "$(cat "$TMP/n")" = 1 ] && grep -q 'cannot move the cursor' "$TMP/pane" && grep -q -- '-b' "$TMP/pane" ||
	fail "TERM=dumb: not one line saying why and suggesting -b" "$TMP/pane"
pass "TERM=dumb is refused with one line suggesting -b"
