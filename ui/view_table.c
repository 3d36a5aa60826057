/* view_table: the rows and columns of a view: which columns, each cell's
 * text, the filter, the sort order and the selection kept across refreshes. */
#include "view_priv.h"

#include "cells.h"
#include "format.h"
#include "meter.h"
#include "snapshot.h"
#include "theme.h"
#include "untrusted.h"
#include "util.h"
#include "view_hist.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- columns ---- */

static void add_col(struct view *v, enum col_kind k, int index, const char *title, int width,
                    int prio, bool left, bool flex)
{
	struct col *c;

	if (v->nr_cols == FORMAT_MAX_COLUMNS)
		return;
	c = &v->cols[v->nr_cols++];
	memset(c, 0, sizeof(*c));
	c->kind = k;
	c->index = index;
	util_strlcpy(c->title, title, sizeof(c->title));
	c->f = (struct format_column){c->title, width, prio, left, flex, (int)strlen(title), 0};
	c->text = left;
}

static bool any_multiplexed(const struct model *m, int ev)
{
	return m->events[ev].state == COUNTER_MULTIPLEXED;
}

static int nr_rows(const struct view *v);
static const struct model_row *row_of(const struct view *v, int r);

/* Whether event ev is n/s (or err) on every row of the table that was
 * counted (rows without counters, n/c, say nothing about it). */
static bool nsup_everywhere(const struct view *v, int ev)
{
	int n = nr_rows(v), nsup = 0;

	if (view_table_kind(v) == VIEW_EVENTS || view_table_kind(v) == VIEW_HOTSPOTS)
		return false;
	for (int r = ROW_TOTAL; r < n; r++) {
		enum counter_state st = row_of(v, r)->cells[ev].state;
		if (cells_state_counted(st))
			return false;
		nsup += st == COUNTER_UNSUPPORTED || st == COUNTER_ERROR;
	}
	return nsup > 0;
}

/* A counter shown per second as utilisation: the clocks (ms per second). */
static bool clock_event(const struct model_event *e)
{
	return !strcmp(e->unit, "ms") &&
	       (!strcmp(e->name, "task-clock") || !strcmp(e->name, "cpu-clock"));
}

/* An event's title: with its unit, per second unless R shows totals. */
static void event_title(const struct view *v, const struct model_event *e, const char *name,
                        char *buf, size_t len)
{
	if (v->totals)
		snprintf(buf, len, e->unit[0] ? "%s(%s)" : "%s", name, e->unit);
	else if (clock_event(e))
		snprintf(buf, len, "%s%%", name);
	else
		snprintf(buf, len, e->unit[0] ? "%s %s/s" : "%s/s", name, e->unit);
}

static void hide(struct view *v, const char *name)
{
	size_t n = strlen(v->hidden);

	snprintf(v->hidden + n, sizeof(v->hidden) - n, "%s%s", n ? " " : "", name);
}

/* Column k, index i is what the view sorts by: never hidden, so that the
 * order shown has its column. */
static bool sorted_by(const struct view *v, enum col_kind k, int i)
{
	const struct sort_key *s = &v->sort[v->kind];

	return s->kind == k && s->index == i;
}

