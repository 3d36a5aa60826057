#!/bin/bash
# Names any user can give a process (prctl PR_SET_NAME) reach root's terminal
# and scripts only made safe: no ESC, CR, BS, DEL or C1 byte in text output
# (a row stays one line with its own PID), every JSON line strict and valid
# UTF-8 with the raw bytes in hex, "zürich-λ" readable, the same in the
# viewer, and user input echoed in errors cleaned too.
. "$(dirname "$0")/lib.sh"

need_root # the whole machine's processes
rename=$(helper rename)
out=$TMP/out err=$TMP/err

# name hex: what each process calls itself
declare -A names=(
	[osc]=1b5d323b50574e454407      # ESC ] 2 ; PWNED BEL: sets a terminal's title
	[cr]=0d2020202020203120726f6f74 # CR, spaces, "1 root": overwrites a row
	[bad]=fffe                      # not UTF-8
	[nl]=610a62                     # a, LF, b: splits a line
	[csi]=9b33316d                  # C1 CSI 3 1 m
	[utf8]=7ac3bc726963682dcebb     # zürich-λ
	[del]=7f0864656c                # DEL, BS, "del"
)
declare -A pid
for k in "${!names[@]}"; do
	"$rename" "${names[$k]}" 60 >"$TMP/$k.ready" &
	pid[$k]=$!
	disown "${pid[$k]}"
	cleanup_add "kill -KILL ${pid[$k]}"
done
ready() { local k; for k in "${!names[@]}"; do grep -q ready "$TMP/$k.ready" || return 1; done; }
wait_for 20 ready || fail "the renamed processes did not start"
pids=$(IFS=,; echo "${pid[*]}")

# --- text ---
run "$out" "$err" timeout 30 "$PFMTOP" -b -N 0 -d 0.3 -n 2 -e task-clock
expect_rc 0 "pfmtop -b -N 0 -d 0.3 -n 2 beside hostile names" "$out" "$err"
python3 - "$out" <<'EOF' || fail "text output carries raw control bytes or invalid UTF-8" "$out"
import sys
b = open(sys.argv[1], "rb").read()
bad = sorted({c for c in b if (c < 0x20 and c != 0x0a) or c == 0x7f})
if bad:
    sys.exit("raw control bytes: %s" % bad)
t = b.decode("utf-8")  # strict
c1 = sorted({hex(ord(ch)) for ch in t if 0x80 <= ord(ch) <= 0x9f})
if c1:
    sys.exit("C1 controls: %s" % c1)
EOF
for k in "${!names[@]}"; do
	n=$(awk -v p="${pid[$k]}" '/^TASKS:/ { s++ } s == 2 && $1 == p' "$out" | wc -l)
	[ "$n" -eq 1 ] || fail "text, snapshot 2: the '$k' process ${pid[$k]} has $n task rows starting with its PID, expected 1" "$out"
done
grep -q "zürich-λ" "$out" || fail "text: 'zürich-λ' does not appear as it is" "$out"
grep -qF '^[]2;PWNED^G' "$out" || fail "text: the OSC name is not shown as ^[]2;PWNED^G" "$out"
grep -qF '\xff\xfe' "$out" || fail "text: the bytes ff fe are not shown as \\xff\\xfe" "$out"
grep -qF 'a^Jb' "$out" || fail "text: the name a LF b is not shown as a^Jb" "$out"
grep -qF '\x9b31m' "$out" || fail "text: the C1 CSI is not shown as \\x9b" "$out"
pass "text: no raw control byte, one row per process, names escaped, zürich-λ kept"

# --- JSON ---
run "$out" "$err" timeout 30 "$PFMTOP" -b -N 0 -d 0.3 -n 2 -e task-clock --format json
expect_rc 0 "pfmtop -b --format json beside hostile names" "$out" "$err"
python3 - "$out" "${pid[bad]}" "${pid[utf8]}" "${pid[osc]}" <<'EOF' || fail "JSON output is not strict, valid UTF-8, or lost the raw bytes" "$out"
import json, sys
path, bad, utf8, osc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
lines = open(path, "rb").read().split(b"\n")[:-1]
assert len(lines) == 2, "%d lines" % len(lines)
for l in lines:
    x = json.loads(l.decode("utf-8"), strict=True)
    rows = {t["pid"]: t for t in x["tasks"]}
    for p in (bad, utf8, osc):
        assert p in rows, "pid %d has no task row" % p
    assert rows[bad]["comm"] == "\ufffd\ufffd" and rows[bad]["comm_raw"] == "fffe", rows[bad]
    assert rows[utf8]["comm"] == "zürich-λ" and "comm_raw" not in rows[utf8], rows[utf8]
    assert rows[osc]["comm"] == "\x1b]2;PWNED\x07" and "comm_raw" not in rows[osc], rows[osc]
EOF
pass "JSON: strict, valid UTF-8; \\xff\\xfe as U+FFFD with comm_raw fffe; controls escaped, not lost"

# --- user input echoed in an error ---
run "$out" "$err" "$PFMTOP" -b -n 1 -e $'\e]2;x\a'
expect_rc 2 "pfmtop -e ESC]2;x BEL" "$out" "$err"
! grep -q $'[\e\a]' "$err" || fail "the error echoes ESC or BEL raw" "$err"
grep -qF "'^[]2;x^G'" "$err" || fail "the error does not show the event as '^[]2;x^G'" "$err"
pass "errors: the echoed input cleaned: $(cat "$err")"

# --- the viewer: the CR name does not make a row for PID 1 ---
tmux_setup
tm new-session -d -s t -x 160 -y 50 "env TERM=xterm-256color '$PFMTOP' --view tasks --cpu-min -1" ||
	skip "tmux cannot start a session here"
# A raw CR would move the cursor back and write "      1 root" over the start
# of the row, its own PID gone: the row must start with its PID and show ^M.
row() { pane >"$TMP/pane" && grep -qE "^ *${pid[cr]} .*\^M +1 root" "$TMP/pane"; }
wait_for 15 row || fail "the viewer shows no row '${pid[cr]} ... ^M      1 root'" "$TMP/pane"
pass "viewer: the CR name is shown as ^M in its own row"
