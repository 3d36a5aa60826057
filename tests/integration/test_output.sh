#!/bin/bash
# -o FILE: the file appears whole (written beside it, renamed into place),
# never as a half-written file or a leftover temporary, even on SIGTERM.
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

# Replacing an existing file replaces it whole.
echo "old content" >"$dir/old.txt"
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.2 -e task-clock -o "$dir/old.txt"
expect_rc 0 "pfmtop -b -n 1 -o EXISTING" "$out" "$err"
! grep -q "old content" "$dir/old.txt" || fail "-o over an existing file kept its old content" "$dir/old.txt"
grep -qE '^pfmtop .* snapshot 1 ' "$dir/old.txt" || fail "-o over an existing file: no snapshot in it" "$dir/old.txt"

# --- a directory that does not exist ---
run "$out" "$err" "$PFMTOP" -b -n 1 -d 0.2 -e task-clock -o "$dir/missing/snap.txt"
expect_rc 1 "pfmtop -o DIR_THAT_DOES_NOT_EXIST/FILE" "$out" "$err"
[ "$(wc -l <"$err")" -eq 1 ] && grep -q "^pfmtop: .*$dir/missing/snap.txt" "$err" ||
	fail "-o into a missing directory: expected one 'pfmtop: ...' line naming the file" "$err"
[ ! -e "$dir/missing" ] || fail "-o into a missing directory created $dir/missing"
[ -z "$(leftovers "$dir")" ] || fail "files left behind: $(leftovers "$dir" | tr '\n' ' ')"
pass "-o into a missing directory: exit 1, one line, nothing created"

# --- SIGTERM while running ---
rm -f "$dir"/*
"$PFMTOP" -b -d 0.2 -e task-clock --format json -o "$dir/live.json" >"$out" 2>"$err" &
mon=$!
cleanup_add "kill -KILL $mon"
sleep 1.1
[ ! -e "$dir/live.json" ] || fail "-o FILE exists before pfmtop finished (it should appear whole at exit)"
[ -n "$(leftovers "$dir")" ] || info "(no temporary file seen while running)"
kill -TERM "$mon"
set +e
timeout 10 tail --pid="$mon" -f /dev/null
wait "$mon"
RC=$?
set -e
expect_rc 0 "pfmtop -b -o FILE stopped by SIGTERM" "$out" "$err"
[ -s "$dir/live.json" ] || fail "after SIGTERM, $dir/live.json is missing or empty" "$err"
[ "$(tail -c1 "$dir/live.json" | od -An -c | tr -d ' ')" = '\n' ] ||
	fail "after SIGTERM the file does not end with a complete line" "$dir/live.json"
json_check "$dir/live.json" "len(lines) >= 3 and [x['seq'] for x in lines] == list(range(1, len(lines) + 1))" \
	"after SIGTERM at ~1.1 s with -d 0.2 the file should hold >= 3 complete snapshots numbered 1..N"
[ -z "$(leftovers "$dir")" ] || fail "temporary files left after SIGTERM: $(leftovers "$dir" | tr '\n' ' ')"
pass "SIGTERM: $(wc -l <"$dir/live.json") complete JSON snapshots, no temporary left"