static void counter_cols(struct view *v, int prio)
{
	const struct model *m = v->m;
	char title[192], brief[192];
	int nhidden = 0, pmu = 0;

	for (int i = 0; i < m->nr_events; i++) {
		const struct model_event *e = &m->events[i];
		int w;
		bool nsup = e->state == COUNTER_UNSUPPORTED || e->state == COUNTER_ERROR;
		if (nsup && nsup_everywhere(v, i) && !sorted_by(v, C_EVENT, i)) {
			hide(v, e->name);
			nhidden++;
			pmu += strstr(e->why, "no hardware PMU") != NULL;
			if (!v->show_nsup)
				continue;
		}
		event_title(v, e, e->name, title, sizeof(title));
		const char *b = cells_brief_name(e->name);
		brief[0] = '\0';
		if (b)
			event_title(v, e, b, brief, sizeof(brief));
		w = (int)strlen(brief[0] ? brief : title);
		if (w < (any_multiplexed(m, i) ? 11 : 7))
			w = any_multiplexed(m, i) ? 11 : 7;
		/* Columns of n/s are the first to go: the Events view says
		 * why they do not count. */
		add_col(v, C_EVENT, i, title, w, nsup ? 50 + i : prio + i, false, false);
		util_strlcpy(v->cols[v->nr_cols - 1].brief, brief, sizeof(v->cols[0].brief));
	}
	for (int k = 0; k < m->nr_metrics; k++) {
		const struct model_metric *mm = &m->metrics[k];
		int w;
		bool none = nhidden > 0 && nr_rows(v) > 0;
		for (int r = ROW_TOTAL; none && r < nr_rows(v); r++)
			none = r == ROW_UNATTRIBUTED || isnan(row_of(v, r)->metrics[k]);
		snprintf(title, sizeof(title), "%s%s", mm->title[0] ? mm->title : mm->name,
		         mm->unit);
		if (none && !sorted_by(v, C_METRIC, k)) { /* a ratio of columns that do not count */
			hide(v, title);
			if (!v->show_nsup)
				continue;
		}
		w = (int)strlen(title);
		w = w < 7 ? 7 : w > 12 ? 12 : w;
		add_col(v, C_METRIC, k, title, w, prio + k, false, false);
	}
	if (nhidden)
		snprintf(v->hidden_why, sizeof(v->hidden_why), "not supported on this machine%s",
		         pmu == nhidden ? " (no hardware PMU)" : " (the Events view says why)");
}

bool view_thread_rows(const struct model *m)
{
	return m->nr_tasks && m->tasks[0].kind == MODEL_ROW_THREAD;
}

void view_build_cols(struct view *v)
{
	const struct model *m = v->m;
	char title[64];

	v->nr_cols = 0;
	v->hidden[0] = v->hidden_why[0] = '\0';
	switch (view_table_kind(v)) {
	case VIEW_CPUS:
		add_col(v, C_CPU, 0, "CPU", 4, 0, false, false);
		add_col(v, C_CPUPCT, 0, "CPU%", 6, 1, false, false);
		add_col(v, C_HIST, 0, view_hist_title(v, title, sizeof(title)), 12, 3, false,
		        false);
		if (m->mode == MODEL_SYSTEM)
			counter_cols(v, 2);
		break;
	case VIEW_TASKS:
		add_col(v, C_PID, 0, view_thread_rows(m) ? "TID" : "PID", 7, 0, false, false);
		add_col(v, C_USER, 0, "USER", 9, 40, true, false);
		add_col(v, C_CPUPCT, 0, "CPU%", 6, 0, false, false);
		add_col(v, C_HIST, 0, view_hist_title(v, title, sizeof(title)), 12, 3, false,
		        false);
		add_col(v, C_THR, 0, view_thread_rows(m) ? "PID" : "THR", 5, 41, false, false);
		if (m->tasks_counted)
			counter_cols(v, 2);
		add_col(v, C_STATE, 0, "STATE", 10, 42, true, false);
		add_col(v, C_COMMAND, 0, "COMMAND", 16, 0, true, true);
		break;
	case VIEW_HOTSPOTS:
		if (!v->hot_sort_picked) /* children mode ranks by children, as the model does */
			v->sort[VIEW_HOTSPOTS] = (struct sort_key){
			    m->sampling.callchain ? C_CHILDREN : C_SHARE, 0, false};
		add_col(v, C_SHARE, 0, "SHARE", 6, 0, false, false);
		if (m->sampling.callchain) {
			add_col(v, C_CHILDREN, 0, "CHILDREN", 8, 0, false, false);
			add_col(v, C_SELF, 0, "SELF", 6, 0, false, false);
		}
		add_col(v, C_SAMPLES, 0, "SAMPLES", 7, 3, false, false);
		add_col(v, C_HPID, 0, "PID", 7, 4, false, false);
		add_col(v, C_HCOMM, 0, "COMMAND", 15, 2, true, false);
		add_col(v, C_SYMBOL, 0, "SYMBOL", 20, 0, true, true);
		add_col(v, C_MODULE, 0, "MODULE", 18, 1, true, false);
		break;
	case VIEW_EVENTS:
		add_col(v, C_EVNAME, 0, "EVENT", 22, 0, true, false);
		add_col(v, C_EVSTATE, 0, "STATE", 13, 0, true, false);
		add_col(v, C_EVCOV, 0, "COVERAGE", 8, 1, false, false);
		add_col(v, C_EVWHY, 0, "ENCODING, OR WHY IT DOES NOT COUNT", 20, 0, true, true);
		break;
	case VIEW_OVERVIEW:
	case VIEW_NR_KINDS:
		break;
	}
	view_setup_apply(v); /* F2: shown, order, widths */
	struct format_column fc[FORMAT_MAX_COLUMNS];
	int key[3] = {(int)v->kind, v->nr_cols, COLS};
	if (memcmp(key, v->want_key, sizeof(key))) {
		memcpy(v->want_key, key, sizeof(key));
		memset(v->want_seen, 0, sizeof(v->want_seen));
	}
	for (int i = 0; i < v->nr_cols; i++) {
		fc[i] = v->cols[i].f;
		fc[i].want = view_col_want(v, &v->cols[i]);
		if (fc[i].want < v->want_seen[i])
			fc[i].want = v->want_seen[i];
		v->want_seen[i] = fc[i].want;
		/* a counter with a short title reads whole at its width */
		fc[i].need = v->cols[i].brief[0] ? fc[i].width : 0;
		if (v->cols[i].kind == C_COMMAND) /* a command line needs some room */
			fc[i].need = 24;
	}
	format_layout(fc, v->nr_cols, COLS, v->x, v->w);
}

