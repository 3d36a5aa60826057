/* snapshot: the model rendered as text (for people), JSON Lines or CSV (for scripts). */
#ifndef PFMTOP_SNAPSHOT_H
#define PFMTOP_SNAPSHOT_H

#include "model.h"

#include <stdint.h>
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

/* Write one snapshot of m to out. 0, or -EIO when the stream failed. A text
 * snapshot is written as the first of a run (see struct snapshot_text). */
int snapshot_write(FILE *out, const struct model *m, enum snapshot_format fmt);

/* The sections of a text snapshot that stay the same from one snapshot to
 * the next (the EVENTS table, notes, sampling prose, legends). */
enum {
	SNAPSHOT_TEXT_HEADER,
	SNAPSHOT_TEXT_EVENTS,
	SNAPSHOT_TEXT_HIDDEN,
	SNAPSHOT_TEXT_CPU_NAMES,
	SNAPSHOT_TEXT_TASK_NAMES,
	SNAPSHOT_TEXT_CGROUP_NAMES,
	SNAPSHOT_TEXT_SAMPLING,
	SNAPSHOT_TEXT_MAX_RATE,
	SNAPSHOT_TEXT_KEY,
	SNAPSHOT_TEXT_SECTIONS,
};

/*
 * What the reader of a run's text snapshots was told already. Zeroed, with
 * wide set or not, before the first snapshot. Narrow (the default): lines
 * fit in 80 columns, the columns of events that count on no row are left
 * out (named once, with why), and a static section is printed in the first
 * snapshot and again only when it changes. wide (--wide): every column and
 * every section in every snapshot, lines as long as they need.
 */
struct snapshot_text {
	bool wide;
	bool started;
	uint64_t seen[SNAPSHOT_TEXT_SECTIONS]; /* a hash of each section last printed */
};

/* A snapshot of a run in fmt, as snapshot_render() makes it; text for the
 * reader st (updated), as snapshot_render_text() does. */
char *snapshot_render_run(const struct model *m, enum snapshot_format fmt, struct snapshot_text *st,
                          bool first, size_t *len);

/* One text snapshot of m for the reader st (updated), in a malloc'd buffer
 * of *len bytes (the caller frees it). NULL with errno set. */
char *snapshot_render_text(const struct model *m, struct snapshot_text *st, size_t *len);

/* The words for a cell state: "ok", "multiplexed", "not counted", ... */
const char *snapshot_state_name(enum counter_state st);

/* Format one counter cell into buf as the text snapshot shows it
 * (value in display units, "(63%)" when multiplexed, n/s, n/c, err). */
const char *snapshot_cell(const struct model_event *e, const struct counter_value *v, char *buf,
                          size_t len);

#endif
