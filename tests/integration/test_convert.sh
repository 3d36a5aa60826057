#!/bin/bash
# --convert FILE: a JSON Lines recording written again as JSON (the same
# bytes), text (a snapshot for each line) or CSV (whose intervals add up to
# the recorded total); a last line cut short is left out with a warning, a
# line that is not a snapshot stops it with file:line, and nothing counts.
. "$(dirname "$0")/lib.sh"
need_cmd sqlite3

out=$TMP/out err=$TMP/err rec=$TMP/rec.json
bursts=$(helper bursts)

run "$out" "$err" timeout 60 "$PFMTOP" -b -d 0.2 --format json -e page-faults,task-clock -o "$rec" -- "$bursts" 500 37 15
expect_rc 0 "pfmtop -b --format json -o FILE -- bursts" "$out" "$err"
n=$(wc -l <"$rec")
[ "$n" -ge 3 ] || fail "expected several snapshots in the recording, got $n" "$rec"

run "$out" "$err" "$PFMTOP" --convert "$rec" --format json
expect_rc 0 "pfmtop --convert REC --format json" "$out" "$err"
cmp -s "$out" "$rec" || fail "--convert to JSON changed the recording" "$out" "$rec"
pass "JSON again: the same $n lines, byte for byte"

run "$out" "$err" "$PFMTOP" --convert "$rec"
expect_rc 0 "pfmtop --convert REC" "$out" "$err"
[ "$(grep -cE '^pfmtop .* (snapshot|final) [0-9]+ ' "$out")" -eq "$n" ] ||
	fail "--convert to text: not one snapshot per recorded line ($n)" "$out"
grep -q '^TASKS: ' "$out" && grep -q '^EVENT ' "$out" || fail "--convert to text: no TASKS or EVENT table" "$out"
pass "text: $n snapshots"

run "$out" "$err" "$PFMTOP" --convert - --format csv -o "$TMP/rec.csv" <"$rec"
expect_rc 0 "pfmtop --convert - --format csv -o FILE < REC" "$out" "$err"
sqlite3 -batch "$TMP/db" ".import --csv '$TMP/rec.csv' s" 2>"$err" || fail "sqlite3 .import refused the CSV" "$err"
total=$(sqlite3 "$TMP/db" "select value from s where span = 'total' and scope = 'total' and name = 'page-faults'")
sum=$(sqlite3 "$TMP/db" "select sum(value) from s where span != 'total' and scope = 'total' and name = 'page-faults'")
want=$(json "$rec" 'ctr(final["total"], "page-faults")')
check "$sum == $total == $want" "CSV from the recording: intervals $sum, total $total, recorded total $want" "$TMP/rec.csv"
pass "CSV from standard input: intervals add up to the recorded total ($total)"

# a recording cut while a line was written: that line is left out, with a warning
head -c "$(($(stat -c %s "$rec") - 100))" "$rec" >"$TMP/torn.json"
run "$out" "$err" "$PFMTOP" --convert "$TMP/torn.json" --format json
expect_rc 0 "pfmtop --convert TORN" "$out" "$err"
[ "$(wc -l <"$out")" -eq $((n - 1)) ] || fail "--convert TORN: expected the $((n - 1)) whole lines" "$out"
grep -q "torn.json:$n: the last line is cut short" "$err" || fail "--convert TORN: no warning naming line $n" "$err"
pass "a torn last line: left out with a warning, exit 0"

# a line that is not a snapshot: file:line, exit 1
{ head -1 "$rec"; echo '{"pfmtop":"x"}'; tail -1 "$rec"; } >"$TMP/bad.json"
run "$out" "$err" "$PFMTOP" --convert "$TMP/bad.json"
expect_rc 1 "pfmtop --convert BAD" "$out" "$err"
[ "$(wc -l <"$err")" -eq 1 ] && grep -q "bad.json:2: not a pfmtop snapshot" "$err" ||
	fail "--convert BAD: expected one line naming bad.json:2" "$err"
pass "a line that is not a snapshot: $(cat "$err")"

# what cannot be read, and what makes no sense with it
run "$out" "$err" "$PFMTOP" --convert "$TMP/missing.json"
expect_rc 2 "pfmtop --convert MISSING" "$out" "$err"
mkfifo "$TMP/fifo"
run "$out" "$err" timeout 10 "$PFMTOP" --convert "$TMP/fifo"
[ "$RC" -ne 124 ] || fail "--convert FIFO_WITHOUT_WRITER hung" "$err"
run "$out" "$err" "$PFMTOP" --convert "$rec" -p 1
expect_rc 2 "pfmtop --convert REC -p 1" "$out" "$err"
run "$out" "$err" "$PFMTOP" --convert "$rec" -o "$TMP/rec.csv"
expect_rc 2 "pfmtop --convert REC -o EXISTING" "$out" "$err"
pass "a missing file, -p, an existing -o: exit 2; a FIFO without a writer does not hang"
