/* model: plain data that the TUI and the snapshot writer both render. */
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int row_alloc(const struct model *m, struct model_row *r)
{
	r->cells = calloc((size_t)m->nr_events + 1, sizeof(*r->cells));
	r->metrics = calloc(MODEL_MAX_METRICS, sizeof(*r->metrics));
	return r->cells && r->metrics ? 0 : -ENOMEM;
}

static void row_free(struct model_row *r)
{
	free(r->cells);
	free(r->metrics);
}

void model_row_reset(const struct model *m, struct model_row *r)
{
	struct counter_value *cells = r->cells;
	double *metrics = r->metrics;

	memset(r, 0, sizeof(*r));
	r->cells = cells;
	r->metrics = metrics;
	r->cpu = -1;
	r->cpu_pct = NAN;
	for (int i = 0; i < m->nr_events; i++)
		cells[i] = (struct counter_value){.value = NAN, .state = COUNTER_NOT_COUNTED};
	for (size_t i = 0; i < MODEL_MAX_METRICS; i++)
		metrics[i] = NAN;
}

int model_init(struct model *m, int nr_events)
{
	memset(m, 0, sizeof(*m));
	m->nr_events = nr_events;
	m->events = calloc((size_t)nr_events + 1, sizeof(*m->events));
	if (!m->events || row_alloc(m, &m->total))
		return -ENOMEM;
	model_row_reset(m, &m->total);
	m->total.kind = MODEL_ROW_TOTAL;
	m->top_n = 10;
	m->cpu_min = -1;
	return 0;
}

static void rows_free(struct model_row *rows, int cap)
{
	for (int i = 0; i < cap; i++)
		row_free(&rows[i]);
	free(rows);
}

void model_fini(struct model *m)
{
	rows_free(m->cpus, m->cap_cpus);
	rows_free(m->tasks, m->cap_tasks);
	row_free(&m->total);
	free(m->events);
	free(m->hot);
	free(m->sampling.rings);
	memset(m, 0, sizeof(*m));
}

void model_clear_rows(struct model *m)
{
	m->nr_cpus = 0;
	m->nr_tasks = 0;
	m->tasks_total = 0;
	model_row_reset(m, &m->total);
	m->total.kind = MODEL_ROW_TOTAL;
}

static struct model_row *add_row(struct model *m, struct model_row **rows, int *nr, int *cap)
{
	if (*nr == *cap) {
		int ncap = *cap ? *cap * 2 : 16;
		struct model_row *n = realloc(*rows, (size_t)ncap * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + *cap, 0, (size_t)(ncap - *cap) * sizeof(*n));
		for (int i = *cap; i < ncap; i++) {
			if (row_alloc(m, &n[i])) {
				*rows = n;
				return NULL;
			}
		}
		*rows = n;
		*cap = ncap;
	}
	struct model_row *r = &(*rows)[(*nr)++];
	model_row_reset(m, r);
	return r;
}

struct model_row *model_add_cpu(struct model *m)
{
	struct model_row *r = add_row(m, &m->cpus, &m->nr_cpus, &m->cap_cpus);

	if (r)
		r->kind = MODEL_ROW_CPU;
	return r;
}

struct model_row *model_add_task(struct model *m)
{
	struct model_row *r = add_row(m, &m->tasks, &m->nr_tasks, &m->cap_tasks);

	if (r)
		r->kind = MODEL_ROW_PROCESS;
	return r;
}

void model_note(struct model *m, const char *fmt, ...)
{
	va_list ap;

	if (m->nr_notes == (int)(sizeof(m->notes) / sizeof(m->notes[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(m->notes[m->nr_notes++], sizeof(m->notes[0]), fmt, ap);
	va_end(ap);
}

static int cmp_task(const void *pa, const void *pb)
{
	const struct model_row *a = pa, *b = pb;
	bool na = isnan(a->cpu_pct), nb = isnan(b->cpu_pct);

	if (na != nb)
		return na - nb;
	if (!na && a->cpu_pct != b->cpu_pct)
		return a->cpu_pct < b->cpu_pct ? 1 : -1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

void model_sort_tasks(struct model *m)
{
	qsort(m->tasks, (size_t)m->nr_tasks, sizeof(*m->tasks), cmp_task);
}

struct model_hotspot *model_add_hotspot(struct model *m)
{
	if (m->nr_hot == m->cap_hot) {
		int cap = m->cap_hot ? m->cap_hot * 2 : 32;
		struct model_hotspot *h = realloc(m->hot, (size_t)cap * sizeof(*h));
		if (!h)
			return NULL;
		m->hot = h;
		m->cap_hot = cap;
	}
	struct model_hotspot *h = &m->hot[m->nr_hot++];
	memset(h, 0, sizeof(*h));
	return h;
}

struct model_ring *model_add_ring(struct model *m)
{
	struct model_sampling *s = &m->sampling;

	if (s->nr_rings == s->cap_rings) {
		int cap = s->cap_rings ? s->cap_rings * 2 : 8;
		struct model_ring *r = realloc(s->rings, (size_t)cap * sizeof(*r));
		if (!r)
			return NULL;
		s->rings = r;
		s->cap_rings = cap;
	}
	struct model_ring *r = &s->rings[s->nr_rings++];
	memset(r, 0, sizeof(*r));
	return r;
}
