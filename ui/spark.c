/* spark: sparklines and small graphs in block characters, or ASCII. */
#include "spark.h"

#include <langinfo.h>
#include <math.h>
#include <string.h>
#include <strings.h>

static const char *const blocks[8] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
static const char ascii_levels[] = "_.-=#";

bool spark_utf8_locale(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

/* A value not counted, or not a number. */
static bool missing(float v)
{
	return isnan(v) || isinf(v);
}

bool spark_range(const float *vals, int n, int width, double *lo, double *hi)
{
	bool any = false;

	*lo = 0;
	*hi = 0;
	for (int i = n > width ? n - width : 0; i < n; i++) {
		if (missing(vals[i]))
			continue;
		if (!any || vals[i] > *hi)
			*hi = vals[i];
		if (vals[i] < *lo)
			*lo = vals[i];
		any = true;
	}
	if (*hi < 0)
		*hi = 0;
	return any;
}

/* Append glyph g (a block, or one ASCII character) if it fits. */
static void put_glyph(char *buf, size_t len, size_t *at, const char *g)
{
	size_t n = strlen(g);

	if (*at + n + 1 > len)
		return;
	memcpy(buf + *at, g, n);
	*at += n;
	buf[*at] = '\0';
}

/* Of steps steps, how many v takes in lo..hi (at least 1 above lo). */
static int steps_of(double v, double lo, double hi, int steps)
{
	long s;

	if (hi <= lo)
		return v > 0 ? steps : 0;
	s = lround((v - lo) / (hi - lo) * steps);
	if (s < 1 && v > lo)
		s = 1;
	return s < 0 ? 0 : s > steps ? steps : (int)s;
}

/* Blank columns for the room no value fills (the oldest are left out when
 * more than width): the index of the first value shown. */
static int lead(char *buf, size_t len, size_t *at, int n, int width)
{
	const int first = n > width ? n - width : 0;

	buf[0] = '\0';
	for (int i = 0; i < width - (n - first); i++)
		put_glyph(buf, len, at, " ");
	return first;
}

char *spark_line(const float *vals, int n, int width, bool utf8, char *buf, size_t len)
{
	double lo, hi;
	size_t at = 0;
	char a[2] = {0, 0};

	if (!len)
		return buf;
	spark_range(vals, n, width, &lo, &hi);
	for (int i = lead(buf, len, &at, n, width); i < n; i++) {
		if (missing(vals[i])) {
			put_glyph(buf, len, &at, " ");
			continue;
		}
		/* 8 glyphs: steps 0..7 */
		int s = steps_of(vals[i], lo, hi, 7);
		if (utf8) {
			put_glyph(buf, len, &at, blocks[s]);
		} else {
			a[0] = ascii_levels[s ? 1 + (s - 1) / 2 : 0]; /* _..--==# */
			put_glyph(buf, len, &at, a);
		}
	}
	return buf;
}

char *spark_graph_row(const float *vals, int n, int width, int height, int row, double lo,
                      double hi, bool utf8, char *buf, size_t len)
{
	size_t at = 0;
	int below = (height - 1 - row) * 8; /* steps under this line */
	char a[2] = {0, 0};

	if (!len)
		return buf;
	for (int i = lead(buf, len, &at, n, width); i < n; i++) {
		if (missing(vals[i])) {
			put_glyph(buf, len, &at, " ");
			continue;
		}
		int s = steps_of(vals[i], lo, hi, height * 8) - below;
		if (s <= 0 && below == 0) {
			s = 1; /* the baseline */
		} else if (s <= 0) {
			put_glyph(buf, len, &at, " ");
			continue;
		}
		if (s > 8)
			s = 8;
		if (utf8) {
			put_glyph(buf, len, &at, blocks[s - 1]);
		} else {
			a[0] = s == 8 ? '#' : ascii_levels[(s - 1) * 4 / 7];
			put_glyph(buf, len, &at, a);
		}
	}
	return buf;
}
