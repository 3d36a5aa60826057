#!/bin/bash
# Live preset switching (p in the view) works for every ordered pair of
# the shipped presets: one walk through all of them that takes every
# pair once (N presets, N*(N-1) switches), each one checked on the header
# and the status line. A sort column that the new preset lacks (here
# --sort's) sorts by CPU%, and the status line says why.
. "$(dirname "$0")/lib.sh"

tmux_setup
keys() { tm send-keys -t t "$@"; }

# The presets in the chooser's order (the order --list-presets gives).
run "$TMP/list" "$TMP/err" "$PFMTOP" --list-presets
expect_rc 0 "pfmtop --list-presets" "$TMP/list" "$TMP/err"
awk 'NR > 1 && !seen[$1]++ { print $1 }' "$TMP/list" >"$TMP/names"
for f in "$PFMTOP_SRCDIR"/src/presets/*.ini; do
	grep -qx "$(basename "$f" .ini)" "$TMP/names" || fail "--list-presets lacks $(basename "$f" .ini)" "$TMP/list"
done
mapfile -t names <"$TMP/names"
n=${#names[@]}
[ "$n" -ge 2 ] || fail "fewer than two presets" "$TMP/names"

# A walk taking every ordered pair once (an Eulerian circuit of the
# complete directed graph), from preset 0: indices, one a line.
python3 - "$n" >"$TMP/walk" <<'EOF'
import sys
n = int(sys.argv[1])
left = {a: [b for b in range(n) if b != a] for a in range(n)}
stack, walk = [0], []
while stack:
    v = stack[-1]
    if left[v]:
        stack.append(left[v].pop())
    else:
        walk.append(stack.pop())
walk.reverse()
print("\n".join(map(str, walk)))
EOF
[ "$(wc -l <"$TMP/walk")" = $((n * (n - 1) + 1)) ] || fail "the walk is not N*(N-1) switches" "$TMP/walk"

tm new-session -d -s t -x 120 -y 40 "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"
# One process counted, no sampling: each switch reopens little, so that the
# walk stays short on a loaded machine (the switch is the same code).
sleep 600 &
target=$!
cleanup_add "kill $target"
cur=$(head -n1 "$TMP/walk")
keys "clear; TERM=xterm-256color '$PFMTOP' --view tasks -d 1 -p $target --no-hotspots --preset '${names[$cur]}'; echo rc=\$?" Enter
wait_for 30 pane_has "preset ${names[$cur]}" 'COMMAND' || fail "the view did not start with ${names[$cur]}" "$TMP/pane"

# switch_to K: p, to the top of the list, K down, Enter; the header and
# the status line name the preset, nothing was kept.
switch_to() {
	local to=$1 want=${names[$1]} i
	local moves=(p)
	for ((i = 0; i < n; i++)); do moves+=(Up); done
	for ((i = 0; i < to; i++)); do moves+=(Down); done
	keys "${moves[@]}" Enter
	wait_for 30 pane_has "preset $want, a row per" ||
		fail "switching ${names[$cur]} -> $want: no 'preset $want' on the status line" "$TMP/pane"
	! grep -q 'kept\|cannot\|not a column' "$TMP/pane" ||
		fail "switching ${names[$cur]} -> $want failed" "$TMP/pane"
	head -n1 "$TMP/pane" | grep -q "preset $want" ||
		fail "switching ${names[$cur]} -> $want: the header does not say so" "$TMP/pane"
	cur=$to
}
switches=0
while read -r k; do
	[ "$switches" = 0 ] && [ "$k" = "$cur" ] && { switches=1; continue; }
	switch_to "$k"
	switches=$((switches + 1))
done <"$TMP/walk"
keys q
wait_for 10 pane_has 'rc=0' || fail "q did not quit after the switches" "$TMP/pane"
pass "all $((n * (n - 1))) switches between the $n presets work"

# ---- a sort column the new preset lacks: by CPU%, and why ----
have() {
	for i in "${!names[@]}"; do [ "${names[$i]}" != "$1" ] || echo "$i"; done
}
have tlb >"$TMP/i.tlb"
have memory >"$TMP/i.memory"
[ -s "$TMP/i.tlb" ] && [ -s "$TMP/i.memory" ] || skip "no tlb or memory preset"
cur=$(cat "$TMP/i.tlb")
keys "clear; TERM=xterm-256color '$PFMTOP' --view tasks -d 1 --preset tlb --sort dTLB-MPKI; echo rc=\$?" Enter
wait_for 30 pane_has 'preset tlb' 'sort dTLB-MPKI' || fail "the view did not start sorted by dTLB-MPKI" "$TMP/pane"
keys p
wait_for 10 pane_has 'Preset (Enter, Esc)' || fail "p: no preset chooser" "$TMP/pane"
for ((i = 0; i < n; i++)); do keys Up; done
for ((i = 0; i < $(cat "$TMP/i.memory"); i++)); do keys Down; done
keys Enter
wait_for 30 pane_has 'preset memory, a row per' || fail "tlb -> memory failed" "$TMP/pane"
pane_has 'sort dTLB-MPKI: not a column of preset memory; sorted by CPU%' ||
	fail "the status line does not say why the sort changed" "$TMP/pane"
tabs_sorted_by_cpu() { pane_has 'sort CPU%'; }
wait_for 5 tabs_sorted_by_cpu || fail "not sorted by CPU% after the switch" "$TMP/pane"
keys q
wait_for 10 pane_has 'rc=0' || fail "q did not quit" "$TMP/pane"
pass "a sort column the new preset lacks: by CPU%, the status line says why"
