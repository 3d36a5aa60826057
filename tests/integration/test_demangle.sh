#!/bin/bash
# Hotspots show C++ names as people write them (perf top's default), and as
# the binary has them with --no-demangle.
. "$(dirname "$0")/lib.sh"
need_cmd g++

cat >"$TMP/hot.cc" <<'CC'
#include <chrono>
#include <vector>
namespace work {
template <typename T> struct Box {
	__attribute__((noinline)) static T spin(std::vector<T> &v, int rounds)
	{
		T s = 0;
		for (int r = 0; r < rounds; r++)
			for (auto &x : v)
				s += x * (T)r;
		return s;
	}
};
} // namespace work
int main()
{
	std::vector<long> v(4096, 3);
	auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
	volatile long sink = 0;
	while (std::chrono::steady_clock::now() < end)
		sink = sink + work::Box<long>::spin(v, 50);
	return 0;
}
CC
g++ -O2 -o "$TMP/hot" "$TMP/hot.cc"
out=$TMP/out err=$TMP/err
rows() { json "$out" "'\\n'.join('%.1f %s' % (h['share'], h['symbol']) for h in final['hotspots']['rows'])"; }

run "$out" "$err" timeout 60 "$PFMTOP" -b --format json --hot 5 -e task-clock -- "$TMP/hot"
expect_rc 0 "pfmtop -- hot (C++)" "$out" "$err"
rows >"$TMP/rows"
# share NAME: the share of the row named NAME (0 if none)
share() { awk -v n="$1" '{ s = $1; sub(/^[^ ]* /, ""); if ($0 == n) { print s; f = 1; exit } } END { if (!f) print 0 }' "$TMP/rows"; }
want='work::Box<long>::spin(std::vector<long, std::allocator<long> >&, int)'
got=$(share "$want")
check "$got >= 20" "no row '$want' with most of the samples" "$TMP/rows"
grep -q '_ZN' "$TMP/rows" && fail "a mangled name is left" "$TMP/rows"
pass "demangled: $want at $got%"

run "$out" "$err" timeout 60 "$PFMTOP" -b --format json --hot 5 -e task-clock --no-demangle -- "$TMP/hot"
expect_rc 0 "pfmtop --no-demangle -- hot" "$out" "$err"
rows >"$TMP/rows"
got=$(share _ZN4work3BoxIlE4spinERSt6vectorIlSaIlEEi)
check "$got >= 20" "--no-demangle: no row with the mangled name and most of the samples" "$TMP/rows"
pass "--no-demangle: _ZN4work3BoxIlE4spinERSt6vectorIlSaIlEEi at $got%"

# 80 columns: a long name loses its middle; --wide keeps it whole
run "$out" "$err" timeout 60 "$PFMTOP" -b --hot 5 -e task-clock -- "$TMP/hot"
grep -q ' work::Box<long>' "$out" || fail "text: no demangled name" "$out"
run "$out" "$err" timeout 60 "$PFMTOP" -b --hot 5 -e task-clock --wide -- "$TMP/hot"
grep -q 'work::Box<long>::spin' "$out" || fail "text --wide: no demangled name" "$out"
pass "text shows it too$(grep -o ' work::Box<long>::spin[^ ]*' "$out" | head -1)"
