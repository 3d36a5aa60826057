/* colspec: a view's column setup (F2) as text and back, and its merge with
 * the columns a view has. Pure: no curses, no model. */
#ifndef PFMTOP_COLSPEC_H
#define PFMTOP_COLSPEC_H

#include <stdbool.h>
#include <stddef.h>

#define COLSPEC_MAX       64
#define COLSPEC_MAX_WIDTH 200

struct colspec_item {
	char name[64];
	int width; /* 0: the column's default */
	bool hidden;
};

/* Parse "PID,USER,-THR,page-faults:12" into it[0..max); returns the number
 * of items, or -1 with a sentence in err (an empty name, a bad width, a
 * name given twice, too many). "" gives 0 items. */
int colspec_parse(const char *text, struct colspec_item *it, int max, char *err, size_t errlen);

/* The text of it[0..n) in buf; -1 when it does not fit (buf then ""). */
int colspec_format(const struct colspec_item *it, int n, char *buf, size_t len);

/*
 * The columns of a view (names[0..nd), in their default order) as the spec
 * it[0..n) arranges them: order[0..nd) gets indexes into names, hidden[]
 * and width[] (0: default) are per index into names. A column the spec
 * names goes where the spec puts it; one it does not name goes after the
 * last placed of the columns before it by default (or first).
 */
void colspec_merge(const char *const *names, int nd, const struct colspec_item *it, int n,
                   int *order, bool *hidden, int *width);

#endif
