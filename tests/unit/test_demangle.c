/* Unit tests for demangle (C++ and Rust names) and cells_elide (long names cut in the middle). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cells.h"
#include "demangle.h"

#include <string.h>

static void expect(const char *mangled, const char *want)
{
	char buf[512];

	assert_string_equal(demangle(mangled, buf, sizeof(buf)), want);
}

static void test_names(void **state)
{
	expect("_ZN6__asanL29QuickCheckForUnpoisonedRegionEmm",
	       "__asan::QuickCheckForUnpoisonedRegion(unsigned long, unsigned long)");
	expect("_ZNSt6vectorIiSaIiEE9push_backERKi",
	       "std::vector<int, std::allocator<int> >::push_back(int const&)");
	/* a clone, and a symbol version kept after the name */
	expect("_Z3fooi.cold", "foo(int) [clone .cold]");
	expect("_ZNSo5flushEv@@GLIBCXX_3.4", "std::ostream::flush()@@GLIBCXX_3.4");
	/* Rust: legacy (the hash dropped, as perf shows it) and v0 */
	expect("_ZN4core3fmt5write17hb3d5a1ee2f48b8f2E", "core::fmt::write");
	expect("_RNvCs1234_7mycrate3foo", "mycrate::foo");
	/* not mangled, or not valid: as it is */
	expect("main", "main");
	expect("memcpy@GLIBC_2.14", "memcpy@GLIBC_2.14");
	expect("_Zgarbage", "_Zgarbage");
	expect("", "");
}

/* A name cut to fit keeps its end; a hostile one never overruns. */
static void test_cut(void **state)
{
	char big[8192], small[16];

	memset(big, 'x', sizeof(big) - 1);
	big[0] = '_';
	big[1] = 'Z';
	big[sizeof(big) - 1] = '\0';
	assert_string_equal(demangle(big, small, sizeof(small)), "_Zxxxxxxxxxxxxx");
	demangle("_ZNSt6vectorIiSaIiEE9push_backERKi", small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

static void test_elide(void **state)
{
	char buf[128];

	assert_string_equal(cells_elide("short", 10, buf, sizeof(buf)), "short");
	assert_string_equal(cells_elide("std::vector<int>::push_back(int const&)", 20, buf,
					sizeof(buf)),
			    "std::vec...t const&)");
	assert_int_equal(strlen(cells_elide("abcdefghijklmnopqrstuvwxyz", 11, buf, sizeof(buf))),
			 11);
	assert_string_equal(buf, "abcd...wxyz");
	/* characters, not bytes: UTF-8 is never cut */
	assert_string_equal(cells_elide("äöüäöüäöüäöü", 7, buf, sizeof(buf)), "äö...öü");
	assert_string_equal(cells_elide("abcdef", 3, buf, sizeof(buf)), "abc");
	assert_string_equal(cells_elide("abcdef", 0, buf, sizeof(buf)), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_elide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
