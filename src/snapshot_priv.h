/* snapshot_priv.h: what the text renderers of snapshot.c and snapshot_hot.c share. */
#ifndef PFMTOP_SNAPSHOT_PRIV_H
#define PFMTOP_SNAPSHOT_PRIV_H

#include "model.h"

#include <stdbool.h>
#include <stdio.h>

#define CELL_MAX 64

/* A table drawn in two passes: cells first, then widths, then lines. */
struct table {
	int nr_cols, nr_rows;
	int width[64];
	bool left[64];
	char (*cell)[CELL_MAX]; /* nr_rows x nr_cols */
};

static inline char *cell_at(struct table *t, int row, int col)
{
	return t->cell[row * t->nr_cols + col];
}

/* A table of cols x rows empty cells (at most 64 columns); 0 or -ENOMEM. */
int snapshot_table_init(struct table *t, int cols, int rows);

/* Print the table, each column as wide as its widest cell, and free it. */
void snapshot_table_print(FILE *out, struct table *t);

/* "EVENT at N Hz" or "EVENT every N events". */
void snapshot_rate_text(const struct model_sampling *s, char *buf, size_t len);

/* The HOTSPOTS section (and, with -g, its call paths). */
void snapshot_text_hotspots(FILE *out, const struct model *m);

#endif
