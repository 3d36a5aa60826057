#!/bin/bash
# --record, --replay, --convert of a recording: what the live run printed
# comes back byte for byte; a recording killed at any moment, cut at any
# byte or filled to a full disk still replays every whole frame before.
. "$(dirname "$0")/lib.sh"

need_root # system-wide target (the default), a tmpfs for ENOSPC

out=$TMP/out err=$TMP/err
d=$TMP/r
mkdir "$d"
faulter=$(helper faulter)

# --- live batch run and its recording print the same, in every format ---
# (the recording holds every row: cut to the live run's -N and --hot, 10)
run "$out" "$err" "$PFMTOP" -b -d 0.3 -n 4 --format json -o "$d/live.json" --record "$d/run.pfr"
expect_rc 0 "pfmtop -b -n 4 --format json -o FILE --record FILE.pfr" "$out" "$err"
head -c 16 "$d/run.pfr" | grep -q '^pfmtop record 1$' || fail "the recording does not start with its magic" "$d/run.pfr"
run "$out" "$err" "$PFMTOP" --convert "$d/run.pfr" --format json -N 10 --hot 10
expect_rc 0 "--convert FILE.pfr --format json -N 10 --hot 10" "$out" "$err"
cmp -s "$out" "$d/live.json" || fail "--convert of the recording is not what the live run wrote" "$out" "$d/live.json"
[ ! -s "$err" ] || fail "--convert of a whole recording complained" "$err"
for fmt in text csv; do
	run "$TMP/conv" "$err" "$PFMTOP" --convert "$d/live.json" --format $fmt
	run "$out" "$err" "$PFMTOP" --replay "$d/run.pfr" -b --format $fmt -N 10 --hot 10
	expect_rc 0 "--replay FILE -b --format $fmt -N 10 --hot 10" "$out" "$err"
	cmp -s "$out" "$TMP/conv" || fail "--replay -b --format $fmt differs from the JSON run converted" "$out" "$TMP/conv"
done
pass "--record beside -b: --convert gives the live JSON byte for byte; --replay -b text and csv agree"

# A command: its interval snapshots, the last one cut short and the totals.
run "$d/cmd.txt" "$err" "$PFMTOP" -b -d 0.2 -e page-faults --record "$d/cmd.pfr" -- "$faulter" 0.7
expect_rc 0 "pfmtop -b --record -- faulter" "$d/cmd.txt" "$err"
run "$out" "$err" "$PFMTOP" --replay "$d/cmd.pfr" -b -N 10 --hot 10
cmp -s "$out" "$d/cmd.txt" || fail "--replay -b of a command's run is not what it printed" "$out" "$d/cmd.txt"
grep -q "totals" "$out" || grep -qi "final" "$out" || fail "the replayed command run has no totals" "$out"
pass "a command's run: --replay -b prints exactly what the live run printed ($(grep -c '^pfmtop' "$out") snapshots)"

# -b -o FILE.pfr: a recording, nothing printed.
run "$out" "$err" "$PFMTOP" -b -d 0.2 -n 3 -o "$d/o.pfr"
expect_rc 0 "pfmtop -b -n 3 -o FILE.pfr" "$out" "$err"
[ ! -s "$out" ] || fail "-b -o FILE.pfr also printed snapshots" "$out"
n=$("$PFMTOP" --convert "$d/o.pfr" --format json | wc -l)
[ "$n" -eq 3 ] || fail "-b -n 3 -o FILE.pfr holds $n snapshots, expected 3"
pass "-b -o FILE.pfr: 3 snapshots recorded, nothing printed"

