/* cells: the one formatter of table cells, for every renderer (text, the view). */
#ifndef PFMTOP_CELLS_H
#define PFMTOP_CELLS_H

#include "model.h"

#include <stdbool.h>
#include <stddef.h>

/* Was it counted (ok or multiplexed), so that its value is a number? */
static inline bool cells_state_counted(enum counter_state st)
{
	return st == COUNTER_OK || st == COUNTER_MULTIPLEXED;
}

static inline bool cells_counted(const struct counter_value *v)
{
	return cells_state_counted(v->state);
}

/*
 * v in at most width characters: with decimals places when that fits, else
 * as an integer, else scaled by 1000s with K, M, G, T, P and three
 * significant digits ("1.23M", "45.6G", "789K"). NaN gives "-". Returns
 * buf. width below 5 is taken as 5 (the widest scaled form, "-999K" is 5).
 */
char *cells_scaled(double v, int decimals, int width, char *buf, size_t len);

/* How a renderer writes counter cells. */
struct cells_style {
	int width;         /* at most this wide (K/M/G beyond); 0: as wide as needed */
	int unit_decimals; /* decimals of a value with a unit (ms) */
	bool mux_brackets; /* multiplexed: "4000 (62%)" rather than "4000 62%" */
};

/* The cell of counter value v of event e: the value in the event's unit,
 * the coverage of a multiplexed one, or n/c, n/s, err. Returns buf. */
char *cells_counter(const struct model_event *e, const struct counter_value *v,
                    const struct cells_style *st, char *buf, size_t len);

/* A percentage (CPU%): one decimal; NaN gives "-". Returns buf. */
char *cells_pct(double v, char *buf, size_t len);

/* Metric value v in its preset's format (one floating-point conversion,
 * "%.2f" when the preset gives none); NaN and infinities give "-".
 * Returns buf. */
char *cells_metric(const struct model_metric *mm, double v, char *buf, size_t len);

/*
 * s in at most width characters: as it is when it fits, else its start and
 * its end around "..." (a long C++ name keeps its namespace and its
 * arguments). Characters are UTF-8 sequences, never cut. Returns buf.
 */
char *cells_elide(const char *s, int width, char *buf, size_t len);

/* The short name of one of the kernel's generic counters, for narrow
 * columns ("ctxsw" for context-switches), or NULL when it has none. */
const char *cells_brief_name(const char *name);

/* The order of names (COMMAND, USER, SYMBOL...): case folded, then by
 * byte, so that every renderer and --sort agree. */
int cells_cmp_names(const char *a, const char *b);

#endif
