/* test_format: fixed-width numbers with K/M/G units and the narrow-screen column layout. */
#include "cells.h"
#include "format.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static const char *fmt(double v, int decimals, int width)
{
	static char buf[64];

	return cells_scaled(v, decimals, width, buf, sizeof(buf));
}

static void test_plain(void **state)
{
	assert_string_equal(fmt(0, 0, 7), "0");
	assert_string_equal(fmt(1234567, 0, 7), "1234567");
	assert_string_equal(fmt(12.345, 1, 7), "12.3");
	/* The decimals go before the units do. */
	assert_string_equal(fmt(123456.7, 1, 7), "123457");
	assert_string_equal(fmt(-42, 0, 7), "-42");
	assert_string_equal(fmt(NAN, 0, 7), "-");
	assert_string_equal(fmt(INFINITY, 0, 7), "-");
}

static void test_scaled(void **state)
{
	assert_string_equal(fmt(12345678, 0, 7), "12.3M");
	assert_string_equal(fmt(12345678, 0, 8), "12345678");
	assert_string_equal(fmt(1234567, 0, 5), "1.23M");
	assert_string_equal(fmt(123456, 0, 5), "123K");
	assert_string_equal(fmt(99999, 0, 5), "99999");
	assert_string_equal(fmt(100000, 0, 5), "100K");
	assert_string_equal(fmt(4.2e9, 0, 7), "4.20G");
	assert_string_equal(fmt(4.2e12, 0, 7), "4.20T");
	assert_string_equal(fmt(-1234567, 0, 5), "-1.2M");
	assert_string_equal(fmt(-1234567, 0, 6), "-1.23M");
	/* Rounding carries into the next unit instead of printing "1000K". */
	assert_string_equal(fmt(999999, 0, 5), "1.00M");
	assert_string_equal(fmt(999499, 0, 5), "999K");
}

static void test_width_holds(void **state)
{
	/* Whatever the value, the text never exceeds the width (min 5). */
	for (double v = 1; v < 1e18; v *= 3.7)
		for (int w = 5; w < 10; w++) {
			assert_true((int)strlen(fmt(v, 0, w)) <= w);
			assert_true((int)strlen(fmt(v, 2, w)) <= w);
			assert_true((int)strlen(fmt(-v, 0, w)) <= w || w == 5);
		}
}

/* CPU% and metric cells: the one formatter the text renderer and the view share. */
static void test_pct_and_metric(void **state)
{
	struct model_metric ipc = {.name = "ipc"}, pct = {.name = "miss", .format = "%.1f%%"};
	char buf[32];

	assert_string_equal(cells_pct(12.345, buf, sizeof(buf)), "12.3");
	assert_string_equal(cells_pct(NAN, buf, sizeof(buf)), "-");
	assert_string_equal(cells_metric(&ipc, 1.2345, buf, sizeof(buf)), "1.23");
	assert_string_equal(cells_metric(&pct, 4.56, buf, sizeof(buf)), "4.6%");
	assert_string_equal(cells_metric(&ipc, NAN, buf, sizeof(buf)), "-");
	assert_string_equal(cells_metric(&ipc, INFINITY, buf, sizeof(buf)), "-");
}

static const struct format_column cols[] = {
    {"PID", 7, 0, false, false, 0, 0},    {"USER", 9, 5, true, false, 0, 0},
    {"CPU%", 6, 0, false, false, 0, 0},   {"cycles", 10, 2, false, false, 0, 0},
    {"instr", 10, 3, false, false, 0, 0}, {"STATE", 10, 6, true, false, 0, 0},
    {"COMMAND", 12, 0, true, true, 0, 0},
};
#define NCOLS (int)(sizeof(cols) / sizeof(cols[0]))

static void test_layout_wide(void **state)
{
	int x[NCOLS], w[NCOLS];

	/* 7+9+6+10+10+10+12 plus 6 gaps = 70: all fit, COMMAND takes the rest. */
	assert_int_equal(format_layout(cols, NCOLS, 100, x, w), NCOLS);
	assert_int_equal(x[0], 0);
	assert_int_equal(x[1], 8);
	assert_int_equal(x[2], 18);
	assert_int_equal(x[6], 58);
	assert_int_equal(w[6], 12 + 30);
	assert_int_equal(x[6] + w[6], 100);
}

static void test_layout_narrow(void **state)
{
	int x[NCOLS], w[NCOLS];

	/* 60 columns: STATE (priority 6) goes; 55: USER (5) too; instr (3) stays. */
	assert_int_equal(format_layout(cols, NCOLS, 60, x, w), NCOLS - 1);
	assert_int_equal(x[5], -1);
	assert_true(x[1] >= 0);
	assert_int_equal(format_layout(cols, NCOLS, 55, x, w), NCOLS - 2);
	assert_int_equal(x[5], -1);
	assert_int_equal(x[1], -1);
	assert_true(x[4] >= 0);
	assert_int_equal(x[2], 8);
	assert_true(x[6] + w[6] <= 55);
	/* 40: instr goes too; COMMAND grows into the rest. */
	assert_int_equal(format_layout(cols, NCOLS, 40, x, w), 4);
	assert_int_equal(x[0], 0);
	assert_int_equal(x[2], 8);
	assert_int_equal(x[3], 15);
	assert_int_equal(x[4], -1);
	assert_int_equal(x[6], 26);
	assert_int_equal(x[6] + w[6], 40);
	/* Narrower than the must-haves: they stay (cut at the edge by the view). */
	assert_int_equal(format_layout(cols, NCOLS, 10, x, w), 3);
	assert_int_equal(x[6], 15);
}

static void test_layout_fixed_widths(void **state)
{
	int x1[NCOLS], w1[NCOLS], x2[NCOLS], w2[NCOLS];

	/* Widths do not depend on the values: two layouts of the same screen agree. */
	format_layout(cols, NCOLS, 80, x1, w1);
	format_layout(cols, NCOLS, 80, x2, w2);
	assert_memory_equal(x1, x2, sizeof(x1));
	assert_memory_equal(w1, w2, sizeof(w1));
	for (int i = 0; i < NCOLS - 1; i++)
		if (x1[i] >= 0)
			assert_int_equal(w1[i], cols[i].width);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain),
	    cmocka_unit_test(test_scaled),
	    cmocka_unit_test(test_width_holds),
	    cmocka_unit_test(test_pct_and_metric),
	    cmocka_unit_test(test_layout_wide),
	    cmocka_unit_test(test_layout_narrow),
	    cmocka_unit_test(test_layout_fixed_widths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
