#!/bin/bash
# Files that cannot be planted or hang pfmtop: a share directory next to the
# binary that another user owns, or anyone may write, is skipped with one
# warning and root counts the built-in default; a malformed preset file
# nobody selects is a warning, not a failure, while --check-presets names it
# and exits 2; a FIFO given as --preset, --check-preset or --theme is one
# line and exit 2 at once. As root and as nobody.
. "$(dirname "$0")/lib.sh"

need_root
need_cmd setpriv
id nobody >/dev/null 2>&1 || skip "no user nobody"
group=$(id -gn nobody)
nobody_uid=$(id -u nobody)
out=$TMP/out err=$TMP/err

# nobody must be able to count something: perf_event_paranoid at most 2.
paranoid_at_most 2
# No preset or theme of the user running the suite.
export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/home/cfg
mkdir -p "$HOME"

in_tmp() { (cd "$TMP" && exec "$@"); }
as_nobody() { (cd "$TMP" && exec setpriv --reuid=nobody --regid="$group" --clear-groups "$@"); }
as_nobody true || skip "setpriv cannot switch to nobody here"

# The built-in default counts cycles..page-faults; the planted one only
# minor-faults, so the events of a snapshot say whose default ran.
planted_default() {
	mkdir -p "$1"
	printf '[preset default]\nevents = minor-faults\n' >"$1/default.ini"
	chmod 644 "$1/default.ini"
}

# run_as WHO OUT ERR CMD...: run CMD in $TMP as root or nobody (10 s at most).
run_as() {
	local who=$1 o=$2 e=$3
	shift 3
	if [ "$who" = root ]; then
		run "$o" "$e" in_tmp timeout 10 "$@"
	else
		run "$o" "$e" as_nobody timeout 10 "$@"
	fi
	[ "$RC" -ne 124 ] || fail "$*: still running after 10 s" "$o" "$e"
}

# --- a binary at X/bin/pfmtop reads X/share/pfmtop/presets ---
X=$TMP/X
mkdir -p "$X/bin"
install -m 755 "$PFMTOP" "$X/bin/pfmtop"
share=$X/share/pfmtop/presets
planted_default "$share"
chmod 755 "$X" "$X/share" "$X/share/pfmtop" "$share"

events_of() { json "$1" "','.join(e['name'] for e in last['events'])"; }

# Trusted (root's, 0755): read. This shows the check below can see a plant.
run_as root "$out" "$err" "$X/bin/pfmtop" -b -n 1 -d 0.1 --no-hotspots --format json
expect_rc 0 "root, share dir root's" "$out" "$err"
[ "$(events_of "$out")" = minor-faults ] || fail "the share dir's default was not used when it is root's" "$out" "$err"

for plant in owner mode file-owner file-mode; do
	case $plant in
	owner) chown -R nobody "$share" ;;
	mode) chmod 0777 "$share" ;;
	file-owner) chown nobody "$share/default.ini" ;;
	file-mode) chmod 0666 "$share/default.ini" ;;
	esac
	run_as root "$out" "$err" "$X/bin/pfmtop" -b -n 1 -d 0.1 --no-hotspots --format json
	expect_rc 0 "root, share dir planted ($plant)" "$out" "$err"
	evs=$(events_of "$out")
	case ",$evs," in
	*,task-clock,*,page-faults,*) ;;
	*) fail "planted ($plant): root counted '$evs', not the built-in default" "$out" "$err" ;;
	esac
	[ "$(wc -l <"$err")" -eq 1 ] || fail "planted ($plant): expected one warning line" "$err"
	case $plant in
	owner) grep -qF "pfmtop: $share: owned by uid $nobody_uid, not by root" "$err" ;;
	mode) grep -qF "pfmtop: $share: writable by others (mode 0777)" "$err" ;;
	file-owner) grep -qF "pfmtop: $share/default.ini: owned by uid $nobody_uid, not by root" "$err" ;;
	file-mode) grep -qF "pfmtop: $share/default.ini: writable by others (mode 0666)" "$err" ;;
	esac || fail "planted ($plant): the warning should name the path and why" "$err"
	info "$plant: $(cat "$err")"
	chown -R root:root "$share"
	chmod 755 "$share"
	chmod 644 "$share/default.ini"
done
pass "root: a share dir or file of nobody's, or writable by all, is skipped with a warning"

# As nobody: a directory of root's that anyone may write is not nobody's
# either; one of another user (daemon) neither.
chmod 0777 "$share"
run_as nobody "$out" "$err" "$X/bin/pfmtop" -b -n 1 -d 0.1 --no-hotspots --format json
expect_rc 0 "nobody, share dir mode 0777" "$out" "$err"
[ "$(events_of "$out")" != minor-faults ] || fail "nobody counted the planted default" "$out" "$err"
grep -qF "$share: writable by others (mode 0777)" "$err" || fail "nobody: no warning for the 0777 dir" "$err"
chmod 755 "$share"
chown -R daemon "$share"
run_as nobody "$out" "$err" "$X/bin/pfmtop" -b -n 1 -d 0.1 --no-hotspots --format json
expect_rc 0 "nobody, share dir of daemon" "$out" "$err"
[ "$(events_of "$out")" != minor-faults ] || fail "nobody counted daemon's default" "$out" "$err"
grep -qF "$share: owned by uid $(id -u daemon), not by root or you (uid $nobody_uid)" "$err" ||
	fail "nobody: no warning for daemon's dir" "$err"
