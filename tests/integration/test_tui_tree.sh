#!/bin/bash
# The Hotspots view with -g on an 80x24 terminal: CHILDREN and SELF
# columns, sorted by CHILDREN, a row for every function on the chains;
# '+' expands the selected row into its callers as an indented
# tree with percentages (a leaf called 60/40 from two callers shows both,
# the heavier first), 'c' turns it to callees, '-' folds it; 'G' cycles the
# grouping keys, which the info line names.
. "$(dirname "$0")/lib.sh"
need_root # samples of the command, kernel symbols
need_cmd gcc python3
tmux_setup

cat >"$TMP/split.c" <<'C'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) void leaf(void)
{
	for (int i = 0; i < 20000; i++)
		sink += i;
}
__attribute__((noinline)) void caller_a(void) { leaf(); sink++; }
__attribute__((noinline)) void caller_b(void) { leaf(); sink++; }
int main(int argc, char **argv)
{
	struct timespec a, b;
	long secs = argc > 1 ? atol(argv[1]) : 30;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long n = 0;; n++) {
		if (n % 5 < 3)
			caller_a();
		else
			caller_b();
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (b.tv_sec - a.tv_sec >= secs)
			break;
	}
	return 0;
}
C
gcc -O0 -fno-omit-frame-pointer -o "$TMP/split" "$TMP/split.c"

keys() { tm send-keys -t t "$@"; }
tm new-session -d -s t -x 80 -y 24 -c "$TMP" "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"

keys "TERM=xterm-256color '$PFMTOP' -g -F 1000 -d 0.5 -e task-clock --view hotspots --hot-total -- '$TMP/split' 30; echo rc=\$?" Enter
wait_for 10 pane_has 'CHILDREN' 'SELF' 'leaf' 'by dso,sym, tree: callers' ||
	fail "no Hotspots view with CHILDREN and SELF and the leaf row" "$TMP/pane"
# Children mode: sorted by CHILDREN, with rows for the callers, never sampled themselves.
wait_for 10 pane_has 'sort CHILDREN' ' main ' ' caller_a ' ||
	fail "the Hotspots view is not sorted by CHILDREN with rows for main and caller_a" "$TMP/pane"
pass "-g: the Hotspots view sorts by CHILDREN, main and caller_a have rows"
# Rows rank by CHILDREN (main and libc's start code, on every chain, come
# first): keep the leaf's row alone (F4 filters), selected, and expand it.
keys F4
keys -l leaf
keys Enter
keys '+'
wait_for 5 pane_has '<- caller_a' '<- caller_b' || fail "'+' did not show the leaf's callers" "$TMP/pane"
# The tree: caller_a about 60 % of the leaf's callers (once there are
# some samples), above caller_b, and main one level in under each.
tree_ok() {
	pane >"$TMP/pane"
	python3 - "$TMP/pane" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
tree = [re.search(r'^(\s*)([0-9.]+)% <- (\S+)', l) for l in lines]
tree = [(m.group(1), float(m.group(2)), m.group(3)) for m in tree if m]
names = [t[2] for t in tree]
a, b = names.index('caller_a'), names.index('caller_b')
assert a < b, names
share_a = tree[a][1] / (tree[a][1] + tree[b][1]) * 100
assert abs(share_a - 60) <= 10, share_a
assert 'main' in names[a + 1:b], names
assert len(tree[a + 1][0]) > len(tree[a][0]), tree
PY
}
wait_for 15 tree_ok || fail "the callers are not an indented tree with caller_a (about 60%) above caller_b" "$TMP/pane"
pass "'+' expands the leaf into its callers: caller_a above caller_b, main one level in"
keys c
wait_for 5 pane_has 'tree: callees' || fail "'c' did not switch the tree to callees" "$TMP/pane"
pane_lacks() { pane >"$TMP/pane" && ! grep -qF -- "$1" "$TMP/pane"; }
wait_for 5 pane_lacks '<- caller_a' || fail "'c': the callers are still shown" "$TMP/pane"
keys c
wait_for 5 pane_has '<- caller_a' || fail "'c' again did not bring the callers back" "$TMP/pane"
keys '-'
wait_for 5 pane_lacks '<- caller_a' || fail "'-' did not fold the tree" "$TMP/pane"
pass "'c' shows callees and back, '-' folds"
keys G
wait_for 5 pane_has 'by sym,' || fail "'G' did not group by sym" "$TMP/pane"
pass "'G' cycles the grouping (dso,sym -> sym)"
keys q
wait_for 5 pane_has 'rc=' || fail "q did not quit" "$TMP/pane"
