/* format: fixed-width numbers with K/M/G units, and column layout for narrow screens. */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
	for (int i = 0; i < n; i++)
		width[i] = drop[i] ? 0 : c[i].width;
	/* The room left: to the columns that want more, by priority. */
	for (int p = 0; total < cols; p++) {
		bool more = false;
		for (int i = 0; i < n && total < cols; i++) {
			if (drop[i] || i == flex || c[i].want <= width[i])
				continue;
			more |= c[i].priority >= p;
			if (c[i].priority != p)
				continue;
			int add = c[i].want - width[i];
			if (add > cols - total)
				add = cols - total;
			width[i] += add;
			total += add;
		}
		if (!more)
			break;
	}
	for (int i = 0; i < n; i++) {
		if (i == flex && !drop[i] && total < cols)
			width[i] += cols - total;
		x[i] = drop[i] ? -1 : pos;
		if (!drop[i])
			pos += width[i] + FORMAT_GAP;
	}
	return shown;
}
