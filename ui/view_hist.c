/* view_hist: each CPU and task row's last intervals (ui/rowhist.c), fed
 * from the live stream only, drawn as the HIST sparkline column, and the
 * numbers that changed since the refresh before. */
#include "view_priv.h"

#include "cells.h"
#include "rowhist.h"
#include "spark.h"
#include "util.h"
#include "view_hist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct view_hist *view_hist_get(struct view *v)
{
	struct view_hist *h = v->hist;

	if (h)
		return h;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->cpus = rowhist_new(1, ROWHIST_LEN, ROWHIST_FORGET);
	h->tasks = rowhist_new(1, ROWHIST_LEN, ROWHIST_FORGET);
	if (!h->cpus || !h->tasks) {
		rowhist_free(h->cpus);
		rowhist_free(h->tasks);
		free(h);
		return NULL;
	}
	h->series = -1;
	h->utf8 = spark_utf8_locale();
	procfs_init(&h->pf, NULL);
	v->hist = h;
	return h;
}

void view_hist_free(struct view *v)
{
	struct view_hist *h = v->hist;

	if (!h)
		return;
	rowhist_free(h->cpus);
	rowhist_free(h->tasks);
	procfs_close(&h->pf);
	free(h);
	v->hist = NULL;
}

int view_hist_nseries(const struct model *m)
{
	return 1 + m->nr_events + m->nr_metrics;
}

void view_hist_series_name(const struct model *m, int s, char *buf, size_t len)
{
	if (s <= 0 || s >= view_hist_nseries(m))
		util_strlcpy(buf, "CPU%", len);
	else if (s <= m->nr_events)
		util_strlcpy(buf, m->events[s - 1].name, len);
	else
		snprintf(buf, len, "%s",
		         m->metrics[s - 1 - m->nr_events].title[0]
		             ? m->metrics[s - 1 - m->nr_events].title
		             : m->metrics[s - 1 - m->nr_events].name);
}

