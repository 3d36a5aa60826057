#!/bin/bash
# The first snapshot has real task counters: a task busy before pfmtop
# started is counted in `pfmtop -b -n 1` and in the view's first frame
# (not n/c), and the columns of an event this machine does not support
# read n/s on every task row (not n/c), rows with /proc figures only too;
# every row of the view's Tasks table has its USER.
. "$(dirname "$0")/lib.sh"

need_root
"$PFMTOP_HELPERS/spin" 60 &
spin=$!
cleanup_add "kill $spin"
sleep 0.5 # busy for a while before pfmtop starts: "over its life so far"

# --wide: the columns of the unsupported events too (they read n/s)
run "$TMP/out" "$TMP/err" "$PFMTOP" -b -n 1 -d 0.5 -N 0 --no-hotspots --wide
expect_rc 0 "pfmtop -b -n 1" "$TMP/out" "$TMP/err"
# The TASKS table: each row's token that ends where a column title ends.
python3 - "$TMP/out" "$spin" >"$TMP/check" <<'EOF'
import sys
lines = open(sys.argv[1]).read().splitlines()
unsup = {l.split()[0] for l in lines if "  not supported  " in l}
t = next(i for i, l in enumerate(lines) if l.startswith("TASKS:"))
head = lines[t + 1]
rows = []
for l in lines[t + 2:]:
    if not l.strip():
        break
    rows.append(l)
def cell(row, title):
    end = head.index(" " + title + " " if " " + title + " " in head else " " + title) + 1 + len(title)
    return row[:end].split()[-1]
spin = [r for r in rows if r.split()[0] == sys.argv[2]]
print("spin-row" if spin else "no-spin-row")
if spin:
    print("task-clock=" + cell(spin[0], "task-clock(ms)"))
bad = [(ev, r) for ev in unsup if ev in head for r in rows if cell(r, ev) != "n/s"]
print("unsupported=%d bad=%d" % (len(unsup), len(bad)))
for ev, r in bad[:3]:
    print("  %s: %s" % (ev, r))
EOF
grep -qx spin-row "$TMP/check" || fail "the busy task is not in the first snapshot" "$TMP/out" "$TMP/check"
grep -qE '^task-clock=[0-9]+\.[0-9]+$' "$TMP/check" ||
	fail "the first snapshot has no task-clock for a task busy since before the start" "$TMP/check" "$TMP/out"
grep -q ' bad=0$' "$TMP/check" || fail "an unsupported event reads other than n/s on a task row" "$TMP/check"
pass "-b -n 1: the busy task counted ($(grep task-clock "$TMP/check")), unsupported events n/s on every row"

# ---- the view's first frame ----
tmux_setup
tm new-session -d -s t -x 120 -y 30 "env PS1='tui\$ ' bash --norc --noprofile" ||
	skip "tmux cannot start a session here"
wait_for 5 pane_has 'tui$' || fail "the shell in tmux did not start" "$TMP/pane"
tm send-keys -t t "clear; TERM=xterm-256color '$PFMTOP' --view tasks -d 30 -p $spin; echo rc=\$?" Enter
# -d 30: the first frame is the only one in this test
wait_for 20 pane_has 'COMMAND' 'spin' || fail "the view's first frame has no row for the task" "$TMP/pane"
grep -E "^ *$spin " "$TMP/pane" >"$TMP/row" || fail "no row for $spin" "$TMP/pane"
! grep -q 'n/c' "$TMP/row" || fail "the view's first frame shows n/c for a busy task" "$TMP/row"
grep -qE '[0-9]+\.[0-9]' "$TMP/row" || fail "the view's first frame has no counts for the task" "$TMP/row"
tm send-keys -t t q
wait_for 10 pane_has 'rc=0' || fail "q did not quit" "$TMP/pane"
pass "the view's first frame counts the busy task"

# ---- USER on every row of the view, /proc-only rows too ----
tm resize-window -t t -x 200 -y 60 2>/dev/null || true
tm send-keys -t t "clear; TERM=xterm-256color '$PFMTOP' --view tasks -d 0.5 --cpu-min 50 --task-counters perf; echo rc=\$?" Enter
wait_for 20 pane_has 'USER' 'COMMAND' 'idle: /pro' || fail "no Tasks view with /proc-only rows" "$TMP/pane"
sleep 1.5 # a few intervals: rows that came and went
pane >"$TMP/users"
python3 - "$TMP/users" >"$TMP/blank" <<'EOF'
import sys
lines = open(sys.argv[1]).read().splitlines()
h = next(i for i, l in enumerate(lines) if " USER " in l and "COMMAND" in l)
a, b = lines[h].index(" USER ") + 1, lines[h].index("CPU%") - 4
for l in lines[h + 1:]:
    if l.strip() and l.split()[0].isdigit() and not l[a:b].strip():
        print(l)
EOF
[ ! -s "$TMP/blank" ] || fail "task rows with no USER" "$TMP/blank" "$TMP/users"
tm send-keys -t t q
wait_for 10 pane_has 'rc=0' || fail "q did not quit" "$TMP/pane"
pass "USER on every row of the view's Tasks table"
