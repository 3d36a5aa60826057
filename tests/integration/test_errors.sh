#!/bin/bash
# User errors: ONE line on stderr starting with "pfmtop:", exit 2 (usage),
# nothing on stdout, no crash, no hang.
. "$(dirname "$0")/lib.sh"

out=$TMP/out err=$TMP/err
nerr=0

# usage_error WORD ARGS...: pfmtop ARGS must fail as a usage error whose one
# line of stderr contains WORD (the thing the user got wrong).
usage_error() {
	local word=$1
	shift
	run "$out" "$err" timeout 10 "$PFMTOP" "$@" </dev/null
	local what="pfmtop $*"
	[ "$RC" -ne 124 ] || fail "$what: still running after 10 s instead of rejecting the arguments" "$out" "$err"
	[ "$RC" -lt 128 ] || fail "$what: died by signal $((RC - 128))" "$out" "$err"
	expect_rc 2 "$what" "$out" "$err"
	# one line, or for an event list one line, the list and a caret under the
	# part refused (^, or ^~~~ under a longer part)
	[ "$(wc -l <"$err")" -eq 1 ] || { [ "$(wc -l <"$err")" -eq 3 ] && sed -n 3p "$err" | grep -qE '^ +\^~*$'; } ||
		fail "$what: stderr should be one line (or a line, the list and a caret)" "$err"
	grep -q '^pfmtop: ' "$err" || fail "$what: stderr does not start with 'pfmtop: '" "$err"
	grep -qF -- "$word" "$err" || fail "$what: the message does not mention '$word'" "$err"
	[ ! -s "$out" ] || fail "$what: printed on stdout as well" "$out"
	nerr=$((nerr + 1))
	info "$what -> $(cat "$err")"
}

usage_error "--bogus" --bogus
usage_error "-x" -x
usage_error "abc" -b -d abc
usage_error "-d" -b -d 0
usage_error "-d" -b -d -1
usage_error "-d" -b -d
usage_error "-n" -b -n 0
usage_error "abc" -b -n abc
usage_error "abc" -b -p abc
usage_error "-p" -b -p 1,abc
usage_error "'x'" -b -C x
usage_error "xml" -b --format xml
usage_error "bogus_event" -b -e bogus_event
usage_error "{" -b -e '{cycles'
usage_error "}" -b -e 'cycles}'
usage_error "64 bits" -b -e "r1$(printf %040x 7)"
usage_error "--sort" -b --sort ""
# an event refused inside a list: the caret under it, the whole name
list='page-faults,{cpu-clock,nosuch:foo}' before='page-faults,{cpu-clock,' part='nosuch:foo'
# a tracepoint is looked up in tracefs (as root, mounted as other tests do);
# where it cannot be, the message says so instead
[ "$(id -u)" -ne 0 ] || mountpoint -q /sys/kernel/tracing ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
if mountpoint -q /sys/kernel/tracing; then
	usage_error "unknown event 'nosuch:foo'" -b -e "$list"
else
	usage_error "tracefs is not mounted" -b -e "$list"