/* ---- cells ---- */

static const struct model_row *row_of(const struct view *v, int r)
{
	if (r == ROW_TOTAL)
		return &v->m->total;
	if (r == ROW_UNATTRIBUTED)
		return &v->m->unattributed;
	if (view_table_kind(v) == VIEW_CPUS)
		return &v->m->cpus[r];
	return &v->m->tasks[r];
}

/* A counter cell for the screen: per second (the clocks as utilisation)
 * unless R shows totals, in human units (K, M, G with one decimal). */
static enum theme_slot counter_cell(const struct view *v, const struct model_event *e,
                                    const struct counter_value *c, int width, char *buf, size_t len)
{
	double x = c->value * (e->scale > 0 ? e->scale : 1.0);
	double secs = v->m->interval_s;
	char num[32];

	if (!v->totals && secs > 0)
		x = clock_event(e) ? x / secs / 10.0 : x / secs; /* ms/s to % */
	switch (c->state) {
	case COUNTER_OK:
		meter_human(x, e->unit[0] || !v->totals ? 1 : 0, width, buf, len);
		break;
	case COUNTER_MULTIPLEXED:
		meter_human(x, e->unit[0] || !v->totals ? 1 : 0, width - 4, num, sizeof(num));
		snprintf(buf, len, "%s %2.0f%%", num, floor(c->coverage * 100.0));
		break;
	default: {
		const struct cells_style screen = {.width = width, .unit_decimals = 1};
		cells_counter(e, c, &screen, buf, len);
	}
	}
	switch (c->state) {
	case COUNTER_OK:
		return THEME_ROW;
	case COUNTER_MULTIPLEXED:
		return THEME_VALUE_MULTIPLEXED;
	case COUNTER_NOT_COUNTED:
		return THEME_VALUE_NOT_COUNTED;
	case COUNTER_UNSUPPORTED:
	case COUNTER_ERROR:
		return THEME_VALUE_UNSUPPORTED;
	}
	return THEME_ROW;
}

