/* metrics: derived ratios (IPC, miss rates) from events counted in one group. */
#include "metrics.h"

#include "cells.h"
#include "preset.h"
#include "util.h"

#include <math.h>
#include <string.h>

static const struct {
	const char *name, *unit;
	uint64_t num, den; /* PERF_TYPE_HARDWARE configs */
	double mult;
} builtin[] = {
    {"IPC", "", PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES, 1},
    {"cache-miss", "%", PERF_COUNT_HW_CACHE_MISSES, PERF_COUNT_HW_CACHE_REFERENCES, 100},
    {"branch-miss", "%", PERF_COUNT_HW_BRANCH_MISSES, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 100},
};

static int find_hw(const struct counters_event *ev, const bool *opened, int nr, uint64_t config,
                   int group)
{
	for (int i = 0; i < nr; i++)
		if (ev[i].attr.type == PERF_TYPE_HARDWARE && ev[i].attr.config == config &&
		    (!opened || opened[i]) && (group < 0 || ev[i].group == group))
			return i;
	return -1;
}

int metrics_setup(struct metrics *mt, const struct counters_event *ev, const bool *opened, int nr,
                  struct model *m)
{
	memset(mt, 0, sizeof(*mt));
	for (size_t k = 0; k < ARRAY_SIZE(builtin) && mt->nr < MODEL_MAX_METRICS; k++) {
		int num = find_hw(ev, opened, nr, builtin[k].num, -1);
		int den = num < 0 ? -1 : find_hw(ev, opened, nr, builtin[k].den, ev[num].group);
		if (den < 0)
			continue;
		mt->m[mt->nr].num = num;
		mt->m[mt->nr].den = den;
		mt->m[mt->nr].mult = builtin[k].mult;
		util_strlcpy(m->metrics[mt->nr].name, builtin[k].name, sizeof(m->metrics[0].name));
		util_strlcpy(m->metrics[mt->nr].title, builtin[k].name,
		             sizeof(m->metrics[0].title));
		util_strlcpy(m->metrics[mt->nr].unit, builtin[k].unit, sizeof(m->metrics[0].unit));
		util_strlcpy(m->metrics[mt->nr].format, "%.2f", sizeof(m->metrics[0].format));
		m->metrics[mt->nr].why[0] = '\0';
		mt->nr++;
	}
	m->nr_metrics = mt->nr;
	return mt->nr;
}

int metrics_setup_preset(struct metrics *mt, const struct preset_resolved *pr,
                         const char (*names)[128], int nr_events, struct model *m)
{
	memset(mt, 0, sizeof(*mt));
	for (int k = 0; k < pr->nr_metrics && mt->nr < MODEL_MAX_METRICS; k++) {
		const struct preset_resolved_metric *rm = &pr->metric[k];
		struct model_metric *out = &m->metrics[mt->nr];

		mt->m[mt->nr].is_expr = true;
		mt->m[mt->nr].available = rm->available;
		mt->m[mt->nr].expr = rm->m.expr;
		for (int v = 0; v < rm->m.expr.nr_vars; v++) {
			mt->m[mt->nr].var_event[v] = -1;
			for (int i = 0; i < nr_events; i++)
				if (!strcmp(rm->m.expr.var[v], names[i]))
					mt->m[mt->nr].var_event[v] = i;
		}
		util_strlcpy(out->name, rm->m.name, sizeof(out->name));
		util_strlcpy(out->title, rm->m.title[0] ? rm->m.title : rm->m.name,
		             sizeof(out->title));
		util_strlcpy(out->unit, rm->m.unit, sizeof(out->unit));
		util_strlcpy(out->format, rm->m.format[0] ? rm->m.format : "%.2f",
		             sizeof(out->format));
		util_strlcpy(out->why, rm->available ? "" : rm->why, sizeof(out->why));
		mt->nr++;
	}
	m->nr_metrics = mt->nr;
	return mt->nr;
}

struct eval_ctx {
	const int *var_event;
	const struct model_row *r;
};

static double lookup(int var, const char *name, void *arg)
{
	const struct eval_ctx *c = arg;
	int i = c->var_event[var];

	if (i < 0 || !cells_counted(&c->r->cells[i]))
		return NAN;
	return c->r->cells[i].value;
}

void metrics_compute(const struct metrics *mt, struct model_row *r)
{
	for (int k = 0; k < mt->nr; k++) {
		if (mt->m[k].is_expr) {
			struct eval_ctx c = {mt->m[k].var_event, r};
			r->metrics[k] =
			    mt->m[k].available ? expr_eval(&mt->m[k].expr, lookup, &c) : NAN;
			continue;
		}
		const struct counter_value *n = &r->cells[mt->m[k].num],
		                           *d = &r->cells[mt->m[k].den];
		r->metrics[k] = cells_counted(n) && cells_counted(d) && d->value > 0
		                    ? n->value / d->value * mt->m[k].mult
		                    : NAN;
	}
}
