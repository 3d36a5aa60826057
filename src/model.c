/* model: plain data that the TUI and the snapshot writer both render. */
#include "model.h"

#include "cells.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

static double round_pct(double p)
{
	return isfinite(p) ? round(p * 1000.0) / 1000.0 : p;
}

void model_round(struct model *m)
{
	for (int i = 0; i < m->nr_cpus; i++) {
		struct model_row *c = &m->cpus[i];
		c->cpu_pct = round_pct(c->cpu_pct);
		c->user_pct = round_pct(c->user_pct);
		c->sys_pct = round_pct(c->sys_pct);
		c->other_pct = round_pct(c->other_pct);
	}
	for (int i = 0; i < m->nr_tasks; i++)
		m->tasks[i].cpu_pct = round_pct(m->tasks[i].cpu_pct);
	for (int i = 0; i < m->nr_cgroups; i++)
		m->cgroups[i].cpu_pct = round_pct(m->cgroups[i].cpu_pct);
	m->total.cpu_pct = round_pct(m->total.cpu_pct);
	m->unattributed.cpu_pct = round_pct(m->unattributed.cpu_pct);
	for (int i = 0; i < m->nr_hot; i++)
		m->hot[i].share = round_pct(m->hot[i].share);
	m->sampling.hot_other.share = round_pct(m->sampling.hot_other.share);
}

struct model model_cut_hot(const struct model *from, int n)
{
	struct model c = *from, *m = &c;
	struct model_sampling *s = &m->sampling;
	uint64_t weight = 0, samples = 0;

	if (n < 0 || n >= m->nr_hot)
		return c;
	m->nr_hot = n;
	for (int i = 0; i < n; i++) {
		weight += m->hot[i].weight;
		samples += m->hot[i].samples;
	}
	/* as the profile makes "other": what the rows kept leave of the total */
	s->hot_other.weight = s->total_weight > weight ? s->total_weight - weight : 0;
	s->hot_other.samples = s->total_samples > samples ? s->total_samples - samples : 0;
	s->hot_other.rows = m->hot_total > n ? m->hot_total - n : 0;
	s->hot_other.share = round_pct(
	    s->total_weight ? 100.0 * (double)s->hot_other.weight / (double)s->total_weight : 0.0);
	return c;
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
	r->user_pct = r->sys_pct = r->other_pct = NAN;
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
	if (!m->events || row_alloc(m, &m->total) || row_alloc(m, &m->unattributed))
		return -ENOMEM;
	model_row_reset(m, &m->total);
	m->total.kind = MODEL_ROW_TOTAL;
	model_row_reset(m, &m->unattributed);
	m->unattributed.kind = MODEL_ROW_TOTAL;
	m->top_n = 10;
	m->mono_ns = MODEL_MONO_UNKNOWN;
	m->load[0] = m->load[1] = m->load[2] = NAN;
	m->tasks_running = m->tasks_all = -1;
	m->cpu_min = -1;
	m->sampling.filter_pid = -1;
	m->sampling.filter_cpu = -1;
	m->sort = MODEL_SORT_CPU;
	snprintf(m->sort_name, sizeof(m->sort_name), "CPU%%");
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
	rows_free(m->cgroups, m->cap_cgroups);
	row_free(&m->total);
	row_free(&m->unattributed);
	free(m->events);
	free(m->hot);
	free(m->paths);
	free(m->frames);
	free(m->frame_names);
	free(m->sampling.rings);
	free(m->annot.lines);
	memset(m, 0, sizeof(*m));
}

