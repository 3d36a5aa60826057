/* snapshot_priv.h: what the text renderers of snapshot.c and snapshot_hot.c share. */
#ifndef PFMTOP_SNAPSHOT_PRIV_H
#define PFMTOP_SNAPSHOT_PRIV_H

#include "model.h"
#include "snapshot.h"

#include <stdbool.h>
#include <stdio.h>

#define CELL_MAX 64

/* A table drawn in two passes: cells first, then widths, then lines. */
struct table {
	int nr_cols, nr_rows;
	int width[64];
	bool left[64];
	int maxw;       /* a line's columns at most (0: as wide as the cells) */
	int minw[64];   /* a column cut (its cells elided) down to this to fit maxw; 0: never */
	bool first[64]; /* cut before the others (the least telling names) */
	char (*cell)[CELL_MAX]; /* nr_rows x nr_cols */
};

static inline char *cell_at(struct table *t, int row, int col)
{
	return t->cell[row * t->nr_cols + col];
}

/* A table of cols x rows empty cells (at most 64 columns); 0 or -ENOMEM. */
int snapshot_table_init(struct table *t, int cols, int rows);

/* The columns a text line takes at most (narrow snapshots). */
#define SNAPSHOT_COLUMNS 80

/* Print the table, each column as wide as its widest cell (the columns with
 * a minw narrower, their long cells elided, while a line is wider than
 * maxw), and free it. */
void snapshot_table_print(FILE *out, struct table *t);

/* "system-wide", "tasks" or "command". */
const char *snapshot_mode_name(enum model_mode m);

/* RFC 3339 in UTC to the millisecond: "2026-11-26T08:35:12.345Z". */
void snapshot_iso_time(uint64_t wall_ns, char *buf, size_t len);

/* A text snapshot of m for the reader st (NULL: a first snapshot, narrow). */
void snapshot_write_text(FILE *out, const struct model *m, struct snapshot_text *st);

/* "EVENT at N Hz" or "EVENT every N events". */
void snapshot_rate_text(const struct model_sampling *s, char *buf, size_t len);

/* The columns a line of the table takes. */
int snapshot_table_width(const struct table *t);

/* text (safe already) on lines of at most maxw columns, broken at spaces,
 * the lines after the first indented by indent spaces; a word longer than
 * a line keeps its own. maxw 0: one line. Ends with a newline. */
void snapshot_wrap(FILE *out, const char *text, int indent, int maxw);

/* The HOTSPOTS section (and, with -g, its call paths); its lines fit in
 * maxw columns (0: as wide as they need). */
void snapshot_text_hotspots(FILE *out, const struct model *m, int maxw);

#endif
