/* format: fixed-width numbers with K/M/G units, and column layout for narrow screens. */
#ifndef PFMTOP_FORMAT_H
#define PFMTOP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * v in at most width characters: with decimals places when that fits, else
 * as an integer, else scaled by 1000s with K, M, G, T, P and three
 * significant digits ("1.23M", "45.6G", "789K"). NaN gives "-". Returns
 * buf. width below 5 is taken as 5 (the widest scaled form, "-999K" is 5).
 */
char *format_scaled(double v, int decimals, int width, char *buf, size_t len);

/* A column of a table on screen. */
struct format_column {
	const char *title;
	int width;    /* cells and title are cut or padded to this */
	int priority; /* 0 always shown; larger numbers are dropped first */
	bool left;    /* left-aligned (text) */
	bool flex;    /* takes the room left over (at most one column) */
};

#define FORMAT_GAP         1  /* spaces between columns */
#define FORMAT_MAX_COLUMNS 64 /* more are never shown */

/*
 * Choose the columns that fit in cols characters: drop the columns of the
 * largest priority first (the rightmost of equal priority first) until the
 * rest fit; a flex column needs its width and then grows into what is left.
 * Writes each column's on-screen x (-1 when dropped) and final width, and
 * returns the number of columns shown.
 */
int format_layout(const struct format_column *c, int n, int cols, int *x, int *width);

#endif