/* What the series are: a preset or a row kind of its own starts again. */
static uint64_t signature(const struct model *m)
{
	uint64_t h = 1469598103934665603ull;
	const char *s;

	for (int i = 0; i < view_hist_nseries(m); i++) {
		char name[128];
		view_hist_series_name(m, i, name, sizeof(name));
		for (s = name; *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211ull;
		h = (h ^ 0xff) * 1099511628211ull;
	}
	return h ^ (uint64_t)view_thread_rows(m) << 63;
}

/* Counters are kept in the unit shown (ms, not ns): a model read back
 * from the history or a recording carries them so. */
static double unit_scale(const struct model_event *e)
{
	return e->scale > 0 ? e->scale : 1.0;
}

static void fill(const struct model *m, const struct model_row *r, float *e)
{
	if (!e)
		return;
	e[0] = (float)r->cpu_pct;
	for (int i = 0; i < m->nr_events && r->cells; i++)
		if (cells_counted(&r->cells[i]))
			e[1 + i] = (float)(r->cells[i].value * unit_scale(&m->events[i]));
	for (int k = 0; k < m->nr_metrics && r->metrics; k++)
		if (isfinite(r->metrics[k]))
			e[1 + m->nr_events + k] = (float)r->metrics[k];
}

/* The ids of view_table.c's row_id(): CPUs by number, tasks by pid and
 * tid, the summary rows below 0. */
static int64_t task_id(const struct model_row *t)
{
	return (int64_t)t->pid << 32 | (uint32_t)t->tid;
}

void view_hist_feed(struct view *v, const struct model *m)
{
	struct view_hist *h;
	uint64_t sig;

	if (!m || m->final || !(h = view_hist_get(v)) || m->wall_ns <= h->fed_ns)
		return; /* a model seen already, an older one (the history), or
		         * the totals since the start (not an interval) */
	h->fed_ns = m->wall_ns;
	sig = signature(m);
	if (sig != h->sig) {
		rowhist_reset(h->cpus, view_hist_nseries(m));
		rowhist_reset(h->tasks, view_hist_nseries(m));
		h->sig = sig;
		h->series = -1;
	}
	rowhist_begin(h->cpus);
	for (int i = 0; i < m->nr_cpus; i++)
		fill(m, &m->cpus[i], rowhist_push(h->cpus, m->cpus[i].cpu, 0));
	fill(m, &m->total, rowhist_push(h->cpus, -1, 0));
	rowhist_end(h->cpus);
	rowhist_begin(h->tasks);
	for (int i = 0; i < m->nr_tasks; i++)
		fill(m, &m->tasks[i],
		     rowhist_push(h->tasks, task_id(&m->tasks[i]), m->tasks[i].start));
	fill(m, &m->total, rowhist_push(h->tasks, ROW_TOTAL, 0));
	if (m->has_unattributed)
		fill(m, &m->unattributed, rowhist_push(h->tasks, ROW_UNATTRIBUTED, 0));
	rowhist_end(h->tasks);
}

static struct rowhist *store(const struct view *v, int64_t *id, int r)
{
	if (!v->hist || !v->m)
		return NULL;
	if (v->kind == VIEW_CPUS) {
		*id = r < 0 ? -1 : v->m->cpus[r].cpu;
		return v->hist->cpus;
	}
	if (view_table_kind(v) == VIEW_TASKS) {
		*id = r < 0 ? r : task_id(&v->m->tasks[r]);
		return v->hist->tasks;
	}
	return NULL;
}

int view_hist_series_of_col(const struct view *v, const struct col *c)
{
	if (!c)
		return -1;
	switch (c->kind) {
	case C_CPUPCT:
		return 0;
	case C_EVENT:
		return 1 + c->index;
	case C_METRIC:
		return 1 + v->m->nr_events + c->index;
	default:
		return -1;
	}
}

int view_hist_series(const struct view *v)
{
	int s;

	if (v->hist && v->hist->series >= 0 && v->hist->series < view_hist_nseries(v->m))
		return v->hist->series;
	s = view_hist_series_of_col(v, view_sort_col(v));
	return s >= 0 ? s : 0;
}

const char *view_hist_title(const struct view *v, char *buf, size_t len)
{
	char name[128];

	if (!v->hist || v->hist->series < 0) {
		util_strlcpy(buf, "HIST", len);
	} else { /* the counter it shows, elided to the column (12) */
		view_hist_series_name(v->m, view_hist_series(v), name, sizeof(name));
		cells_elide(name, 12, buf, len);
	}
	return buf;
}

void view_hist_cell(struct view *v, int y, int x, int width, int r, enum theme_slot slot)
{
	float vals[ROWHIST_LEN];
	char buf[SPARK_BYTES(ROWHIST_LEN)];
	int64_t id = 0;
	struct rowhist *h = store(v, &id, r);
	int n = 0;

	if (width > ROWHIST_LEN)
		width = ROWHIST_LEN;
	if (x + width > COLS)
		width = COLS - x;
	if (width <= 0)
		return;
	if (h)
		n = rowhist_get(h, id, view_hist_series(v), vals, width, NULL);
	spark_line(vals, n, width, v->hist && v->hist->utf8, buf, sizeof(buf));
	view_use(v, slot);
	mvaddstr(y, x, buf);
}

bool view_hist_changed(const struct view *v, int r, const struct col *c, int width,
                       const char *text)
{
	float vals[2];
	char before[CELL];
	int64_t id = 0;
	struct rowhist *h = store(v, &id, r);
	int s = view_hist_series_of_col(v, c);
	bool fresh;

	/* Only on the newest model fed: its rows' last two entries are now
	 * and the refresh before (not when looking back in the history). */
	if (!h || s < 0 || v->m->wall_ns != v->hist->fed_ns)
		return false;
	if (rowhist_get(h, id, s, vals, 2, &fresh) < 2 || !fresh)
		return false;
	if (isnan(vals[0]) || isnan(vals[1]))
		return isnan(vals[0]) != isnan(vals[1]);
	if (vals[0] == vals[1])
		return false;
	/* As the cell shows it: 12.3M and 12.3M have not changed. */
	double x = c->kind == C_EVENT ? vals[0] / unit_scale(&v->m->events[c->index]) : vals[0];
	if (!view_cell_as(v, r, c, x, width, before, sizeof(before)))
		return false;
	return strcmp(before, text) != 0;
}

unsigned view_hist_key_series(struct view *v)
{
	struct view_hist *h = view_hist_get(v);
	char name[128];
	int n;

	if (!h || !v->m || (v->kind != VIEW_CPUS && view_table_kind(v) != VIEW_TASKS)) {
		snprintf(v->status, sizeof(v->status),
		         "y: what the HIST column of CPUs and Tasks shows");
		return VIEW_REDRAW;
	}
	n = view_hist_nseries(v->m);
	/* The next series that counts, then back to the sort column's. */
	for (h->series++; h->series > 0 && h->series < n; h->series++) {
		int e = h->series - 1;
		if (e >= v->m->nr_events || cells_state_counted(v->m->events[e].state))
			break;
	}
	if (h->series >= n)
		h->series = -1;
	view_hist_series_name(v->m, view_hist_series(v), name, sizeof(name));
	snprintf(v->status, sizeof(v->status), "HIST shows %s%s (y: the next)", name,
	         h->series < 0 ? ", the sort column's" : "");
	return VIEW_REDRAW;
}
