#!/bin/bash
# The EXIT STATUS table of pfmtop(1) is what the program does: each row of
# the table (.TP, then the status) is provoked by at least one case here and
# the status checked. A row this machine cannot provoke is skipped with the
# reason printed; a row the test has no case for fails it, so a new row
# needs a new case.
. "$(dirname "$0")/lib.sh"

page=$PFMTOP_SRCDIR/packaging/man/pfmtop.1
out=$TMP/out err=$TMP/err
[ -f "$page" ] || fail "$page is missing"

# The rows: the line after each .TP of the section, font requests and
# spaces removed ("0", "2", "128+N").
sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$page" |
	awk '/^\.TP/ { getline; sub(/^\.B[IR]* */, ""); gsub(/[ "]/, ""); print }' >"$TMP/rows"
[ "$(wc -l <"$TMP/rows")" -ge 4 ] || fail "found too few rows in EXIT STATUS" "$TMP/rows"
info "rows of EXIT STATUS: $(tr '\n' ' ' <"$TMP/rows")"

# case WANT WHAT CMD...: CMD must exit WANT.
ncase=0
case_rc() {
	local want=$1 what=$2
	shift 2
	run "$out" "$err" timeout 20 "$@" </dev/null
	[ "$RC" -ne 124 ] || fail "$what: still running after 20 s" "$out" "$err"
	expect_rc "$want" "$what" "$out" "$err"
	info "$want: $what -> $(head -c 200 "$err" | head -1)"
	ncase=$((ncase + 1))
}
# on a terminal (script(1)), TERM as given
case_tty() {
	local want=$1 what=$2 term=$3
	shift 3
	set +e
	TERM=$term timeout 20 script -qec "$*" /dev/null </dev/null >"$out" 2>&1
	RC=$?
	set -e
	expect_rc "$want" "$what" "$out"
	info "$want: $what -> $(tr -d '\r' <"$out" | head -1)"
	ncase=$((ncase + 1))
}

row_0() {
	case_rc 0 "-b -n 1 -e task-clock" "$PFMTOP" -b -n 1 -e task-clock
	case_rc 0 "--check-preset memory (software events only)" "$PFMTOP" --check-preset memory
}

row_1() {
	case_rc 1 "--list-events matching nothing" "$PFMTOP" --list-events 'zz-no-such-event*'
	# a valid preset with an event of a PMU that is not here: a gap
	mkdir -m 755 "$TMP/p"
	printf '[preset gap]\nevents = task-clock, nosuchpmu/foo/\n' >"$TMP/p/gap.ini"
	chmod 644 "$TMP/p/gap.ini"
	case_rc 1 "--check-preset with an event of an absent PMU" "$PFMTOP" --check-preset "$TMP/p/gap.ini"
	grep -q 'usable, with gaps' "$out" || fail "the gap preset is not 'usable, with gaps'" "$out"
}

row_2() {
	case_rc 2 "an unknown option" "$PFMTOP" --no-such-option
	case_rc 2 "--annotate without its FUNCTION" "$PFMTOP" -b --annotate
	case_rc 2 "-e nosuchevent" "$PFMTOP" -b -n 1 -e nosuchevent
	printf '[preset typo]\nevents = task-clock, pgae-faults\n' >"$TMP/p/typo.ini"
	chmod 644 "$TMP/p/typo.ini"
	case_rc 2 "--check-preset with a typo in an event" "$PFMTOP" --check-preset "$TMP/p/typo.ini"
	case_rc 2 "a run of a preset with a typo in an event" "$PFMTOP" -b -n 1 --preset "$TMP/p/typo.ini"
	case_rc 2 "--theme nosuch" "$PFMTOP" --theme nosuch
	case_rc 2 "--view nosuch" "$PFMTOP" --view nosuch
	case_rc 2 "the view without a terminal" "$PFMTOP"
	if command -v script >/dev/null 2>&1; then
		case_tty 2 "the view with TERM=dumb" dumb "'$PFMTOP'"
		case_tty 2 "the view with an unknown TERM" no-such-terminal "'$PFMTOP'"
	else
		echo "skip: row 2: TERM=dumb: no script(1) to give a terminal"
	fi
	# perf_event_paranoid 3, seen by an unprivileged user: a bind mount in
	# a mount namespace of its own shows 3 to pfmtop only
	local why=
	[ "$(id -u)" -eq 0 ] || why="needs root (a mount namespace)"
	[ -n "$why" ] || command -v unshare >/dev/null 2>&1 || why="no unshare"
	[ -n "$why" ] || id nobody >/dev/null 2>&1 || why="no user nobody"
	if [ -z "$why" ]; then
		nobody_setup
		echo 3 >"$TMP/paranoid3"
		chmod 644 "$TMP/paranoid3"
		if unshare -m true 2>/dev/null; then
			case_rc 2 "perf_event_paranoid 3, unprivileged" unshare -m sh -c \
				"mount --bind '$TMP/paranoid3' /proc/sys/kernel/perf_event_paranoid &&
				 cd '$TMP/bin' && exec setpriv --reuid=nobody --regid='$group' --clear-groups ./pfmtop -b -n 1 -e task-clock"
			grep -q 'perf_event_paranoid is 3' "$err" || fail "paranoid 3: not the reason given" "$err"
			# and PRIVILEGES says the same status for level 3
			sed -n '/^\.SH PRIVILEGES/,/^\.SH /p' "$page" | tr '\n' ' ' |
				grep -qE 'No perf use at all without privilege: pfmtop stops with a message and exit status 2 ' ||
				fail "PRIVILEGES does not give exit status 2 for perf_event_paranoid 3" "$page"
		else
			echo "skip: row 2: perf_event_paranoid 3: unshare -m refused here"
		fi
	else
		echo "skip: row 2: perf_event_paranoid 3: $why"
	fi
}

row_126() {
	printf '#!/bin/sh\nexit 0\n' >"$TMP/not-executable"
	chmod 644 "$TMP/not-executable"
	case_rc 126 "a command that is not executable" "$PFMTOP" -b -n 1 -e task-clock -- "$TMP/not-executable"
	case_rc 126 "a command that is a directory" "$PFMTOP" -b -n 1 -e task-clock -- "$TMP"
}

row_127() {
	case_rc 127 "a command that does not exist" "$PFMTOP" -b -n 1 -e task-clock -- pfmtop-no-such-command
	case_rc 127 "a command path that does not exist" "$PFMTOP" -b -n 1 -e task-clock -- "$TMP/no/such"
}

row_128_N() {
	case_rc 137 "a command killed by SIGKILL" "$PFMTOP" -b -e task-clock -- sh -c 'kill -9 $$'
	# without a command: SIGTERM after the first snapshot gives 143
	set +e
	"$PFMTOP" -b -d 0.2 -e task-clock >"$out" 2>"$err" </dev/null &
	local pid=$!
	set -e
	wait_for 10 grep -q '^pfmtop ' "$out" || fail "no first snapshot" "$out" "$err"
	kill -TERM "$pid"
	set +e
	wait "$pid"
	RC=$?
	set -e
	expect_rc 143 "SIGTERM without a command" "$out" "$err"
	info "143: SIGTERM without a command"
	ncase=$((ncase + 1))
}

while read -r row; do
	fn=row_$(printf '%s' "$row" | tr '+' '_')
	declare -F "$fn" >/dev/null || fail "EXIT STATUS has a row '$row' that this test has no case for (add $fn)" "$TMP/rows"
	"$fn"
done <"$TMP/rows"

pass "$ncase cases for the $(wc -l <"$TMP/rows") rows of EXIT STATUS"
