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

# a recording (--record) all of whose frames are refused: exit 1, one line
# says so, nothing written; every CRC wrong (no frame indexed), or every CRC
# right over a payload that is not zstd (indexed, none decodes)
run "$out" "$err" timeout 60 "$PFMTOP" -b -d 0.2 -e task-clock --record "$TMP/r.pfr" -- sleep 0.7
expect_rc 0 "pfmtop -b --record FILE.pfr -- sleep 0.7" "$out" "$err"
# spoil MODE IN OUT: the frames of IN (src/pfr.h's format) spoilt, into OUT
spoil() {
	python3 - "$@" <<'PY'
import struct, sys, zlib
mode, src, dst = sys.argv[1:]
d = bytearray(open(src, "rb").read())
assert d[:16] == b"pfmtop record 1\n"
pos, prev, n = 16, 0, 0
while pos + 28 <= len(d):
    h = d[pos:pos + 28]
    assert h[:4] == b"PFRF", "a frame header at %d" % pos
    ln = struct.unpack_from("<I", h, 8)[0]
    p = pos + 28
    if mode == "crc":
        d[p + ln // 2] ^= 0x40  # the CRC no longer holds
    else:
        d[p:p + 4] = b"XXXX"  # no zstd frame, under a CRC that holds
        if h[4:5] == b"D":
            struct.pack_into("<I", d, pos + 24, prev)
        c = zlib.crc32(bytes(d[pos:pos + 12]))
        c = zlib.crc32(bytes(d[pos + 16:pos + 28]), c)
        c = zlib.crc32(bytes(d[p:p + ln]), c)
        struct.pack_into("<I", d, pos + 12, c)
        prev = c
    pos, n = p + ln, n + 1
assert pos == len(d) and n >= 3, (pos, len(d), n)
open(dst, "wb").write(d)
print(n)
PY
}
nf=$(spoil crc "$TMP/r.pfr" "$TMP/badcrc.pfr")
spoil content "$TMP/r.pfr" "$TMP/badzst.pfr" >/dev/null
# read FORM FILE: --convert FILE, or --replay FILE -b
read_rec() {
	if [ "$1" = --convert ]; then
		run "$out" "$err" timeout 10 "$PFMTOP" --convert "$2"
	else
		run "$out" "$err" timeout 10 "$PFMTOP" --replay "$2" -b
	fi
}
for cmd in --convert --replay; do
	read_rec $cmd "$TMP/badcrc.pfr"
	expect_rc 1 "$cmd BAD_CRC.pfr" "$out" "$err"
	[ ! -s "$out" ] || fail "$cmd BAD_CRC.pfr: wrote something" "$out"
	grep -q "badcrc.pfr: no snapshot in it" "$err" && grep -q "bytes of damaged frames left out" "$err" ||
		fail "$cmd BAD_CRC.pfr: no line says every frame was damaged" "$err"
	read_rec $cmd "$TMP/badzst.pfr"
	expect_rc 1 "$cmd BAD_CONTENT.pfr" "$out" "$err"
	[ ! -s "$out" ] || fail "$cmd BAD_CONTENT.pfr: wrote something" "$out"
	grep -q "badzst.pfr: none of its $nf frames could be read: nothing written" "$err" ||
		fail "$cmd BAD_CONTENT.pfr: no 'none of its $nf frames could be read' line" "$err"
	[ "$(grep -c 'a damaged frame' "$err")" -eq "$nf" ] ||
		fail "$cmd BAD_CONTENT.pfr: not one line for each of the $nf frames" "$err"
done
pass "a recording of $nf frames all refused (bad CRCs, or good CRCs over what is not zstd): exit 1, nothing written, said so"

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