fi
tildes=${part//?/\~}
printf -v caret '  %*s^%s' "${#before}" '' "${tildes:1}"
[ "$(sed -n 2p "$err")" = "  $list" ] && [ "$(sed -n 3p "$err")" = "$caret" ] ||
	fail "-e '$list': no caret under '$part' (column $((${#before} + 1)))" "$err"
# and a modifier refused within an event: the caret under the modifier
list='task-clock,cpu-clock:uq' before='task-clock,cpu-clock:' part='uq'
usage_error "unknown modifier 'uq'" -b -e "$list"
printf -v caret '  %*s^~' "${#before}" ''
[ "$(sed -n 3p "$err")" = "$caret" ] || fail "-e '$list': no caret under '$part'" "$err"
usage_error "stray" -b stray
usage_error "-p" -b -p 1 -- true
usage_error "-C" -b -C 0 -p 1
usage_error "-N" -b -N -1

# The interactive view needs a terminal.
set +e
"$PFMTOP" </dev/null 2>"$err" | cat >"$out"
RC=${PIPESTATUS[0]}
set -e
expect_rc 2 "pfmtop | cat (no -b, stdout is a pipe)" "$out" "$err"
[ "$(wc -l <"$err")" -eq 1 ] && grep -q '^pfmtop: .*terminal' "$err" ||
	fail "pfmtop | cat: expected one 'pfmtop: ... terminal ...' line" "$err"
[ ! -s "$out" ] || fail "pfmtop | cat: wrote to the pipe" "$out"
info "pfmtop | cat -> $(cat "$err")"
nerr=$((nerr + 1))

# -o without -b: from a terminal the message must be about -o (script gives
# pfmtop a pty); without one it must still be a one-line usage error.
usage_error "-b" -o "$TMP/never.txt"
[ ! -e "$TMP/never.txt" ] || fail "-o without -b created the file"
if command -v script >/dev/null 2>&1; then
	set +e
	script -qec "'$PFMTOP' -o '$TMP/never.txt'" /dev/null </dev/null >"$out" 2>&1
	RC=$?
	set -e
	tr -d '\r' <"$out" >"$err"
	expect_rc 2 "pfmtop -o FILE (on a terminal, no -b)" "$err"
	[ "$(grep -c . "$err")" -eq 1 ] && grep -q '^pfmtop: .*-o.*-b' "$err" ||
		fail "pfmtop -o FILE on a terminal: expected one 'pfmtop: ... -o ... -b' line" "$err"
	[ ! -e "$TMP/never.txt" ] || fail "-o without -b created the file"
	info "pfmtop -o FILE (tty) -> $(cat "$err")"
	nerr=$((nerr + 1))
fi

# A CPU that is not online: the kernel can only say EINVAL/ENODEV for it, so
# pfmtop must catch it up front rather than run with every counter failing.
ncpu=$(nproc --all)
usage_error "$((ncpu + 97))" -b -n 1 -d 0.1 -e task-clock -C "$((ncpu + 97))"

# A long path is cut in its middle ("..."): the reason after it stays whole.
long=/$(printf 'a%.0s' $(seq 1 600)) # a name longer than NAME_MAX
for args in "-o $long/x" "--record $long/x" "--format openmetrics -o $long/x" \
	"--command-output $long/x -- true"; do
	# shellcheck disable=SC2086 # the words of args
	usage_error "File name too long" -b -n 1 -e task-clock $args
	grep -qF '...' "$err" && [ "$(wc -c <"$err")" -lt 600 ] ||
		fail "a 4000-byte path: not cut in its middle" "$err"
done
usage_error "cannot open preset file: File name too long" -b -n 1 --preset "$long/x.ini"
grep -qF '...' "$err" || fail "--preset with a long path: not cut in its middle" "$err"
usage_error "File name too long" --convert "$long"
usage_error "File name too long" --replay "$long" -b

# --web-config naming what is not a file: a usage error, whatever it is
mkdir -m 700 "$TMP/wc"
for bad in /tmp /dev/zero /etc/passwd/x; do
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$bad" "$bad" >"$TMP/wc/web.yml"
	chmod 600 "$TMP/wc/web.yml"
	usage_error "cert_file $bad" -b -n 1 -e task-clock --listen 127.0.0.1:1 --web-config "$TMP/wc/web.yml"
done
usage_error "is not a regular file" -b -n 1 -e task-clock --listen 127.0.0.1:1 --web-config /tmp
usage_error "cannot be opened: File name too long" -b -n 1 -e task-clock --listen 127.0.0.1:1 --web-config "$long"
grep -qF '...' "$err" || fail "--web-config with a long path: not cut in its middle" "$err"

# --convert and --replay read regular files only: a FIFO whose writer never
# writes is refused at once, not waited on (timeout: a hang fails)
mkfifo "$TMP/fifo"
exec {wfd}<>"$TMP/fifo" # a writer that never writes
usage_error "not a regular file (a FIFO); give a recording file" --convert "$TMP/fifo"
usage_error "not a regular file (a FIFO)" --replay "$TMP/fifo" -b
usage_error "not a regular file (a directory)" --convert "$TMP"
usage_error "not a regular file (a character device)" --replay /dev/null -b
if command -v script >/dev/null 2>&1; then
	set +e
	timeout 10 script -qec "'$PFMTOP' --replay '$TMP/fifo'" /dev/null </dev/null >"$out" 2>&1
	RC=$?
	set -e
	tr -d '\r' <"$out" >"$err"
	[ "$RC" -ne 124 ] || fail "--replay FIFO (on a terminal): still waiting after 10 s" "$err"
	expect_rc 2 "--replay FIFO (on a terminal)" "$err"
	[ "$(grep -c . "$err")" -eq 1 ] && grep -q '^pfmtop: --replay .*fifo: not a regular file (a FIFO)' "$err" ||
		fail "--replay FIFO on a terminal: expected one 'not a regular file (a FIFO)' line" "$err"
	nerr=$((nerr + 1))
fi
exec {wfd}>&-

# an option without its value names the value, as --help does
usage_error "option --annotate needs a FUNCTION argument" -b --annotate
usage_error "option --preset needs a NAME|FILE argument" --preset
usage_error "option --listen needs an ADDR:PORT argument" --listen
# an unknown theme, before any screen: the themes there are
usage_error "--theme nosuch: no such theme; there are default, high-contrast, light, mono" --theme nosuch

# a glob with a '[' that nothing closes
usage_error "an invalid pattern" --list-events '[[[['
usage_error "'[]x'" --list-events '[]x'
run "$out" "$err" "$PFMTOP" --list-events 'task-[ck]*'
expect_rc 0 "--list-events 'task-[ck]*'" "$out" "$err"
grep -q '^  task-clock ' "$out" || fail "--list-events 'task-[ck]*' does not list task-clock" "$out"

pass "$nerr user errors: one 'pfmtop:' line each, exit 2, nothing on stdout"
