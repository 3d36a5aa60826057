/* metrics: derived ratios (IPC, miss rates) from events counted in one group. */
#include "metrics.h"

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
		util_strlcpy(m->metrics[mt->nr].unit, builtin[k].unit, sizeof(m->metrics[0].unit));
		mt->nr++;
	}
	m->nr_metrics = mt->nr;
	return mt->nr;
}

static bool counted(const struct counter_value *v)
{
	return v->state == COUNTER_OK || v->state == COUNTER_MULTIPLEXED;
}

void metrics_compute(const struct metrics *mt, struct model_row *r)
{
	for (int k = 0; k < mt->nr; k++) {
		const struct counter_value *n = &r->cells[mt->m[k].num], *d = &r->cells[mt->m[k].den];
		r->metrics[k] = counted(n) && counted(d) && d->value > 0
					? n->value / d->value * mt->m[k].mult
					: NAN;
	}
}
