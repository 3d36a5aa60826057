#!/bin/bash
# The event syntax perf takes: about 60 event strings from perf-list(1) and
# perf's tests (tools/perf/tests/parse-events.c) go through pfmtop -e and
# perf stat -e on this machine, and both must accept or refuse each alike
# (an accepted event that this machine cannot count is accepted: both show
# it as not supported). For those that count here, on workloads with known
# counts, the counts must agree within 0.1%.
. "$(dirname "$0")/lib.sh"
need_root # tracepoints and breakpoints
need_cmd perf
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
	skip_host "tracefs cannot be mounted here"
[ -d /sys/kernel/tracing/events/syscalls ] || skip_host "no syscall tracepoints in this kernel"

sc=$(helper syscalls_n)
tp=$(helper touch_pages)
addr=$("$sc" --addr)
out=$TMP/out err=$TMP/err

# perf_accepts / pfmtop_accepts EVENT: 0 when the tool takes the event
# string, 1 when it refuses it: perf exits 129 on a syntax error or an
# unknown event (255 is an event it took but could not open, as a group led
# by cycles here), pfmtop exits 2.
perf_accepts() {
	perf stat -x, -e "$1" -o "$TMP/perf" -- true >/dev/null 2>"$TMP/perf.err"
	[ $? -ne 129 ]
}
pfmtop_accepts() {
	"$PFMTOP" -b -n 1 -d 0.1 --no-hotspots -e "$1" -- true >"$out" 2>"$err"
	local rc=$?
	[ "$rc" -eq 2 ] && return 1
	[ "$rc" -eq 0 ] || fail "pfmtop -e '$1' -- true exited $rc (neither accepted nor refused)" "$err"
}

accepted=(
	# perf-list(1): hardware, software and cache events
	cycles instructions cache-references cache-misses branch-misses cpu-cycles bus-cycles
	ref-cycles stalled-cycles-frontend stalled-cycles-backend cpu-clock task-clock
	page-faults faults minor-faults major-faults context-switches cs cpu-migrations
	migrations alignment-faults emulation-faults dummy bpf-output L1-dcache-load-misses
	LLC-loads dTLB-load-misses iTLB-load-misses branch-loads
	# modifiers
	cycles:u cycles:k instructions:uk cycles:pp cycles:ppp cpu-clock:p cpu-clock:uppp
	task-clock:u page-faults:k cpu-clock:h cpu-clock:H cpu-clock:G cpu-clock:I cpu-clock:D
	cpu-clock:S cpu-clock:W cpu-clock:e
	# groups and group modifiers
	'{cycles,instructions}' '{cycles,instructions}:u' '{cpu-clock,task-clock}:S'
	'{cpu-clock,page-faults}:D' 'task-clock,{cs,migrations}:k'
	# tracepoints and globs
	sched:sched_switch sched:sched_switch:u syscalls:sys_enter_getppid
	'syscalls:sys_enter_getp*' 'sched:sched_wak*'
	# hardware breakpoints
	mem:0x1000 mem:0x1000:w mem:0x1000/8:rw mem:0x1000:x
	# raw and sysfs PMUs, terms
	r003c r1a8 msr/tsc/ cpu-clock/period=100000/ cpu-clock/name=tick/
)
refused=(
	cpu-clock:x nosuchevent 'cycles,,instructions' 'mem:0x10:q' 'mem:zz'
	nosuchpmu/event=1/ sched:nosuch cpu-clock/bogus=1/ '{cycles,instructions}}'
	'page-faults,nosuch:foo' '{cpu-clock,bogus}' 'page-faults,cpu-clock:x'
	'task-clock,cpu-clock/period=1,bogus=1/' 'page-faults,mem:0x10:q'
)
# Where each refusal points: EVENT|WHAT IS WRITTEN BEFORE THE CARET|THE PART
# UNDER IT (^ under its first character, ~ under the others).
where=(
	'cpu-clock:x|cpu-clock:|x'
	'nosuchevent||nosuchevent'
	'cycles,,instructions|cycles,|,'
	'mem:0x10:q|mem:0x10:|q'
	'mem:zz|mem:|zz'
	'nosuchpmu/event=1/||nosuchpmu'
	'sched:nosuch||sched:nosuch'
	'cpu-clock/bogus=1/|cpu-clock/|bogus=1'
	'{cycles,instructions}}|{cycles,instructions}|}'
	'page-faults,nosuch:foo|page-faults,|nosuch:foo'
	'{cpu-clock,bogus}|{cpu-clock,|bogus'
	'page-faults,cpu-clock:x|page-faults,cpu-clock:|x'
	'task-clock,cpu-clock/period=1,bogus=1/|task-clock,cpu-clock/period=1,|bogus=1'
	'page-faults,mem:0x10:q|page-faults,mem:0x10:|q'
)
# Beyond perf 6.1's parser: a glob on the subsystem.
extended=('*:sched_switch' '*:sys_enter_getppid')
n=0
for e in "${accepted[@]}" "${refused[@]}"; do
	perf_accepts "$e" && want=accepts || want=refuses
	pfmtop_accepts "$e" && got=accepts || got=refuses
	[ "$got" = "$want" ] ||
		fail "'$e': perf $want it, pfmtop $got it: $(head -c 300 "$err") / perf: $(grep -m1 -v '^$' "$TMP/perf.err")" "$out"
	n=$((n + 1))
