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
	/* The room left: first so that no column is cut mid-word, then so that
	 * each shows in full; by priority each time. */
	for (int pass = 0; pass < 2; pass++)
		for (int p = 0; total < cols; p++) {
			bool more = false;
			for (int i = 0; i < n && total < cols; i++) {
				int want = c[i].want;
				if (pass == 0 && c[i].need)
					want = c[i].need < want ? c[i].need : want;
				if (i == flex) /* its need first; the rest at the end */
					want = pass == 0 ? c[i].need : 0;
				if (drop[i] || want <= width[i])
					continue;
				more |= c[i].priority >= p;
				if (c[i].priority != p)
					continue;
				int add = want - width[i];
				if (add > cols - total && pass == 1)
					continue; /* in full or not at all: leave it to the flex
					             column */
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
