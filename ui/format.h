/* format: column layout for narrow screens (numbers: cells.h). */
#ifndef PFMTOP_FORMAT_H
#define PFMTOP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

/* A column of a table on screen. */
struct format_column {
	const char *title;
	int width;    /* cells and title are cut or padded to this */
	int priority; /* 0 always shown; larger numbers are dropped first */
	bool left;    /* left-aligned (text) */
	bool flex;    /* takes the room left over (at most one column) */
	int want;     /* the width its title and cells need in full (0: width) */
	int need;     /* the width below which a word of it is cut (0: want); a
	               * column with a short title reads whole narrower; of the
	               * flex column: what it takes before others widen */
};

#define FORMAT_GAP         1  /* spaces between columns */
#define FORMAT_MAX_COLUMNS 64 /* more are never shown */

/*
 * Choose the columns that fit in cols characters: drop the columns of the
 * largest priority first (the rightmost of equal priority first) until the
 * rest fit at their widths; then the room left widens each column to what
 * it needs so that no word of it is cut, then to what it wants in full
 * where all of that fits (the must-have ones first, left to right, each
 * time), and a flex column grows into the rest.
 * Writes each column's on-screen x (-1 when dropped) and final width, and
 * returns the number of columns shown.
 */
int format_layout(const struct format_column *c, int n, int cols, int *x, int *width);

#endif
