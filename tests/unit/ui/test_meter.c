/* test_meter: the meter bars (split, rounding, widths, 0% and 100%) and
 * the screen's human units. */
#include "meter.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static char text[256];
static enum meter_part part[256];

static const char *render(double u, double s, double o, double t, int width)
{
	assert_int_equal(meter_render(u, s, o, t, width, text, part), width);
	assert_int_equal((int)strlen(text), width);
	return text;
}

static int count(enum meter_part p, int width)
{
	int n = 0;

	for (int i = 0; i < width; i++)
		n += part[i] == p;
	return n;
}

static void test_split_sums(void **state)
{
	int u, s, o;

	(void)state;
	meter_split(10, 10, 10, 30, 10, &u, &s, &o);
	assert_int_equal(u, 1);
	assert_int_equal(s, 1);
	assert_int_equal(o, 1);
	/* 3 cells of 33.3% each at 4 cells: the running sums place them */
	meter_split(33.3, 33.3, 33.3, NAN, 4, &u, &s, &o);
	assert_int_equal(u, 1);
	assert_int_equal(s, 2);
	assert_int_equal(o, 1);
	/* The parts never add up to more or less than the rounded total. */
	for (double a = 0; a <= 100; a += 7.3)
		for (double b = 0; a + b <= 100; b += 11.1)
			for (int n = 0; n < 60; n += 7) {
				double c = (100 - a - b) / 3;
				meter_split(a, b, c, a + b + c, n, &u, &s, &o);
				assert_true(u >= 0 && s >= 0 && o >= 0);
				assert_int_equal(u + s + o, (int)lround((a + b + c) * n / 100.0));
			}
	/* Out of range and NaN are clamped. */
	meter_split(150, -5, NAN, NAN, 20, &u, &s, &o);
	assert_int_equal(u, 20);
	assert_int_equal(s + o, 0);
}

static void test_render_htop_like(void **state)
{
	(void)state;
	/* 20 characters: brackets, 18 cells, the total at the right end. */
	assert_string_equal(render(50, 0, 0, 50, 20), "[|||||||||    50.0%]");
	assert_int_equal(part[0], METER_FRAME);
	assert_int_equal(part[19], METER_FRAME);
	assert_int_equal(count(METER_USER, 20), 9);
	/* user, then system, then other, left to right */
	render(20, 20, 10, 50, 22);
	assert_int_equal(count(METER_USER, 22), 4);
	assert_int_equal(count(METER_SYSTEM, 22), 4);
	assert_int_equal(count(METER_OTHER, 22), 2);
	assert_int_equal(part[1], METER_USER);
	assert_int_equal(part[5], METER_SYSTEM);
	assert_int_equal(part[9], METER_OTHER);
}

static void test_render_0_and_100(void **state)
{
	(void)state;
	assert_string_equal(render(0, 0, 0, 0, 12), "[      0.0%]");
	assert_int_equal(count(METER_USER, 12) + count(METER_SYSTEM, 12), 0);
	/* 100%: the number covers the end of a full bar */
	assert_string_equal(render(70, 20, 10, 100, 12), "[||||100.0%]");
	assert_int_equal(count(METER_EMPTY, 12), 0);
	/* The split unknown (a recording of an earlier build): all user. */
	render(NAN, NAN, NAN, 40, 12);
	assert_int_equal(count(METER_SYSTEM, 12) + count(METER_OTHER, 12), 0);
	assert_true(count(METER_USER, 12) > 0);
}

static void test_render_narrow(void **state)
{
	(void)state;
	/* No room for the number and two cells: the bar alone. */
	assert_string_equal(render(100, 0, 0, 100, 8), "[||||||]");
	assert_string_equal(render(50, 0, 0, 50, 8), "[|||   ]");
	assert_string_equal(render(100, 0, 0, 100, 3), "[|]");
	assert_string_equal(render(100, 0, 0, 100, 2), "||");
	assert_string_equal(render(0, 0, 0, 0, 1), " ");
	assert_int_equal(meter_render(50, 0, 0, 50, 0, text, part), 0);
	assert_string_equal(text, "");
	/* ASCII only, whatever the width */
	for (int w = 0; w < 100; w++) {
		render(33.3, 33.3, 33.3, NAN, w);
		for (int i = 0; i < w; i++)
			assert_true(text[i] == '|' || text[i] == ' ' || text[i] == '[' ||
			            text[i] == ']' || text[i] == '.' || text[i] == '%' ||
			            (text[i] >= '0' && text[i] <= '9'));
	}
}

static const char *human(double v, int decimals, int width)
{
	static char buf[32];

	return meter_human(v, decimals, width, buf, sizeof(buf));
}

static void test_human_units(void **state)
{
	(void)state;
	assert_string_equal(human(0, 0, 8), "0");
	assert_string_equal(human(999, 0, 8), "999");
	assert_string_equal(human(12.34, 1, 8), "12.3");
	assert_string_equal(human(1000, 0, 8), "1.0K");
	assert_string_equal(human(1234, 1, 8), "1.2K");
	assert_string_equal(human(45678, 0, 8), "45.7K");
	assert_string_equal(human(999949, 0, 8), "999.9K");
	/* rounding carries into the next unit: never "1000.0K" */
	assert_string_equal(human(999960, 0, 8), "1.0M");
	assert_string_equal(human(1.5e9, 0, 8), "1.5G");
	assert_string_equal(human(-2500, 0, 8), "-2.5K");
	assert_string_equal(human(NAN, 0, 8), "-");
	/* too narrow for the decimal: it goes first */
	assert_string_equal(human(123456, 0, 5), "123K");
	assert_string_equal(human(999.96, 1, 8), "1.0K");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_split_sums),       cmocka_unit_test(test_render_htop_like),
	    cmocka_unit_test(test_render_0_and_100), cmocka_unit_test(test_render_narrow),
	    cmocka_unit_test(test_human_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