/* Text of one cell and its slot (THEME_ROW for plain). */
enum theme_slot view_cell(const struct view *v, int r, const struct col *c, int width, char *buf,
                          size_t len)
{
	const struct model *m = v->m;

	buf[0] = '\0';
	switch (c->kind) {
	case C_CPU:
		if (r < 0)
			util_strlcpy(buf, "all", len);
		else
			snprintf(buf, len, "%d", m->cpus[r].cpu);
		return r < 0 ? THEME_ROW_TOTAL : THEME_ROW;
	case C_CPUPCT:
		cells_pct(row_of(v, r)->cpu_pct, buf, len);
		return THEME_ROW;
	case C_EVENT:
		return counter_cell(v, &m->events[c->index], &row_of(v, r)->cells[c->index], width,
		                    buf, len);
	case C_METRIC: {
		double x = row_of(v, r)->metrics[c->index];
		if (isnan(x) || isinf(x)) {
			util_strlcpy(buf, "-", len);
			return THEME_VALUE_NOT_COUNTED;
		}
		cells_metric(&m->metrics[c->index], x, buf, len);
		return THEME_ROW;
	}
	case C_PID:
		if (r < 0)
			return THEME_ROW_TOTAL;
		snprintf(buf, len, "%d",
		         (int)(view_thread_rows(m) ? m->tasks[r].tid : m->tasks[r].pid));
		return THEME_ROW;
	case C_USER:
		if (r >= 0)
			util_strlcpy(buf, m->tasks[r].user, len);
		return THEME_ROW;
	case C_THR:
		if (r >= 0)
			snprintf(buf, len, "%d",
			         view_thread_rows(m) ? (int)m->tasks[r].pid
			                             : m->tasks[r].nr_threads);
		return THEME_ROW;
	case C_STATE: {
		if (r < 0)
			return THEME_ROW_TOTAL;
		const struct model_row *t = &m->tasks[r];
		util_strlcpy(buf,
		             t->exited    ? "exited"
		             : t->note[0] ? t->note
		             : t->counted ? "counted"
		                          : "-",
		             len);
		return t->counted ? THEME_ROW : THEME_ROW_DIM;
	}
	case C_COMMAND: {
		if (r < 0) {
			util_strlcpy(buf, r == ROW_TOTAL ? "total" : "(unattributed)", len);
			return THEME_ROW_TOTAL;
		}
		const char *pfx = view_ptree_prefix(v, r);
		size_t pl = strlen(pfx), keep = (size_t)(width / 2 / 3 * 3);
		if (pl > keep) /* a deep tree keeps the glyphs nearest the name */
			pfx += pl - keep;
		snprintf(buf, len, "%s%s", pfx,
		         view_cmdline((struct view *)v, r, width - (int)strlen(pfx)));
		return THEME_ROW;
	}
	case C_SHARE: {
		double s = m->hot[r].share;
		snprintf(buf, len, "%.1f%%", s);
		return s >= 10.0 ? THEME_HOT_HIGH : s >= 2.0 ? THEME_HOT_MID : THEME_HOT_LOW;
	}
	case C_CHILDREN:
	case C_SELF: {
		double s = c->kind == C_SELF ? m->hot[r].self : m->hot[r].children;
		if (isnan(s))
			util_strlcpy(buf, "-", len);
		else
			snprintf(buf, len, "%.1f%%", s);
		return THEME_ROW;
	}
	case C_SAMPLES:
		meter_human((double)m->hot[r].samples, 0, width, buf, len);
		return THEME_ROW;
	case C_HPID:
		if (m->hot[r].pid < 0)
			util_strlcpy(buf, "-", len);
		else
			snprintf(buf, len, "%d", (int)m->hot[r].pid);
		return THEME_ROW;
	case C_HCOMM:
		util_strlcpy(buf, m->hot[r].comm[0] ? m->hot[r].comm : "-", len);
		return THEME_ROW;
	case C_SYMBOL:
		cells_elide(m->hot[r].symbol[0] ? m->hot[r].symbol : "-", width, buf, len);
		return THEME_ROW;
	case C_MODULE:
		util_strlcpy(buf, m->hot[r].module[0] ? m->hot[r].module : "-", len);
		return THEME_ROW_DIM;
	case C_EVNAME:
		util_strlcpy(buf, m->events[r].name, len);
		return THEME_ROW;
	case C_EVSTATE: {
		enum counter_state st = m->events[r].state;
		util_strlcpy(buf, snapshot_state_name(st), len);
		return st == COUNTER_OK            ? THEME_ROW
		       : st == COUNTER_MULTIPLEXED ? THEME_VALUE_MULTIPLEXED
		       : st == COUNTER_NOT_COUNTED ? THEME_VALUE_NOT_COUNTED
		                                   : THEME_VALUE_UNSUPPORTED;
	}
	case C_EVCOV: {
		const struct model_event *e = &m->events[r];
		if (cells_state_counted(e->state))
			snprintf(buf, len, "%.1f%%", e->coverage * 100.0);
		else
			util_strlcpy(buf, "-", len);
		return e->state == COUNTER_MULTIPLEXED ? THEME_VALUE_MULTIPLEXED : THEME_ROW;
	}
	case C_EVWHY:
		util_strlcpy(buf, m->events[r].why[0] ? m->events[r].why : m->events[r].encoding,
		             len);
		return m->events[r].why[0] ? THEME_NOTE : THEME_ROW;
	case C_HIST: /* drawn by view_hist_cell() */
		return THEME_ROW;
	}
	return THEME_ROW;
}

