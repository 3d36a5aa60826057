/* snapshot: the model rendered as text (for people), JSON Lines or CSV (for scripts). */
#ifndef PFMTOP_SNAPSHOT_H
#define PFMTOP_SNAPSHOT_H

#include "model.h"

#include <stdio.h>

enum snapshot_format {
	SNAPSHOT_TEXT,
	SNAPSHOT_JSON,
	SNAPSHOT_CSV, /* long form: a line per (snapshot, row, event or metric) */
	/* Prometheus metrics (src/openmetrics.c renders them, with running
	 * sums snapshot_render() does not have). */
	SNAPSHOT_OPENMETRICS,
	SNAPSHOT_PROMETHEUS,
	/* Collapsed call chains, once, at the end (profile_folded()). */
	SNAPSHOT_FOLDED,
};

static inline bool snapshot_format_is_metrics(enum snapshot_format f)
{
	return f == SNAPSHOT_OPENMETRICS || f == SNAPSHOT_PROMETHEUS;
}

/* Parse "text", "json", "csv", "openmetrics", "prometheus" or "folded"; 0
 * or -EINVAL. */
int snapshot_parse_format(const char *s, enum snapshot_format *out);

/* The CSV header line (with its newline): written once, before the first
 * snapshot of a file. */
const char *snapshot_csv_header(void);

/* One snapshot of m in fmt, in a malloc'd buffer of *len bytes (the caller
 * frees it), after the CSV header when first (its output holds nothing
 * yet): whole, for one write. NULL with errno set. */
char *snapshot_render(const struct model *m, enum snapshot_format fmt, bool first, size_t *len);

/* Write one snapshot of m to out. 0, or -EIO when the stream failed. */
int snapshot_write(FILE *out, const struct model *m, enum snapshot_format fmt);

/* The words for a cell state: "ok", "multiplexed", "not counted", ... */
const char *snapshot_state_name(enum counter_state st);

/* Format one counter cell into buf as the text snapshot shows it
 * (value in display units, "(63%)" when multiplexed, n/s, n/c, err). */
const char *snapshot_cell(const struct model_event *e, const struct counter_value *v, char *buf,
                          size_t len);

#endif
