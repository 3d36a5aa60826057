/* spark: sparklines and small graphs of a row's history. */
#ifndef PFMTOP_SPARK_H
#define PFMTOP_SPARK_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes a line of width columns may take (3 per block character). */
#define SPARK_BYTES(width) ((size_t)(width)*3 + 1)

/* Whether the locale's character set is UTF-8 (after setlocale()): block
 * characters then, ASCII otherwise. */
bool spark_utf8_locale(void);

/*
 * The range the last width of vals[0..n) are drawn in: from the smallest
 * (or 0, whichever is less) to the largest; NaN values are left out.
 * Returns false when there is no number at all.
 */
bool spark_range(const float *vals, int n, int width, double *lo, double *hi);

/*
 * One line of width columns: the last width values of vals[0..n), oldest
 * on the left, right-aligned (blank where there is no history yet), each
 * one of ▁▂▃▅▆▇█ (utf8) or _.-=# scaled to the values shown. A value that
 * is NaN (not counted) is blank; a value above the lowest never draws as
 * the lowest glyph; all equal draws flat at the bottom (or the top when
 * above 0). Returns buf (len at least SPARK_BYTES(width), else cut).
 */
char *spark_line(const float *vals, int n, int width, bool utf8, char *buf, size_t len);

/*
 * Line row (0 the top) of a graph height lines high and width columns
 * wide of the same values, scaled to lo..hi: eight steps per line, full
 * blocks (#) below a partial one. Zero shows as the baseline on the
 * bottom line.
 */
char *spark_graph_row(const float *vals, int n, int width, int height, int row, double lo,
                      double hi, bool utf8, char *buf, size_t len);

#endif
