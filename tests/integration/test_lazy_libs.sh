#!/bin/bash
# capstone (annotate) and libmicrohttpd with GnuTLS (--listen) are opened
# only when a run needs them (src/dlbind.c): pfmtop does not link them, a
# run that neither annotates nor serves never maps them, and without them
# (PFMTOP_TEST_CAPSTONE / PFMTOP_TEST_MHD name a file that does not exist)
# the rest works while the feature says in one line what to install.
. "$(dirname "$0")/lib.sh"

out=$TMP/out err=$TMP/err
lazy='libcapstone|libmicrohttpd|libgnutls'

# --- not linked, not mapped unless needed ---
if command -v readelf >/dev/null 2>&1; then
	readelf -d "$PFMTOP" >"$out"
	! grep -qE "NEEDED.*($lazy)" "$out" || fail "$PFMTOP is linked with $(grep -oE "$lazy" "$out" | head -1)" "$out"
	pass "pfmtop links neither capstone nor libmicrohttpd nor GnuTLS"
fi
: >"$TMP/snap"
"$PFMTOP" -b -n 3 -d 0.5 >"$TMP/snap" 2>"$err" &
pid=$!
wait_for 10 grep -q . "$TMP/snap" || true
cat "/proc/$pid/maps" >"$out" 2>/dev/null || true
wait "$pid" || fail "pfmtop -b -n 3 failed" "$err"
grep -q / "$out" || fail "could not read the maps of pfmtop -b -n 3"
! grep -qE "$lazy" "$out" || fail "a plain run maps $(grep -oE "$lazy" "$out" | head -1)" "$out"
pass "a run that neither annotates nor serves maps none of them"

# --- annotate loads capstone, and without it says what to install ---
div=$(helper annot_div)
run "$out" "$err" "$PFMTOP" -b -d 0.5 --annotate divloop -- "$div" 1
expect_rc 0 "pfmtop -b --annotate divloop -- annot_div 1" "$out" "$err"
sed -n '/^ANNOTATE /,$p' "$out" >"$TMP/annot"
grep -qE '^[> ] *[0-9.]* +[0-9a-f]+: +div' "$TMP/annot" ||
	fail "--annotate divloop: no disassembled div instruction" "$TMP/annot"
pass "--annotate disassembles with capstone opened on demand"

PFMTOP_TEST_CAPSTONE=/nonexistent/libcapstone.so.4 \
	run "$out" "$err" "$PFMTOP" -b -d 0.5 --annotate divloop -- "$div" 1
expect_rc 0 "--annotate without capstone" "$out" "$err"
sed -n '/^ANNOTATE /,$p' "$out" >"$TMP/annot"
grep -qF 'libcapstone4 is not installed (apt-get install libcapstone4): annotate cannot disassemble' \
	"$TMP/annot" || fail "--annotate without capstone does not say to install it" "$TMP/annot"
grep -qE '^[> ] *[0-9.]* +[0-9a-f]+: +div' "$TMP/annot" && fail "--annotate without capstone shows code" "$TMP/annot"
grep -qE '^ +[0-9.]+% +' "$out" || fail "--annotate without capstone: no hotspot rows" "$out"
pass "without capstone: the hotspots, and one line saying what to install"

# --- --listen loads libmicrohttpd, and without it refuses in one line ---
# a free loopback port (no shell function in $(...): see lib.sh)
free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >"$TMP/port"
	port=$(cat "$TMP/port")
}
free_port
PFMTOP_TEST_MHD=/nonexistent/libmicrohttpd.so.12 \
	run "$out" "$err" timeout 10 "$PFMTOP" --listen "127.0.0.1:$port" -e page-faults -b -n 1 -d 0.1
expect_rc 1 "--listen without libmicrohttpd" "$out" "$err"
[ "$(wc -l <"$err")" -eq 1 ] || fail "--listen without libmicrohttpd: stderr is not one line" "$err"
grep -qF 'pfmtop: libmicrohttpd12 is not installed (apt-get install libmicrohttpd12): --listen cannot serve metrics' \
	"$err" || fail "--listen without libmicrohttpd does not say what to install" "$err"
pass "--listen without libmicrohttpd: one line, exit 1"

free_port
run "$out" "$err" timeout 20 "$PFMTOP" --listen "127.0.0.1:$port" -e page-faults -b -n 2 -d 0.5
expect_rc 0 "--listen 127.0.0.1:PORT -b -n 2" "$out" "$err"
grep -qE '^page-faults +' "$out" || fail "--listen -b -n 2: no page-faults row" "$out"
pass "--listen opens libmicrohttpd on demand"
