#!/bin/bash
# -o writes where it is told and destroys nothing: a device node stays a
# device, a symbolic link of ours stays a link (its target is written); no
# file of another user, and nothing through another user's link, is written
# (the attacks of a user in a shared directory, below); what cannot be
# written is refused (exit 2, one line) before the command is launched.
. "$(dirname "$0")/lib.sh"

need_root # mknod, chown, the system-wide default target
need_cmd setpriv

out=$TMP/out err=$TMP/err
d=$TMP/o
mkdir -m 755 "$d"
marker=$TMP/ran
# snap ARGS...: one quick run of pfmtop with a command that leaves a marker:
# two snapshots, its one (short) interval and the totals.
snap() { run "$out" "$err" timeout 20 "$PFMTOP" -b -n 1 -d 0.1 -e task-clock --no-hotspots "$@" -- touch "$marker"; }
snaps_in() { grep -cE '^pfmtop .* (snapshot|final) [0-9]+ ' "$1" || true; }

# --- a character device (a twin of /dev/full, made here): written in place ---
mknod "$d/full" c 1 7
snap -o "$d/full"
expect_rc 1 "pfmtop -o FULL_DEVICE (every write fails with ENOSPC)" "$out" "$err"
grep -q "No space left on device" "$err" || fail "-o FULL_DEVICE: the message does not name ENOSPC" "$err"
[ -c "$d/full" ] || fail "-o FULL_DEVICE turned the device node into a $(stat -c %F "$d/full")"
pass "-o device: still a character device, exit 1: $(cat "$err")"

# --- a symbolic link: the link stays, its target is written ---
echo old >"$d/target"
ln -s target "$d/link.txt"
snap -o "$d/link.txt" --force
expect_rc 0 "pfmtop -o SYMLINK" "$out" "$err"
[ -L "$d/link.txt" ] || fail "-o SYMLINK replaced the link with a $(stat -c %F "$d/link.txt")"
[ "$(snaps_in "$d/target")" -ge 1 ] || fail "-o SYMLINK: the link's target holds no snapshot" "$d/target"
pass "-o symlink: link kept, target written"

# --- standard output, by '-' and through a link to /proc/self/fd/1 ---
snap -o -
expect_rc 0 "pfmtop -o -" "$out" "$err"
[ "$(snaps_in "$out")" -eq 2 ] || fail "-o - did not print the two snapshots on standard output" "$out"
ln -s /proc/self/fd/1 "$d/stdout"
snap -o "$d/stdout"
expect_rc 0 "pfmtop -o LINK_TO_STDOUT" "$out" "$err"
[ "$(snaps_in "$out")" -eq 2 ] || fail "-o LINK_TO_STDOUT did not print on standard output" "$out"
[ -L "$d/stdout" ] || fail "-o LINK_TO_STDOUT replaced the link"
pass "-o - and -o LINK_TO_STDOUT print on standard output"

# --- a FIFO with a reader gets the snapshots; one without is refused ---
# The reader opens the FIFO first (non-blocking, so it need not wait for a
# writer) and says so; then it reads until the writer closes (30 s at most).
mkfifo "$d/fifo"
python3 - "$d/fifo" "$TMP/fifo.out" "$TMP/fifo.ready" <<'EOF' &
import os, select, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
open(sys.argv[3], "w").close()
p = select.poll()
p.register(fd, select.POLLIN)
seen, end = False, time.time() + 30
with open(sys.argv[2], "wb") as out:
    while time.time() < end:
        p.poll(1000)
        try:
            b = os.read(fd, 65536)
        except BlockingIOError:
            continue
        if b:
            out.write(b)
            seen = True
        elif seen:
            break
EOF
reader=$!
cleanup_add "kill $reader"
reading() { [ -e "$TMP/fifo.ready" ]; }
wait_for 20 reading || fail "the FIFO's reader did not start"
snap -o "$d/fifo"
expect_rc 0 "pfmtop -o FIFO (with a reader)" "$out" "$err"
wait "$reader"
[ "$(snaps_in "$TMP/fifo.out")" -eq 2 ] || fail "-o FIFO: its reader did not get the two snapshots" "$TMP/fifo.out"
[ -p "$d/fifo" ] || fail "-o FIFO replaced the FIFO"
pass "-o FIFO with a reader: the snapshot went through"

