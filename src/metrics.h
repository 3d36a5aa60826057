/* metrics: derived ratios (IPC, miss rates) from events counted in one group. */
#ifndef PFMTOP_METRICS_H
#define PFMTOP_METRICS_H

#include "counters.h"
#include "expr.h"
#include "model.h"

struct preset_resolved;

struct metrics {
	int nr;
	struct {
		int num, den; /* built-in ratio: event indexes */
		double mult;
		bool is_expr; /* a preset's expression instead */
		bool available;
		struct expr expr;
		int var_event[EXPR_VARS_MAX]; /* expr name -> event index, -1 unknown */
	} m[MODEL_MAX_METRICS];
};

/* Take a preset's metrics (names already renamed to the events used) as
 * model columns; names maps event index to the event name opened. Returns
 * the number of metrics. */
int metrics_setup_preset(struct metrics *mt, const struct preset_resolved *pr,
                         const char (*names)[128], int nr_events, struct model *m);

/* Find the built-in metrics whose inputs are in one group of ev and opened
 * (opened[i], or all when opened is NULL), and register them as model
 * columns. Returns the number found. */
int metrics_setup(struct metrics *mt, const struct counters_event *ev, const bool *opened, int nr,
                  struct model *m);

/* Fill r->metrics from r->cells; NaN where an input was not counted or the
 * denominator is zero. */
void metrics_compute(const struct metrics *mt, struct model_row *r);

#endif
