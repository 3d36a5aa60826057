/* cells: the one formatter of table cells, for every renderer (text, the view). */
#include "cells.h"

#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

char *cells_scaled(double v, int decimals, int width, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	double a;
	int n;

	if (width < 5)
		width = 5;
	if (isnan(v) || isinf(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	n = snprintf(buf, len, "%.*f", decimals, v);
	if (n <= width)
		return buf;
	n = snprintf(buf, len, "%.0f", v);
	if (n <= width)
		return buf;
	a = fabs(v);
	for (int u = 0; units[u]; u++) {
		a /= 1000.0;
		/* Round first so 999.96K becomes 1.00M, not "1000K". */
		double r = a < 9.995   ? round(a * 100) / 100
		           : a < 99.95 ? round(a * 10) / 10
		                       : round(a);
		if (r >= 1000.0 && units[u + 1])
			continue;
		int prec = r < 10 ? 2 : r < 100 ? 1 : 0;
		/* Only the sign can make it too wide: give up a decimal for it. */
		do
			n = snprintf(buf, len, "%s%.*f%c", v < 0 ? "-" : "", prec, r, units[u]);
		while (n > width && prec-- > 0);
		return buf;
	}
	return buf;
}

char *cells_counter(const struct model_event *e, const struct counter_value *v,
                    const struct cells_style *st, char *buf, size_t len)
{
	double scale = e->scale > 0 ? e->scale : 1.0;
	int decimals = e->unit[0] || scale != 1.0 ? st->unit_decimals : 0;
	int width = st->width ? st->width : (int)len - 1;
	char num[32];

	switch (v->state) {
	case COUNTER_OK:
		cells_scaled(v->value * scale, decimals, width, buf, len);
		break;
	case COUNTER_MULTIPLEXED:
		if (st->mux_brackets) {
			cells_scaled(v->value * scale, decimals, width, num, sizeof(num));
			snprintf(buf, len, "%s (%.0f%%)", num, floor(v->coverage * 100.0));
		} else {
			cells_scaled(v->value * scale, decimals, width - 5 < 5 ? 5 : width - 5, num,
			             sizeof(num));
			snprintf(buf, len, "%s %2.0f%%", num, floor(v->coverage * 100.0));
		}
		break;
	case COUNTER_NOT_COUNTED:
		/* an event not supported here is that on every row */
		util_strlcpy(buf, e->state == COUNTER_UNSUPPORTED ? "n/s" : "n/c", len);
		break;
	case COUNTER_UNSUPPORTED:
		util_strlcpy(buf, "n/s", len);
		break;
	case COUNTER_ERROR:
		util_strlcpy(buf, "err", len);
		break;
	}
	return buf;
}

char *cells_pct(double v, char *buf, size_t len)
{
	if (isnan(v))
		util_strlcpy(buf, "-", len);
	else
		snprintf(buf, len, "%.1f", v);
	return buf;
}

/* The preset parser admits exactly one floating-point conversion in a
 * metric's format, so the one double argument always matches. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
char *cells_metric(const struct model_metric *mm, double v, char *buf, size_t len)
{
	if (isnan(v) || isinf(v))
		util_strlcpy(buf, "-", len);
	else
		snprintf(buf, len, mm->format[0] ? mm->format : "%.2f", v);
	return buf;
}
#pragma GCC diagnostic pop

int cells_cmp_names(const char *a, const char *b)
{
	int d = strcasecmp(a, b);

	return d ? d : strcmp(a, b);
}

/* Bytes of the first n characters of s (UTF-8; a stray continuation byte
 * counts as a character). */
static size_t chars_bytes(const char *s, size_t n)
{
	size_t b = 0;

	for (; s[b] && n; n--)
		for (b++; ((unsigned char)s[b] & 0xc0) == 0x80; b++)
			;
	return b;
}

static size_t nr_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

char *cells_elide(const char *s, int width, char *buf, size_t len)
{
	size_t total = nr_chars(s), head, tail;

	if (width < 5 || total <= (size_t)width) {
		snprintf(buf, len, "%.*s", (int)chars_bytes(s, width < 1 ? 0 : (size_t)width), s);
		return buf;
	}
	head = ((size_t)width - 3) / 2;
	tail = (size_t)width - 3 - head;
	const char *end = s + chars_bytes(s, total - tail);
	snprintf(buf, len, "%.*s...%s", (int)chars_bytes(s, head), s, end);
	return buf;
}

const char *cells_brief_name(const char *name)
{
	static const char *const names[][2] = {
	    {"context-switches", "ctxsw"}, {"cpu-migrations", "migr"}, {"page-faults", "faults"},
	    {"instructions", "instr"},     {"cache-misses", "cmiss"},  {"branch-misses", "brmiss"},
	    {"task-clock", "task"},        {"cpu-clock", "cpuclk"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i][0]))
			return names[i][1];
	return NULL;
}
