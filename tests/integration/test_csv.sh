#!/bin/bash
# --format csv: one header, then a line per (snapshot, row, event, metric or
# figure of the row; hotspot rows too),
# loaded by sqlite3's .import as a table whose numbers add up: the interval
# snapshots of a command's page faults sum to its final total, which is at
# least the faults the workload is known to take.
. "$(dirname "$0")/lib.sh"
need_cmd sqlite3

csv=$TMP/out.csv out=$TMP/stdout err=$TMP/err
bursts=$(helper bursts)

run "$out" "$err" timeout 60 "$PFMTOP" -b -d 0.2 --format csv -e page-faults,task-clock -o "$csv" -- "$bursts" 1000 37 20
expect_rc 0 "pfmtop -b --format csv -o FILE -- bursts" "$out" "$err"
out=$csv
head -1 "$out" | grep -qx 'time,seq,span,interval_s,scope,id,pid,comm,kind,name,value,unit,coverage,state' ||
	fail "the first line is not the CSV header" "$out"
[ "$(grep -c '^time,' "$out")" -eq 1 ] || fail "the header is written more than once" "$out"

q() { sqlite3 -batch -noheader "$TMP/db" "$1"; }
sqlite3 -batch "$TMP/db" ".import --csv '$out' s" 2>"$err" || fail "sqlite3 .import refused the CSV" "$err" "$out"
fields=$(awk -F, 'NR > 1 { print NF }' "$out" | sort -u | tr '\n' ' ')
[ "$(q "select count(*) from s where scope = '' or name = ''")" -eq 0 ] ||
	fail "lines with fields out of place (field counts: $fields)" "$out"

snaps=$(q "select count(distinct seq) from s")
[ "$snaps" -ge 3 ] || fail "expected several snapshots, got $snaps" "$out"
total=$(q "select value from s where span = 'total' and scope = 'total' and name = 'page-faults'")
sum=$(q "select sum(value) from s where span != 'total' and scope = 'total' and name = 'page-faults'")
tasks=$(q "select sum(value) from s where span = 'total' and scope = 'task' and name = 'page-faults'")
[ -n "$total" ] || fail "no final total of page-faults" "$out"
check "$sum == $total" "interval snapshots add up to the total: $sum vs $total" "$out"
check "$total >= 20000" "bursts takes at least 20000 page faults; the total says $total" "$out"
check "$tasks <= $total" "task rows hold no more than the total ($tasks vs $total)" "$out"
[ "$(q "select count(*) from s where name = 'task-clock' and unit != 'ms'")" -eq 0 ] ||
	fail "task-clock without its unit (ms)" "$out"
[ "$(q "select count(*) from s where kind = 'event' and state = 'ok' and (value = '' or coverage = '')")" -eq 0 ] ||
	fail "a counted value without its number or coverage" "$out"
pass "CSV: $snaps snapshots loaded by sqlite3; page-faults $sum over the intervals = $total in total (>= 20000)"

# the rows' own figures (kind stat) and the hotspot rows
[ "$(q "select count(*) from s where kind = 'stat' and name = 'cpu_pct' and scope = 'task' and cast(value as real) > 0")" -gt 0 ] ||
	fail "no task line with its CPU%" "$out"
[ "$(q "select count(*) from s where kind = 'stat' and name = 'threads' and scope = 'task' and cast(value as real) >= 1")" -gt 0 ] ||
	fail "no task line with its threads" "$out"
[ "$(q "select count(*) from s where kind = 'stat' and name = 'state' and scope = 'task' and state in ('counted', 'exited')")" -gt 0 ] ||
	fail "no task line with its state" "$out"
[ "$(q "select count(*) from s where scope = 'total' and kind = 'stat' and name = 'cpu_pct'")" -eq "$snaps" ] ||
	fail "not every snapshot's total has its CPU%" "$out"
hot=$(q "select count(*) from s where scope = 'hotspot' and kind = 'hotspot' and cast(value as real) > 0 and cast(value as real) <= 100 and unit = '%'")
[ "$hot" -gt 0 ] || fail "no hotspot line with its share" "$out"
[ "$(q "select count(*) from s where scope = 'hotspot' and kind = 'hotspot_samples'")" -eq "$hot" ] ||
	fail "hotspot lines without their samples" "$out"
pass "CSV: CPU%, threads and state of each row, and $hot hotspot lines with their shares and samples"

# standard output, and a name with a comma and a quote stays one field
ln -s "$bursts" "$TMP/a,\"b"
run "$out" "$err" timeout 60 "$PFMTOP" -b -n 1 -d 0.2 --format csv -e page-faults -- "$TMP/a,\"b" 100 10 3
expect_rc 0 "pfmtop --format csv -- 'a,\"b'" "$out" "$err"
grep -q ',"a,""b",' "$out" || fail "the name a,\"b is not one quoted field" "$out"
pass "a name with a comma and a quote is one quoted CSV field"