done
for e in "${accepted[@]}"; do
	perf_accepts "$e" || info "perf refuses '$e' here (pfmtop too)"
done
for e in "${refused[@]}"; do
	pfmtop_accepts "$e" && fail "'$e' should be refused"
	# the reason on one line, then the list and a caret under the part
	# refused (unless that part is the whole string: one line)
	lines=$(wc -l <"$err")
	[ "$lines" -eq 1 ] || { [ "$lines" -eq 3 ] && sed -n 3p "$err" | grep -qE '^ +\^~*$'; } ||
		fail "'$e': the refusal is not a line, or a line, the list and a caret" "$err"
done
tilde='~'
for w in "${where[@]}"; do
	IFS='|' read -r e before part <<<"$w"
	[ "${e#"$before$part"}" != "$e" ] || fail "the table's '$w' does not match its event"
	pfmtop_accepts "$e" && fail "'$e' should be refused"
	if [ -z "$before" ] && [ "$part" = "$e" ]; then
		[ "$(wc -l <"$err")" -eq 1 ] || fail "'$e': refused whole, yet not one line" "$err"
		continue
	fi
	tildes=${part//?/$tilde}
	printf -v caret '  %*s^%s' "${#before}" '' "${tildes:1}"
	[ "$(sed -n 2p "$err")" = "  $e" ] || fail "'$e': the second line of the refusal is not the list" "$err"
	[ "$(sed -n 3p "$err")" = "$caret" ] ||
		fail "'$e': the caret is not under '$part' (column $((${#before} + 1)))" "$err"
done
for e in "${extended[@]}"; do
	pfmtop_accepts "$e" || fail "pfmtop refuses '$e'" "$err"
	grep -qE '^(sched:sched_switch|syscalls:sys_enter_getppid) +ok' "$out" || fail "'$e' did not expand to its tracepoint" "$out"
done
pass "$n event strings: pfmtop and perf stat accept and refuse the same (and pfmtop takes ${extended[*]}); ${#where[@]} refusals point at the part refused"

# --- counts, where this machine counts them ---
# compare EVENTS CMD...: the final totals of pfmtop and perf stat, one
# "event pfmtop perf" line each
compare() {
	local events=$1
	shift
	"$PFMTOP" -b --format json --no-hotspots -e "$events" -- "$@" >"$out" 2>"$err" ||
		fail "pfmtop -e '$events' -- $* failed" "$err"
	perf stat -x, -e "$events" -o "$TMP/perf" -- "$@" >/dev/null 2>&1 || fail "perf stat -e '$events' failed"
	python3 - "$out" "$TMP/perf" <<'PY'
import json, sys
# the same events in the same order; perf's labels differ for a copy
final = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
perf = [l.strip().split(',') for l in open(sys.argv[2])]
perf = [float(f[0]) for f in perf if len(f) > 3 and f[0] and f[0][0].isdigit()]
mine = final['total']['counters']
names = [e['name'] for e in final['events']]
assert len(names) == len(perf), (names, perf)
for ev, v in zip(names, perf):
    print(ev, mine[ev]['value'], v)
PY
}
# perf stat prints 0 as "0.0" with -x: compared as a number. A breakpoint
# that perf stat counts 0 times on a workload that writes its address 12345
# times does not fire on this machine (a VM without debug registers): pfmtop
# must count 0 too, and the test says the comparison could not be made.
nobp=
check_counts() {
	local ev got want
	while read -r ev got want; do
		[ "$got" != None ] || fail "'$ev': pfmtop has no count where perf stat has $want" "$out"
		if awk -v w="$want" 'BEGIN { exit !(w + 0 == 0) }'; then
			case $ev in
			mem:*)
				[ "$got" = 0 ] || fail "'$ev': pfmtop $got, perf stat 0" "$out"
				info "$ev: perf stat and pfmtop count 0: hardware breakpoints do not fire on this machine"
				nobp=" (breakpoints do not fire here: 0 for both)"
				continue
				;;
			*) fail "'$ev': perf stat counted 0: the workload did not run" "$out" ;;
			esac
		fi
		within "$got" "$want" 0.1 || fail "'$ev': pfmtop $got, perf stat $want: more than 0.1% apart" "$out"
		info "$ev: pfmtop $got, perf stat $want"
	done
}
compare "syscalls:sys_enter_getppid,syscalls:sys_enter_getpp*,mem:$addr:w,mem:$addr/8:rw" "$sc" 12345 >"$TMP/c1"
[ "$(wc -l <"$TMP/c1")" -eq 4 ] || fail "expected 4 counted events" "$TMP/c1"
check_counts <"$TMP/c1"
compare "page-faults,faults:u,minor-faults,{page-faults,minor-faults}:u" "$tp" 20000 >"$TMP/c2"
check_counts <"$TMP/c2"
pass "counts agree with perf stat within 0.1%$nobp: $(cat "$TMP/c1" "$TMP/c2" | awk '{printf "%s %s/%s; ", $1, $2, $3}')"