# refused NAME WHAT ARGS...: pfmtop -o ... exits 2 with one line and the
# command never runs.
refused() {
	local what=$1
	shift
	rm -f "$marker"
	run "$out" "$err" timeout 20 "$@"
	[ "$RC" -ne 124 ] || fail "$what: pfmtop hung (killed after 20 s)" "$err"
	expect_rc 2 "$what" "$out" "$err"
	[ "$(wc -l <"$err")" -eq 1 ] || fail "$what: expected one line on stderr" "$err"
	[ ! -e "$marker" ] || fail "$what: the command ran (the output should be refused before it starts)" "$err"
	pass "$what: exit 2, command not run: $(cat "$err")"
}
mkdir "$d/adir"
refused "-o DIRECTORY" "$PFMTOP" -b -n 1 -d 0.1 -o "$d/adir" -- touch "$marker"
ln -s nowhere "$d/dangling"
refused "-o DANGLING_SYMLINK" "$PFMTOP" -b -n 1 -d 0.1 -o "$d/dangling" -- touch "$marker"
[ ! -e "$d/nowhere" ] || fail "-o DANGLING_SYMLINK created the file it points at"
mkfifo "$d/noreader"
refused "-o FIFO_WITHOUT_READER" "$PFMTOP" -b -n 1 -d 0.1 -o "$d/noreader" -- touch "$marker"
refused "-o MISSING_DIR/FILE" "$PFMTOP" -b -n 1 -d 0.1 -o "$d/missing/x" -- touch "$marker"

# As an ordinary user: a read-only file, a directory not theirs.
mkdir -m 755 "$TMP/bin"
install -m 755 "$PFMTOP" "$TMP/bin/pfmtop"
chmod 777 "$TMP"
echo ro >"$d/readonly"
chmod 444 "$d/readonly"
chown nobody "$d/readonly"
as_nobody=(setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups)
refused "-o READ_ONLY_FILE (as nobody)" "${as_nobody[@]}" "$TMP/bin/pfmtop" -b -n 1 -d 0.1 -o "$d/readonly" -- touch "$marker"
[ "$(cat "$d/readonly")" = ro ] || fail "-o READ_ONLY_FILE changed it" "$d/readonly"
refused "-o FILE_IN_ROOTS_DIR (as nobody)" "${as_nobody[@]}" "$TMP/bin/pfmtop" -b -n 1 -d 0.1 -o "$d/new.txt" -- touch "$marker"
[ ! -e "$d/new.txt" ] || fail "-o FILE_IN_ROOTS_DIR created it"

# --- another user's links and files: root writes through none of them ---
# nobody, in a world-writable directory (sticky like /tmp, and one that is
# not), plants links to root's files and pre-creates a 0666 file.
echo victim >"$d/victim.txt"
echo record >"$d/victim.pfr"
for mode in 1777 0777; do
	pub=$TMP/pub$mode
	mkdir -m "$mode" "$pub"
	"${as_nobody[@]}" ln -s "$d/victim.txt" "$pub/out.txt"
	"${as_nobody[@]}" ln -s "$d/victim.pfr" "$pub/rec.pfr"
	"${as_nobody[@]}" sh -c "umask 0; : >'$pub/p-$(date +%F).pfr'"
	refused "-o NOBODYS_LINK --force (dir $mode)" "$PFMTOP" -b -n 1 -d 0.1 -o "$pub/out.txt" --force -- touch "$marker"
	refused "-o NOBODYS_LINK --append (dir $mode)" "$PFMTOP" -b -n 1 -d 0.1 -o "$pub/out.txt" --append -- touch "$marker"
	refused "--record NOBODYS_LINK --append (dir $mode)" "$PFMTOP" -b -n 1 -d 0.1 --record "$pub/rec.pfr" --append -- touch "$marker"
	grep -q "^pfmtop: --record $pub/rec.pfr: " "$err" || fail "--record's error is not labelled --record" "$err"
	refused "--record DATED_NAME_NOBODY_MADE (dir $mode)" "$PFMTOP" -b -n 1 -d 0.1 --record "$pub/p-%F.pfr" -- touch "$marker"
	[ "$(cat "$d/victim.txt")" = victim ] || fail "a link of nobody's led root's pfmtop to write root's file" "$d/victim.txt"
	[ "$(cat "$d/victim.pfr")" = record ] || fail "a link of nobody's led root's --record to append to root's recording"
	[ ! -s "$pub/p-$(date +%F).pfr" ] || fail "root's --record appended to a file nobody made"
	# Root's own link in a directory that others can change: refused too,
	# unless the directory is sticky (then only root may replace it).
	ln -s "$d/victim.txt" "$pub/mine.txt"
	if [ "$mode" = 0777 ]; then
		refused "-o ROOTS_LINK_IN_NON_STICKY_SHARED_DIR" "$PFMTOP" -b -n 1 -d 0.1 -o "$pub/mine.txt" --append -- touch "$marker"
	fi
done
echo old >"$d/theirs"
chmod 600 "$d/theirs"
chown nobody "$d/theirs"
before=$(stat -c '%i %U %a %s' "$d/theirs")
refused "-o OTHER_USERS_FILE --force" "$PFMTOP" -b -n 1 -d 0.1 -o "$d/theirs" --force -- touch "$marker"
[ "$(stat -c '%i %U %a %s' "$d/theirs")" = "$before" ] || fail "-o OTHER_USERS_FILE changed it"
pass "no write through another user's link or into another user's file"
