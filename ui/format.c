/* format: fixed-width numbers with K/M/G units, and column layout for narrow screens. */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

char *format_scaled(double v, int decimals, int width, char *buf, size_t len)
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

int format_layout(const struct format_column *c, int n, int cols, int *x, int *width)
{
	int shown, total = 0, flex = -1, pos = 0;
	bool drop[FORMAT_MAX_COLUMNS];

	if (n > FORMAT_MAX_COLUMNS)
		n = FORMAT_MAX_COLUMNS;
	shown = n;
	memset(drop, 0, sizeof(drop));
	for (int i = 0; i < n; i++) {
		total += c[i].width + (i ? FORMAT_GAP : 0);
		if (c[i].flex && flex < 0)
			flex = i;
	}
	while (total > cols && shown > 0) {
		int worst = -1;
		for (int i = 0; i < n; i++)
			if (!drop[i] && c[i].priority > 0 &&
			    (worst < 0 || c[i].priority >= c[worst].priority))
				worst = i;
		if (worst < 0)
			break; /* only must-have columns left: they are cut at the edge */
		drop[worst] = true;
		shown--;
		total -= c[worst].width + FORMAT_GAP;
	}
	for (int i = 0; i < n; i++) {
		width[i] = drop[i] ? 0 : c[i].width;
		if (i == flex && !drop[i] && total < cols)
			width[i] += cols - total;
		x[i] = drop[i] ? -1 : pos;
		if (!drop[i])
			pos += width[i] + FORMAT_GAP;
	}
	return shown;
}
