/* test_spark: sparklines and graph lines: scaling, all zeros, not counted,
 * widths, block characters and the ASCII fallback. */
#include "spark.h"

#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static char buf[SPARK_BYTES(80)];

static const char *line(const float *v, int n, int width, bool utf8)
{
	return spark_line(v, n, width, utf8, buf, sizeof(buf));
}

/* Columns on screen: one per character. */
static int columns(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += (*s & 0xc0) != 0x80;
	return n;
}

static void test_scaling(void **state)
{
	const float ramp[] = {0, 1, 2, 3, 4, 5, 6, 7};
	const float big[] = {0, 1e9f, 5e8f, 2e9f};
	const float tiny[] = {1000, 1};

	assert_string_equal(line(ramp, 8, 8, true), "▁▂▃▄▅▆▇█");
	assert_string_equal(line(ramp, 8, 8, false), "_..--==#");
	/* scaled to the largest shown, from 0 */
	assert_string_equal(line(big, 4, 4, true), "▁▅▃█");
	/* above 0, never the lowest glyph */
	assert_string_equal(line(tiny, 2, 2, true), "█▂");
	assert_string_equal(line(tiny, 2, 2, false), "#.");
	/* a flat non-zero line is drawn full */
	const float flat[] = {50, 50, 50};
	assert_string_equal(line(flat, 3, 3, true), "███");
	/* negative values: from the least */
	const float neg[] = {-4, 0, 3};
	assert_string_equal(line(neg, 3, 3, true), "▁▅█");
}

static void test_zeros_and_not_counted(void **state)
{
	const float zeros[] = {0, 0, 0, 0};
	const float holes[] = {NAN, 2, NAN, 4, INFINITY};
	const float none[] = {NAN, NAN};
	double lo, hi;

	assert_string_equal(line(zeros, 4, 4, true), "▁▁▁▁");
	assert_string_equal(line(zeros, 4, 4, false), "____");
	/* not counted: blank, and left out of the scale */
	assert_string_equal(line(holes, 5, 5, true), " ▅ █ ");
	assert_string_equal(line(holes, 5, 5, false), " - # ");
	assert_false(spark_range(none, 2, 2, &lo, &hi));
	assert_string_equal(line(none, 2, 2, true), "  ");
	assert_true(spark_range(holes, 5, 5, &lo, &hi));
	assert_true(lo == 0 && hi == 4);
}

static void test_widths(void **state)
{
	float v[70];

	for (int i = 0; i < 70; i++)
		v[i] = (float)(i % 9);
	/* no history yet: blank on the left, the newest on the right */
	assert_string_equal(line(v + 1, 3, 6, true), "   ▃▆█");
	assert_string_equal(line(v, 0, 3, true), "   ");
	/* more history than room: the newest, scaled to what is shown */
	const float last[] = {100, 0, 1};
	assert_string_equal(line(last, 3, 2, true), "▁█");
	for (int w = 1; w <= 80; w++) {
		assert_int_equal(columns(line(v, 70, w, true)), w);
		assert_int_equal((int)strlen(line(v, 70, w, false)), w);
	}
	/* a buffer too small is cut at a character, never overrun */
	char small[8];
	spark_line(v, 70, 10, true, small, sizeof(small));
	assert_int_equal((int)strlen(small), 6);
	spark_line(v, 70, 10, true, small, 0);
}

static void test_graph(void **state)
{
	const float v[] = {0, 4, 8, 16, NAN};
	double lo, hi;

	assert_true(spark_range(v, 5, 5, &lo, &hi));
	assert_true(lo == 0 && hi == 16);
	/* two lines of eight steps each: 0, 4, 8, 16 */
	assert_string_equal(spark_graph_row(v, 5, 5, 2, 0, lo, hi, true, buf, sizeof(buf)),
	                    "   █ ");
	assert_string_equal(spark_graph_row(v, 5, 5, 2, 1, lo, hi, true, buf, sizeof(buf)),
	                    "▁▄██ ");
	assert_string_equal(spark_graph_row(v, 5, 5, 2, 0, lo, hi, false, buf, sizeof(buf)),
	                    "   # ");
	assert_string_equal(spark_graph_row(v, 5, 5, 2, 1, lo, hi, false, buf, sizeof(buf)),
	                    "_.## ");
	/* padded on the left, cut to the newest */
	assert_string_equal(spark_graph_row(v, 5, 7, 1, 0, lo, hi, true, buf, sizeof(buf)),
	                    "  ▁▂▄█ ");
	assert_string_equal(spark_graph_row(v, 5, 2, 1, 0, lo, hi, true, buf, sizeof(buf)), "█ ");
	/* all zeros: the baseline only */
	const float z[] = {0, 0, 0};
	assert_string_equal(spark_graph_row(z, 3, 3, 3, 0, 0, 0, true, buf, sizeof(buf)), "   ");
	assert_string_equal(spark_graph_row(z, 3, 3, 3, 2, 0, 0, true, buf, sizeof(buf)), "▁▁▁");
	for (int h = 1; h <= 8; h++)
		for (int r = 0; r < h; r++)
			assert_int_equal(columns(spark_graph_row(v, 5, 40, h, r, lo, hi, true, buf,
			                                         sizeof(buf))),
			                 40);
}

static void test_locale(void **state)
{
	if (!setlocale(LC_ALL, "C.UTF-8"))
		skip();
	assert_true(spark_utf8_locale());
	assert_non_null(setlocale(LC_ALL, "C"));
	assert_false(spark_utf8_locale());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scaling), cmocka_unit_test(test_zeros_and_not_counted),
	    cmocka_unit_test(test_widths),  cmocka_unit_test(test_graph),
	    cmocka_unit_test(test_locale),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