bool view_cell_as(const struct view *v, int r, const struct col *c, double x, int width, char *buf,
                  size_t len)
{
	switch (c->kind) {
	case C_CPUPCT:
		cells_pct(x, buf, len);
		return true;
	case C_EVENT: {
		struct counter_value cv = row_of(v, r)->cells[c->index];
		cv.value = x;
		counter_cell(v, &v->m->events[c->index], &cv, width, buf, len);
		return true;
	}
	case C_METRIC: /* "-" for NaN and infinities */
		cells_metric(&v->m->metrics[c->index], x, buf, len);
		return true;
	default:
		return false;
	}
}

/* The width column c needs for its title and the cells of every row in
 * full (text columns; numbers: the title), at most 60. */
int view_col_want(const struct view *v, const struct col *c)
{
	int want = (int)strlen(c->title), n = nr_rows(v);
	char buf[CELL];

	if (c->kind == C_STATE || c->kind == C_MODULE || c->kind == C_HCOMM || c->kind == C_USER ||
	    c->kind == C_EVSTATE)
		for (int r = 0; r < n && want < 60; r++) {
			view_cell(v, r, c, CELL, buf, sizeof(buf));
			int w = untrusted_width(buf);
			want = w > want ? w : want;
		}
	return want > 60 ? 60 : want;
}

/* A number to sort by (NaN: not available, always last). */
static double cell_num(const struct view *v, int r, const struct col *c)
{
	const struct model *m = v->m;

	switch (c->kind) {
	case C_CPU:
		return m->cpus[r].cpu;
	case C_CPUPCT:
		return row_of(v, r)->cpu_pct;
	case C_EVENT: {
		const struct counter_value *cv = &row_of(v, r)->cells[c->index];
		return cells_counted(cv) ? cv->value : NAN;
	}
	case C_METRIC:
		return row_of(v, r)->metrics[c->index];
	case C_PID:
		return view_thread_rows(m) ? m->tasks[r].tid : m->tasks[r].pid;
	case C_THR:
		return view_thread_rows(m) ? m->tasks[r].pid : m->tasks[r].nr_threads;
	case C_SHARE:
		return m->hot[r].share;
	case C_CHILDREN:
		return m->hot[r].children;
	case C_SELF:
		return m->hot[r].self;
	case C_SAMPLES:
		return (double)m->hot[r].samples;
	case C_HPID:
		return m->hot[r].pid;
	case C_EVCOV:
		return cells_state_counted(m->events[r].state) ? m->events[r].coverage : NAN;
	default:
		return NAN;
	}
}

/* ---- rows: filter, sort, selection ---- */

