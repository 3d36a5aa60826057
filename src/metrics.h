/* metrics: derived ratios (IPC, miss rates) from events counted in one group. */
#ifndef PFMTOP_METRICS_H
#define PFMTOP_METRICS_H

#include "counters.h"
#include "model.h"

struct metrics {
	int nr;
	struct {
		int num, den;  /* event indexes */
		double mult;
	} m[MODEL_MAX_METRICS];
};

/* Find the built-in metrics whose inputs are in one group of ev and opened
 * (opened[i], or all when opened is NULL), and register them as model
 * columns. Returns the number found. */
int metrics_setup(struct metrics *mt, const struct counters_event *ev, const bool *opened, int nr,
		  struct model *m);

/* Fill r->metrics from r->cells; NaN where an input was not counted or the
 * denominator is zero. */
void metrics_compute(const struct metrics *mt, struct model_row *r);

#endif