void model_clear_rows(struct model *m)
{
	m->nr_cpus = 0;
	m->nr_tasks = 0;
	m->nr_cgroups = 0;
	m->tasks_total = 0;
	model_row_reset(m, &m->total);
	m->total.kind = MODEL_ROW_TOTAL;
	model_row_reset(m, &m->unattributed);
	m->unattributed.kind = MODEL_ROW_TOTAL;
	m->has_unattributed = false;
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

struct model_row *model_add_cgroup(struct model *m)
{
	struct model_row *r = add_row(m, &m->cgroups, &m->nr_cgroups, &m->cap_cgroups);

	if (r)
		r->kind = MODEL_ROW_CGROUP;
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

static double sort_value(const struct model *m, const struct model_row *r)
{
	if (m->sort == MODEL_SORT_CPU)
		return r->cpu_pct;
	if (m->sort >= MODEL_SORT_METRIC)
		return r->metrics[m->sort - MODEL_SORT_METRIC];
	if (m->sort >= 0) {
		const struct counter_value *v = &r->cells[m->sort];
		return cells_counted(v) ? v->value : NAN;
	}
	return NAN;
}

static int cmp_task(const void *pa, const void *pb, void *arg)
{
	const struct model_row *a = pa, *b = pb;
	const struct model *m = arg;

	if (m->sort == MODEL_SORT_COMMAND) {
		int c = cells_cmp_names(a->comm, b->comm);
		if (c)
			return c;
	} else if (m->sort != MODEL_SORT_PID) {
		double x = sort_value(m, a), y = sort_value(m, b);
		bool na = isnan(x), nb = isnan(y);
		if (na != nb)
			return na - nb;
		if (!na && x != y)
			return x < y ? 1 : -1;
	}
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

void model_sort_tasks(struct model *m)
{
	if (m->nr_tasks)
		qsort_r(m->tasks, (size_t)m->nr_tasks, sizeof(*m->tasks), cmp_task, m);
}

int model_parse_sort(struct model *m, const char *name)
{
	static const struct {
		const char *name;
		int sort;
	} fixed[] = {{"cpu", MODEL_SORT_CPU},
	             {"cpu%", MODEL_SORT_CPU},
	             {"pid", MODEL_SORT_PID},
	             {"command", MODEL_SORT_COMMAND},
	             {"comm", MODEL_SORT_COMMAND}};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (!strcasecmp(name, fixed[i].name)) {
			m->sort = fixed[i].sort;
			goto found;
		}
	}
	for (int i = 0; i < m->nr_events; i++) {
		if (!strcmp(name, m->events[i].name)) {
			m->sort = i;
			goto found;
		}
	}
	for (int k = 0; k < m->nr_metrics; k++) {
		if (!strcasecmp(name, m->metrics[k].name)) {
			m->sort = MODEL_SORT_METRIC + k;
			goto found;
		}
	}
	return -EINVAL;
found:
	snprintf(m->sort_name, sizeof(m->sort_name), "%s",
	         m->sort == MODEL_SORT_CPU ? "CPU%" : name);
	return 0;
}

struct model_hotspot *model_add_hotspot(struct model *m)
{
	if (util_grow(&m->hot, m->nr_hot, &m->cap_hot, sizeof(*m->hot), 32))
		return NULL;
	struct model_hotspot *h = &m->hot[m->nr_hot++];
	memset(h, 0, sizeof(*h));
	h->tid = -1;
	h->cpu = -1;
	h->processes = 1;
	h->children = h->self = NAN;
	return h;
}

struct model_callpath *model_add_path(struct model *m, int nr)
{
	if (nr < 0 || nr > 4096 ||
	    util_grow(&m->paths, m->nr_paths, &m->cap_paths, sizeof(*m->paths), 16))
		return NULL;
	while (m->nr_frames + nr > m->cap_frames)
		if (util_grow(&m->frames, m->cap_frames, &m->cap_frames, sizeof(*m->frames), 64))
			return NULL;
	if (!m->nr_frames)
		m->nr_frame_names = 0; /* a new set of paths */
	struct model_callpath *p = &m->paths[m->nr_paths++];
	memset(p, 0, sizeof(*p));
	p->first = m->nr_frames;
	p->nr = nr;
	memset(&m->frames[p->first], 0, (size_t)nr * sizeof(*m->frames));
	m->nr_frames += nr;
	return p;
}

uint32_t model_frame_name(struct model *m, const char *name, size_t max)
{
	const size_t n = max ? strnlen(name, max - 1) : 0;
	uint32_t off;

	if (!n)
		return 0;
	if (!m->nr_frame_names)
		m->nr_frame_names = 1; /* offset 0 is "" */
	if (m->nr_frame_names + n + 1 > m->cap_frame_names) {
		size_t cap = m->cap_frame_names ? m->cap_frame_names * 2 : 4096;
		char *b;

		while (cap < m->nr_frame_names + n + 1)
			cap *= 2;
		if (cap > UINT32_MAX || !(b = realloc(m->frame_names, cap)))
			return 0;
		b[0] = '\0';
		m->frame_names = b;
		m->cap_frame_names = cap;
	}
	off = (uint32_t)m->nr_frame_names;
	memcpy(m->frame_names + off, name, n);
	m->frame_names[off + n] = '\0';
	m->nr_frame_names += n + 1;
	return off;
}

static const char *frame_text(const struct model *m, uint32_t off)
{
	return off && off < m->nr_frame_names ? m->frame_names + off : "";
}

const char *model_frame_symbol(const struct model *m, const struct model_frame *f)
{
	return frame_text(m, f->symbol);
}

const char *model_frame_module(const struct model *m, const struct model_frame *f)
{
	return frame_text(m, f->module);
}

struct model_ring *model_add_ring(struct model *m)
{
	struct model_sampling *s = &m->sampling;

	if (util_grow(&s->rings, s->nr_rings, &s->cap_rings, sizeof(*s->rings), 8))
		return NULL;
	struct model_ring *r = &s->rings[s->nr_rings++];
	memset(r, 0, sizeof(*r));
	return r;
}