static int nr_rows(const struct view *v)
{
	const struct model *m = v->m;

	switch (view_table_kind(v)) {
	case VIEW_CPUS:
		return m->nr_cpus;
	case VIEW_TASKS:
		return m->nr_tasks;
	case VIEW_HOTSPOTS:
		return m->nr_hot;
	case VIEW_EVENTS:
		return m->nr_events;
	default:
		return 0;
	}
}

bool view_row_matches(const struct view *v, int r, const char *text)
{
	const struct model *m = v->m;
	char num[16];

	if (!text[0])
		return true;
	switch (view_table_kind(v)) {
	case VIEW_CPUS:
		snprintf(num, sizeof(num), "%d", m->cpus[r].cpu);
		return !strcmp(num, text);
	case VIEW_TASKS:
		snprintf(num, sizeof(num), "%d", (int)m->tasks[r].pid);
		return strcasestr(m->tasks[r].comm, text) || strcasestr(m->tasks[r].user, text) ||
		       !strcmp(num, text);
	case VIEW_HOTSPOTS:
		return strcasestr(m->hot[r].symbol, text) || strcasestr(m->hot[r].module, text) ||
		       strcasestr(m->hot[r].comm, text);
	case VIEW_EVENTS:
		return strcasestr(m->events[r].name, text) != NULL;
	default:
		return true;
	}
}

static bool matches(const struct view *v, int r)
{
	if (view_table_kind(v) == VIEW_TASKS && v->user[0] && strcmp(v->m->tasks[r].user, v->user))
		return false; /* u */
	return view_row_matches(v, r, v->filter);
}