chown -R root "$share"
pass "nobody: a share dir of another user, or writable by all, is skipped with a warning"
rm -rf "$X/share"

# --- a malformed preset file nobody selects ---
for who in root nobody; do
	home=$TMP/home-$who
	mkdir -p "$home/cfg/pfmtop/presets.d"
	d=$home/cfg/pfmtop/presets.d
	printf '[preset mine]\nevents = task-clock\n' >"$d/10-good.ini"
	printf '[preset other]\nevents = task-clock\nbogus = 1\n' >"$d/20-bad.ini"
	chmod 644 "$d"/*.ini
	[ "$who" = root ] || chown -R nobody "$home"
	env=(env HOME="$home" XDG_CONFIG_HOME="$home/cfg")

	run_as "$who" "$out" "$err" "${env[@]}" "$X/bin/pfmtop" -b -n 1 -d 0.1 --no-hotspots
	expect_rc 0 "$who: -b with a malformed unselected file" "$out" "$err"
	[ "$(wc -l <"$err")" -eq 1 ] && grep -qF "pfmtop: $d/20-bad.ini:3:1: unknown key 'bogus'" "$err" ||
		fail "$who: expected one warning naming 20-bad.ini:3:1 and the cause" "$err"
	run_as "$who" "$out" "$err" "${env[@]}" "$X/bin/pfmtop" --probe
	expect_rc 0 "$who: --probe with a malformed unselected file" "$out" "$err"
	run_as "$who" "$out" "$err" "${env[@]}" "$X/bin/pfmtop" -b -n 1 -d 0.1 --no-hotspots --preset mine
	expect_rc 0 "$who: --preset mine (another file) with a malformed file" "$out" "$err"
	run_as "$who" "$out" "$err" "${env[@]}" "$X/bin/pfmtop" --check-presets
	expect_rc 2 "$who: --check-presets with a malformed file" "$out" "$err"
	grep -qF "$d/20-bad.ini:3:1: unknown key 'bogus'" "$out" ||
		fail "$who: --check-presets does not name 20-bad.ini:3:1" "$out" "$err"
	grep -qE "^user +$d/10-good.ini: OK$" "$out" || fail "$who: --check-presets does not list 10-good.ini as OK" "$out"
	grep -qE '^built-in +builtin:default.ini: OK$' "$out" || fail "$who: --check-presets does not list the built-ins" "$out"
	# selected: its error stops the run
	run_as "$who" "$out" "$err" "${env[@]}" "$X/bin/pfmtop" -b -n 1 -d 0.1 --no-hotspots --preset other
	expect_rc 2 "$who: --preset other (the malformed file's)" "$out" "$err"
	grep -qF "$d/20-bad.ini:3:1: unknown key 'bogus'" "$err" || fail "$who: the selected preset's error is not shown" "$err"
	[ ! -s "$out" ] || fail "$who: a snapshot was printed for a broken selected preset" "$out"
	rm "$d/20-bad.ini"
	run_as "$who" "$out" "$err" "${env[@]}" "$X/bin/pfmtop" --check-presets
	expect_rc 0 "$who: --check-presets, all good" "$out" "$err"
done
pass "a malformed unselected file: warning, exit 0; --check-presets names it and exits 2; selected, exit 2"

# --- FIFOs: one line, exit 2, at once ---
mkfifo "$TMP/f.ini"
chmod 644 "$TMP/f.ini"
for who in root nobody; do
	for args in "-b -n 1 --preset ./f.ini" "--check-preset ./f.ini" "--theme ./f.ini"; do
		# shellcheck disable=SC2086 # args are words
		run_as "$who" "$out" "$err" "$X/bin/pfmtop" $args
		expect_rc 2 "$who: pfmtop $args" "$out" "$err"
		[ "$(wc -l <"$err")" -eq 1 ] && grep -qxF "pfmtop: ./f.ini: not a regular file" "$err" ||
			fail "$who: pfmtop $args: expected 'pfmtop: ./f.ini: not a regular file'" "$err"
	done
done
if command -v script >/dev/null 2>&1; then
	# on a terminal too: refused before the viewer takes the screen
	run "$out" "$err" timeout 10 script -qec "cd '$TMP' && '$X/bin/pfmtop' --theme ./f.ini" /dev/null
	[ "$RC" -ne 124 ] || fail "--theme FIFO on a terminal: still running after 10 s" "$out"
	expect_rc 2 "--theme FIFO on a terminal" "$out"
	grep -qF "pfmtop: ./f.ini: not a regular file" "$out" || fail "--theme FIFO on a terminal: no message" "$out"
fi
pass "a FIFO as --preset, --check-preset or --theme: one line, exit 2, no hang"
