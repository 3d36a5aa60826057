#!/bin/bash
# -o FILE: each snapshot is written whole as soon as it is made (one write,
# appended), so the file always holds complete snapshots and nothing hidden
# is left beside it, even on SIGTERM. (What -o must never destroy:
# test_output_safety.)
. "$(dirname "$0")/lib.sh"

need_root # system-wide target (the default)

out=$TMP/out err=$TMP/err
dir=$TMP/o
mkdir "$dir"

leftovers() { find "$1" -mindepth 1 -name '.*' -printf '%f\n'; }

# --- a normal run ---
run "$out" "$err" "$PFMTOP" -b -n 2 -d 0.2 -e task-clock -o "$dir/snap.txt"
expect_rc 0 "pfmtop -b -n 2 -d 0.2 -o FILE" "$out" "$err"
[ -f "$dir/snap.txt" ] || fail "-o FILE: $dir/snap.txt was not created" "$err"
[ ! -s "$out" ] || fail "-o FILE: snapshots also went to stdout" "$out"
n=$(grep -cE '^pfmtop .* snapshot [0-9]+ ' "$dir/snap.txt" || true)
[ "$n" -eq 2 ] || fail "-o FILE holds $n snapshots, expected 2" "$dir/snap.txt"
[ -z "$(leftovers "$dir")" ] || fail "temporary files left beside FILE: $(leftovers "$dir" | tr '\n' ' ')"
[ "$(stat -c %a "$dir/snap.txt")" = "$(printf '%o' $((0666 & ~$(umask))))" ] ||
	fail "-o FILE has mode $(stat -c %a "$dir/snap.txt"), expected 0666 & ~umask"
pass "-o FILE: 2 snapshots, no temporary left"

# A file that holds anything is refused, whole, with what to do...
echo "old content" >"$dir/old.txt"
ino=$(stat -c %i "$dir/old.txt")
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.2 -e task-clock -o "$dir/old.txt"
expect_rc 2 "pfmtop -b -n 1 -o EXISTING" "$out" "$err"
[ "$(cat "$dir/old.txt")" = "old content" ] || fail "-o over an existing file changed it" "$dir/old.txt"
[ "$(wc -l <"$err")" -eq 1 ] && grep -q -- '--append adds to it, --force replaces it' "$err" ||
	fail "-o over an existing file: expected one line naming --append and --force" "$err"
# ... --append writes after what it holds ...
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.2 -e task-clock -o "$dir/old.txt" --append
expect_rc 0 "pfmtop -b -n 1 -o EXISTING --append" "$out" "$err"
[ "$(head -1 "$dir/old.txt")" = "old content" ] || fail "--append lost the file's old content" "$dir/old.txt"
grep -qE '^pfmtop .* snapshot 1 ' "$dir/old.txt" || fail "-o EXISTING --append: no snapshot in it" "$dir/old.txt"
# ... and --force empties it first; either way it is written in place.
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.2 -e task-clock -o "$dir/old.txt" --force
expect_rc 0 "pfmtop -b -n 1 -o EXISTING --force" "$out" "$err"
[ "$(stat -c %i "$dir/old.txt")" = "$ino" ] || fail "-o over an existing file replaced it (inode $ino -> $(stat -c %i "$dir/old.txt"))"
! grep -q "old content" "$dir/old.txt" || fail "-o EXISTING --force kept its old content" "$dir/old.txt"
[ "$(grep -cE '^pfmtop .* snapshot 1 ' "$dir/old.txt")" -eq 1 ] || fail "-o EXISTING --force: not one snapshot in it" "$dir/old.txt"
pass "-o over a file that holds something: refused (exit 2), --append adds, --force replaces, inode kept"

# CSV appended to: one header, the first run's
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.2 -e task-clock --format csv -o "$dir/a.csv"
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.2 -e task-clock --format csv -o "$dir/a.csv" --append
expect_rc 0 "pfmtop --format csv -o EXISTING.csv --append" "$out" "$err"
[ "$(grep -c '^time,' "$dir/a.csv")" -eq 1 ] || fail "--append to a CSV file wrote its header again" "$dir/a.csv"
[ "$(cut -d, -f2 "$dir/a.csv" | sort -u | wc -l)" -ge 2 ] || fail "--append to a CSV file: not both runs in it" "$dir/a.csv"
rm -f "$dir/a.csv" "$dir/old.txt"

# --- a directory that does not exist ---
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.2 -e task-clock -o "$dir/missing/snap.txt"
expect_rc 2 "pfmtop -o DIR_THAT_DOES_NOT_EXIST/FILE" "$out" "$err"
[ "$(wc -l <"$err")" -eq 1 ] && grep -q "^pfmtop: .*$dir/missing/snap.txt" "$err" ||
	fail "-o into a missing directory: expected one 'pfmtop: ...' line naming the file" "$err"
[ ! -e "$dir/missing" ] || fail "-o into a missing directory created $dir/missing"
[ -z "$(leftovers "$dir")" ] || fail "files left behind: $(leftovers "$dir" | tr '\n' ' ')"
pass "-o into a missing directory: exit 2, one line, nothing created"

# --- while running, then SIGTERM ---
rm -f "$dir"/*
"$PFMTOP" -b -d 0.2 -e task-clock --format json -o "$dir/live.json" >"$out" 2>"$err" &
mon=$!
cleanup_add "kill -KILL $mon"
three() { [ "$(nlines "$dir/live.json")" -ge 3 ]; }
wait_for 20 three || fail "-o FILE: no 3 snapshots in it after 20 s (they should appear as they are made)" "$err"
json_check "$dir/live.json" "len(lines) >= 3" "-o FILE, while running: its lines are not all whole JSON snapshots"
kill -TERM "$mon"
set +e
timeout 10 tail --pid="$mon" -f /dev/null
wait "$mon"
RC=$?
set -e
expect_rc 143 "pfmtop -b -o FILE stopped by SIGTERM (128 + 15)" "$out" "$err"
[ -s "$dir/live.json" ] || fail "after SIGTERM, $dir/live.json is missing or empty" "$err"
[ "$(tail -c1 "$dir/live.json" | od -An -c | tr -d ' ')" = '\n' ] ||
	fail "after SIGTERM the file does not end with a complete line" "$dir/live.json"
json_check "$dir/live.json" "len(lines) >= 4 and [x['seq'] for x in lines] == list(range(1, len(lines) + 1))" \
	"after SIGTERM the file should hold >= 4 complete snapshots numbered 1..N"
json_check "$dir/live.json" "lines[-1]['final'] is True and not any(x['final'] for x in lines[:-1])" \
	"after SIGTERM the last snapshot should be the final totals (\"final\": true), and only it"
[ -z "$(leftovers "$dir")" ] || fail "temporary files left after SIGTERM: $(leftovers "$dir" | tr '\n' ' ')"
pass "SIGTERM: $(wc -l <"$dir/live.json") complete JSON snapshots, no temporary left"