# --record with strftime escapes: a file per second here (per day: %F)
mkdir "$d/days"
run "$out" "$err" "$PFMTOP" -b -d 0.4 -n 6 -e task-clock --record "$d/days/run-%H%M%S.pfr"
expect_rc 0 "--record 'run-%H%M%S.pfr'" "$out" "$err"
files=$(ls "$d/days" | wc -l)
[ "$files" -ge 2 ] || fail "--record with %S over 2.4 s made $files file(s), expected 2 or more"
total=0
for f in "$d/days"/*; do
	total=$((total + $("$PFMTOP" --convert "$f" --format json | wc -l)))
done
[ "$total" -eq 6 ] || fail "the per-second files hold $total snapshots, expected 6"
pass "--record with % escapes: $files files, a key frame each, $total snapshots in all"

# --- refusals: an existing file, --append to what is not a recording ---
echo "precious" >"$d/notes.txt"
run "$out" "$err" "$PFMTOP" -b -n 1 --record "$d/notes.txt"
expect_rc 2 "--record onto a file that holds something" "$out" "$err"
run "$out" "$err" "$PFMTOP" -b -n 1 --record "$d/notes.txt" --append
expect_rc 2 "--record --append onto a file that is not a recording" "$out" "$err"
grep -q "not one" "$err" || fail "--append to a non-recording: the message does not say why" "$err"
[ "$(cat "$d/notes.txt")" = precious ] || fail "a refused --record changed the file" "$d/notes.txt"
before=$("$PFMTOP" --convert "$d/o.pfr" --format json | wc -l)
run "$out" "$err" "$PFMTOP" -b -d 0.2 -n 2 -o "$d/o.pfr" --append
expect_rc 0 "-b -o FILE.pfr --append" "$out" "$err"
after=$("$PFMTOP" --convert "$d/o.pfr" --format json | wc -l)
[ "$after" -eq $((before + 2)) ] || fail "--append: $before then $after snapshots, expected $((before + 2))"
run "$out" "$err" "$PFMTOP" --replay "$d/missing.pfr" -b
expect_rc 2 "--replay of a missing file" "$out" "$err"
[ "$(wc -l <"$err")" -eq 1 ] || fail "--replay of a missing file: not one line" "$err"
run "$out" "$err" "$PFMTOP" --replay "$d/o.pfr" </dev/null
expect_rc 2 "--replay without a terminal" "$out" "$err"
grep -q -- "-b" "$err" || fail "--replay without a terminal does not suggest -b" "$err"
pass "refused: an existing file, --append to a non-recording, a missing recording, no terminal; --append adds"

# --- kill -9 at random moments: every frame before the kill replays ---
for i in $(seq 1 20); do
	f=$d/kill$i.pfr
	"$PFMTOP" --record "$f" -d 0.05 -e task-clock </dev/null >/dev/null 2>"$err" &
	pid=$!
	# the first frame is written (a loaded machine may take a while), then
	# a random moment
	wait_for 20 test -s "$f" || fail "kill -9 run $i: nothing recorded in 20 s" "$err"
	sleep "$(py "$RANDOM / 32768 * 1.2")"
	kill -KILL $pid
	wait $pid 2>/dev/null || true
	[ -f "$f" ] || fail "kill -9 run $i: no recording at all"
	run "$out" "$TMP/conv.err" "$PFMTOP" --convert "$f" --format json
	expect_rc 0 "kill -9 run $i: --convert" "$out" "$TMP/conv.err"
	json_check "$out" "len(lines) >= 1 and [x['seq'] for x in lines] == list(range(1, len(lines) + 1))" \
		"kill -9 run $i: the snapshots are not whole and numbered 1..N"
	# only a torn last frame may be reported
	! grep -v "cut short" "$TMP/conv.err" | grep -q . || fail "kill -9 run $i: unexpected complaints" "$TMP/conv.err"
	ls -A "$d" | grep -q '^\.' && fail "kill -9 run $i: hidden files left in $d: $(ls -A "$d" | grep '^\.')"
done
pass "kill -9 at 20 random moments: every recording converts, snapshots 1..N whole"

# --- cut in its last frame: every frame before replays (every byte offset:
# tests/unit/test_pfr.c; here the header's bytes and every 11th after) ---
f=$d/kill1.pfr
n=$("$PFMTOP" --convert "$f" --format json 2>/dev/null | wc -l)
size=$(stat -c %s "$f")
# where the last frame starts: the last "PFRF" magic
last=$(python3 -c "import sys; print(open(sys.argv[1], 'rb').read().rfind(b'PFRF'))" "$f")
cuts=0
for cut in $(seq "$last" $((last + 30))) $(seq $((last + 31)) 11 "$size") "$size"; do
	cuts=$((cuts + 1))
	head -c "$cut" "$f" >"$d/cut.pfr"
	m=$("$PFMTOP" --convert "$d/cut.pfr" --format json 2>"$TMP/cut.err" | wc -l)
	want=$n
	[ "$cut" -lt "$size" ] && want=$((n - 1))
	[ "$m" -eq "$want" ] || fail "cut at byte $cut of $size: $m snapshots, expected $want" "$TMP/cut.err"
done
pass "cut at $cuts byte offsets of the last frame ($((size - last)) bytes): the $((n - 1)) frames before all convert"

# --- a full disk: the frame that does not fit is cut back off ---
mnt=$TMP/small
mkdir "$mnt"
mount -t tmpfs -o size=96k tmpfs "$mnt" 2>/dev/null || skip "cannot mount a tmpfs here"
cleanup_add "umount '$mnt'"
run "$out" "$err" timeout 60 "$PFMTOP" --record "$mnt/full.pfr" -d 0.02
expect_rc 1 "--record until the disk is full" "$out" "$err"
grep -q "No space left on device" "$err" || fail "a full disk: the message does not name ENOSPC" "$err"
[ "$(wc -l <"$err")" -le 2 ] || fail "a full disk: more than the start line and one line" "$err"
run "$out" "$TMP/conv.err" "$PFMTOP" --convert "$mnt/full.pfr" --format json
expect_rc 0 "--convert of the recording that filled the disk" "$out" "$TMP/conv.err"
[ ! -s "$TMP/conv.err" ] || fail "the recording that filled the disk is not whole (a torn frame left in it)" "$TMP/conv.err"
json_check "$out" "len(lines) >= 3" "the recording that filled the disk holds fewer than 3 snapshots"
pass "ENOSPC: exit 1 with $(tail -1 "$err" | cut -c1-60)...; the $(wc -l <"$out") frames written all convert"

# --- a damaged byte costs its frame and the deltas after it up to the next
# key frame (every 100), never the frames before ---
f=$d/kill2.pfr
n=$("$PFMTOP" --convert "$f" --format json 2>/dev/null | wc -l)
if [ "$n" -ge 4 ]; then
	cp "$f" "$d/bad.pfr"
	# the third frame (a delta: key frames come every 100)
	third=$(python3 -c "import sys; d = open(sys.argv[1], 'rb').read(); i = d.find(b'PFRF'); i = d.find(b'PFRF', i + 4); print(d.find(b'PFRF', i + 4))" "$f")
	printf 'X' | dd of="$d/bad.pfr" bs=1 seek=$((third + 40)) conv=notrunc status=none
	m=$("$PFMTOP" --convert "$d/bad.pfr" --format json 2>"$TMP/bad.err" | wc -l)
	want=$((2 + (n > 100 ? n - 100 : 0)))
	[ "$m" -eq "$want" ] || fail "the third frame damaged: $m of $n snapshots read, expected $want" "$TMP/bad.err"
	grep -q "damaged" "$TMP/bad.err" || fail "a damaged frame is not reported" "$TMP/bad.err"
	pass "the third frame damaged: the two before it read, $((n - want)) left out up to the next key frame, one line says so"
fi