static int64_t row_id(const struct view *v, int r)
{
	const struct model *m = v->m;
	uint64_t h = 1469598103934665603ull;

	switch (view_table_kind(v)) {
	case VIEW_CPUS:
		return r < 0 ? -1 : m->cpus[r].cpu;
	case VIEW_TASKS:
		if (r < 0)
			return r; /* the summary rows: never a task's id (pid << 32 >= 0) */
		return (int64_t)m->tasks[r].pid << 32 | (uint32_t)m->tasks[r].tid;
	case VIEW_HOTSPOTS:
		if (r < 0)
			return r; /* a line of the call tree */
		for (const char *s = m->hot[r].symbol; *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211ull;
		return (int64_t)((h ^ (uint64_t)m->hot[r].pid) >> 1);
	default:
		return r;
	}
}

const struct col *view_sort_col(const struct view *v)
{
	const struct sort_key *k = &v->sort[v->kind];

	for (int i = 0; i < v->nr_cols; i++)
		if (v->cols[i].kind == k->kind && (v->cols[i].index == k->index || k->index < 0))
			return &v->cols[i];
	return NULL;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct view *v = arg;
	const struct col *c = view_sort_col(v);
	int a = *(const int *)pa, b = *(const int *)pb, d = 0;
	bool rev = v->sort[v->kind].reverse;

	if (!c || v->sort[v->kind].index < 0)
		return (a > b) - (a < b);
	if (c->text) {
		char ta[CELL], tb[CELL];
		view_cell(v, a, c, CELL, ta, sizeof(ta));
		view_cell(v, b, c, CELL, tb, sizeof(tb));
		d = cells_cmp_names(ta, tb);
	} else {
		double x = cell_num(v, a, c), y = cell_num(v, b, c);
		if (isnan(x) || isnan(y))
			return isnan(x) - isnan(y); /* not available: last either way */
		d = (x < y) - (x > y);              /* largest first */
		if (c->kind == C_CPU || c->kind == C_PID || c->kind == C_HPID)
			d = -d; /* identifiers ascend */
	}
	if (rev)
		d = -d;
	return d ? d : (a > b) - (a < b);
}

/* The model's --sort as the tasks view's first sort column. */
void view_task_sort_from_model(struct view *v)
{
	const struct model *m = v->m;
	struct sort_key *k = &v->sort[VIEW_TASKS];

	v->task_sort_from_model = false;
	if (m->sort == MODEL_SORT_PID)
		*k = (struct sort_key){C_PID, 0, false};
	else if (m->sort == MODEL_SORT_COMMAND)
		*k = (struct sort_key){C_COMMAND, 0, false};
	else if (m->sort >= MODEL_SORT_METRIC)
		*k = (struct sort_key){C_METRIC, m->sort - MODEL_SORT_METRIC, false};
	else if (m->sort >= 0)
		*k = (struct sort_key){C_EVENT, m->sort, false};
	else
		*k = (struct sort_key){C_CPUPCT, 0, false};
	v->sort[VIEW_OVERVIEW] = *k;
}

/* The expanded hotspot row's call tree, as lines after it. */
static void insert_tree(struct view *v)
{
	int at = -1, n;

	for (int i = 0; i < v->nr_idx && at < 0; i++)
		if (v->idx[i] >= 0 && row_id(v, v->idx[i]) == v->expanded_id)
			at = i;
	if (at < 0 || !(n = view_tree_build(v, v->idx[at])))
		return;
	if (v->nr_idx + n > v->cap_idx) {
		int *p = realloc(v->idx, (size_t)(v->nr_idx + n + 16) * sizeof(*p));
		if (!p)
			return;
		v->idx = p;
		v->cap_idx = v->nr_idx + n + 16;
	}
	memmove(&v->idx[at + 1 + n], &v->idx[at + 1], (size_t)(v->nr_idx - at - 1) * sizeof(int));
	for (int k = 0; k < n; k++)
		v->idx[at + 1 + k] = ROW_TREE - k;
	v->nr_idx += n;
}

void view_build_rows(struct view *v)
{
	int n = nr_rows(v), sel_pos = -1;

	if (n + 2 > v->cap_idx) { /* room for the summary rows */
		int *p = realloc(v->idx, (size_t)(n + 16) * sizeof(*p));
		if (!p) {
			v->nr_idx = 0;
			return;
		}
		v->idx = p;
		v->cap_idx = n + 16;
	}
	v->nr_idx = 0;
	for (int r = 0; r < n; r++)
		if (matches(v, r))
			v->idx[v->nr_idx++] = r;
	v->ptree_ready = false;
	if (v->nr_idx > 1)
		qsort_r(v->idx, (size_t)v->nr_idx, sizeof(int), cmp_rows, v);
	if (view_table_kind(v) == VIEW_TASKS && v->set.tree)
		view_ptree_rows(v); /* F5 */
	if (view_table_kind(v) == VIEW_CPUS && !v->filter[0])
		v->idx[v->nr_idx++] = ROW_TOTAL; /* last */
	if (view_table_kind(v) == VIEW_HOTSPOTS && v->expanded)
		insert_tree(v);
	/* Tasks with counters: what no task row holds, then the total, so that
	 * the column adds up as it does in the batch output. */
	if (view_table_kind(v) == VIEW_TASKS && !v->filter[0] && !v->user[0] &&
	    v->m->tasks_counted) {
		if (v->m->has_unattributed)
			v->idx[v->nr_idx++] = ROW_UNATTRIBUTED;
		v->idx[v->nr_idx++] = ROW_TOTAL;
	}
	/* Keep the selection on the same CPU, task, symbol or event. */
	if (v->sel_id_valid[v->kind])
		for (int i = 0; i < v->nr_idx; i++)
			if (row_id(v, v->idx[i]) == v->sel_id[v->kind])
				sel_pos = i;
	if (sel_pos >= 0)
		v->sel[v->kind] = sel_pos;
	if (v->sel[v->kind] >= v->nr_idx)
		v->sel[v->kind] = v->nr_idx - 1;
	if (v->sel[v->kind] < 0)
		v->sel[v->kind] = 0;
}

void view_remember_selection(struct view *v)
{
	int s = v->sel[v->kind];

	v->sel_id_valid[v->kind] = s >= 0 && s < v->nr_idx;
	if (v->sel_id_valid[v->kind])
		v->sel_id[v->kind] = row_id(v, v->idx[s]);
}
