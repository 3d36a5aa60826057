/* view: the interactive ncurses screen: header, health bar, four views, keys, themes. */
#include "view_priv.h"

#include "cells.h"
#include "format.h"
#include "snapshot.h"
#include "theme.h"
#include "untrusted.h"
#include "util.h"

#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* ---- themes ---- */

static attr_t curses_attrs(unsigned a)
{
	attr_t r = A_NORMAL;

	if (a & THEME_BOLD)
		r |= A_BOLD;
	if (a & THEME_DIM)
		r |= A_DIM;
	if (a & THEME_REVERSE)
		r |= A_REVERSE;
	if (a & THEME_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & THEME_STANDOUT)
		r |= A_STANDOUT;
#ifdef A_ITALIC
	if (a & THEME_ITALIC)
		r |= A_ITALIC;
#endif
	return r;
}

void view_apply_theme(struct view *v)
{
	const struct theme *t = &v->themes.t[v->theme];
	bool wide = v->colors && COLORS >= 256;

	for (int i = 0; i < THEME_NR_SLOTS; i++) {
		const struct theme_style *st = wide ? &t->c256[i] : &t->c8[i];
		attr_t a = curses_attrs(st->attrs);
		if (v->colors && !t->mono && (st->fg >= 0 || st->bg >= 0) && i + 1 < COLOR_PAIRS) {
			init_pair((short)(i + 1), st->fg < COLORS ? st->fg : -1,
			          st->bg < COLORS ? st->bg : -1);
			a |= COLOR_PAIR(i + 1);
		}
		v->attr[i] = a;
	}
}

void view_use(struct view *v, enum theme_slot s)
{
	attrset(v->attr[s]);
}

/* ---- open / close ---- */

struct view *view_open(const struct view_config *cfg, char *err, size_t errlen)
{
	const char *nc = getenv("NO_COLOR");
	struct theme_paths paths;
	char terr[PATH_MAX + 320];
	struct view *v;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen,
		         "the interactive view needs a terminal: use -b for batch output");
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!newterm(NULL, stdout, stdin)) {
		snprintf(err, errlen,
		         "cannot use terminal type '%s': set TERM (e.g. xterm-256color) or use -b",
		         getenv("TERM") ? getenv("TERM") : "");
		free(v);
		return NULL;
	}
	/* A terminal that cannot move the cursor (TERM=dumb, a pipe's
	 * "unknown") would get every frame printed after the last: say so. */
	const char *cup = tigetstr("cup");
	if (!cup || cup == (const char *)-1) {
		endwin();
		snprintf(err, errlen,
		         "terminal type '%s' cannot move the cursor, which the view needs: use a "
		         "terminal such as xterm-256color (TERM), or -b for snapshots",
		         getenv("TERM") ? getenv("TERM") : "");
		free(v);
		return NULL;
	}
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	/* No typeahead check: ncurses would poll stdin once per line of every
	 * refresh, and keys are read from the event loop anyway. */
	typeahead(-1);
	set_escdelay(25);
	curs_set(0);
	v->colors = has_colors() && !(nc && nc[0]);
	v->mono_only = !v->colors;
	if (v->colors) {
		start_color();
		if (use_default_colors() != OK)
			assume_default_colors(COLOR_WHITE, COLOR_BLACK);
	}
	v->cfg = *cfg;
	v->set = cfg->settings;
	v->paused = cfg->paused;
	theme_paths_default(&paths);
	theme_set_load(&v->themes, &paths);
	v->theme = theme_set_choose(&v->themes, cfg->theme, v->mono_only, terr, sizeof(terr));
	if (terr[0])
		util_strlcpy(v->status, terr, sizeof(v->status));
	else if (v->themes.nr_errors) {
		theme_error_format(&v->themes.error, terr, sizeof(terr));
		snprintf(v->status, sizeof(v->status), "theme skipped: %.300s", terr);
	}
	view_apply_theme(v);
	if (cfg->kind >= 0 && cfg->kind < VIEW_NR_KINDS)
		v->kind = (enum view_kind)cfg->kind;
	else
		v->kind = cfg->mode == MODEL_SYSTEM ? VIEW_CPUS : VIEW_TASKS;
	v->back = v->kind;
	v->sort[VIEW_CPUS] = (struct sort_key){C_CPU, 0, false};
	v->sort[VIEW_TASKS] = (struct sort_key){C_CPUPCT, 0, false};
	v->sort[VIEW_HOTSPOTS] = (struct sort_key){C_SHARE, 0, false};
	v->sort[VIEW_EVENTS] = (struct sort_key){C_EVNAME, -1, false}; /* -1: model order */
	v->task_sort_from_model = true;
	return v;
}

void view_close(struct view *v)
{
	if (!v)
		return;
	endwin();
	free(v->idx);
	free(v->tree);
	free(v);
}

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
	c->f = (struct format_column){c->title, width, prio, left, flex};
	c->text = left;
}

static bool any_multiplexed(const struct model *m, int ev)
{
	return m->events[ev].state == COUNTER_MULTIPLEXED;
}

static void counter_cols(struct view *v, int prio)
{
	const struct model *m = v->m;
	char title[64];

	for (int i = 0; i < m->nr_events; i++) {
		const struct model_event *e = &m->events[i];
		int w;
		snprintf(title, sizeof(title), e->unit[0] ? "%s(%s)" : "%s", e->name, e->unit);
		bool nsup = e->state == COUNTER_UNSUPPORTED || e->state == COUNTER_ERROR;
		w = (int)strlen(title);
		if (w > 14)
			w = 14;
		if (w < (any_multiplexed(m, i) ? 11 : 7))
			w = any_multiplexed(m, i) ? 11 : 7;
		/* Columns of n/s are narrow and the first to go: the Events
		 * view says why they do not count. */
		add_col(v, C_EVENT, i, title, nsup ? 7 : w, nsup ? 50 + i : prio + i, false, false);
	}
	for (int k = 0; k < m->nr_metrics; k++) {
		const struct model_metric *mm = &m->metrics[k];
		int w;
		snprintf(title, sizeof(title), "%s%s", mm->title[0] ? mm->title : mm->name,
		         mm->unit);
		w = (int)strlen(title);
		w = w < 7 ? 7 : w > 12 ? 12 : w;
		add_col(v, C_METRIC, k, title, w, prio + k, false, false);
	}
}

static bool thread_rows(const struct model *m)
{
	return m->nr_tasks && m->tasks[0].kind == MODEL_ROW_THREAD;
}

static void build_cols(struct view *v)
{
	const struct model *m = v->m;

	v->nr_cols = 0;
	switch (v->kind) {
	case VIEW_CPUS:
		add_col(v, C_CPU, 0, "CPU", 4, 0, false, false);
		add_col(v, C_CPUPCT, 0, "CPU%", 6, 1, false, false);
		if (m->mode == MODEL_SYSTEM)
			counter_cols(v, 2);
		break;
	case VIEW_TASKS:
		add_col(v, C_PID, 0, thread_rows(m) ? "TID" : "PID", 7, 0, false, false);
		add_col(v, C_USER, 0, "USER", 9, 40, true, false);
		add_col(v, C_CPUPCT, 0, "CPU%", 6, 0, false, false);
		add_col(v, C_THR, 0, thread_rows(m) ? "PID" : "THR", 5, 41, false, false);
		if (m->tasks_counted)
			counter_cols(v, 2);
		add_col(v, C_STATE, 0, "STATE", 10, 42, true, false);
		add_col(v, C_COMMAND, 0, "COMMAND", 12, 0, true, true);
		break;
	case VIEW_HOTSPOTS:
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
	case VIEW_NR_KINDS:
		break;
	}
	struct format_column fc[FORMAT_MAX_COLUMNS];
	for (int i = 0; i < v->nr_cols; i++)
		fc[i] = v->cols[i].f;
	format_layout(fc, v->nr_cols, COLS, v->x, v->w);
}

/* ---- cells ---- */

/* Rows below 0 are the summary rows under a table: ROW_TOTAL, and in the
 * Tasks view ROW_UNATTRIBUTED (what no task row holds). */
#define ROW_TOTAL        (-1)
#define ROW_UNATTRIBUTED (-2)

static const struct model_row *row_of(const struct view *v, int r)
{
	if (r == ROW_TOTAL)
		return &v->m->total;
	if (r == ROW_UNATTRIBUTED)
		return &v->m->unattributed;
	if (v->kind == VIEW_CPUS)
		return &v->m->cpus[r];
	return &v->m->tasks[r];
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/* A preset's metric format: validated to hold one floating-point conversion. */
static void metric_text(const struct model_metric *mm, double x, char *buf, size_t len)
{
	snprintf(buf, len, mm->format[0] ? mm->format : "%.2f", x);
}
#pragma GCC diagnostic pop

static enum theme_slot counter_cell(const struct model_event *e, const struct counter_value *c,
                                    int width, char *buf, size_t len)
{
	const struct cells_style screen = {.width = width, .unit_decimals = 1};

	cells_counter(e, c, &screen, buf, len);
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

static void pct_text(double p, char *buf, size_t len)
{
	if (isnan(p))
		util_strlcpy(buf, "-", len);
	else
		snprintf(buf, len, "%.1f", p);
}

/* Text of one cell and its slot (THEME_ROW for plain). */
static enum theme_slot cell(const struct view *v, int r, const struct col *c, int width, char *buf,
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
		pct_text(row_of(v, r)->cpu_pct, buf, len);
		return THEME_ROW;
	case C_EVENT:
		return counter_cell(&m->events[c->index], &row_of(v, r)->cells[c->index], width,
		                    buf, len);
	case C_METRIC: {
		double x = row_of(v, r)->metrics[c->index];
		if (isnan(x) || isinf(x)) {
			util_strlcpy(buf, "-", len);
			return THEME_VALUE_NOT_COUNTED;
		}
		metric_text(&m->metrics[c->index], x, buf, len);
		return THEME_ROW;
	}
	case C_PID:
		if (r < 0)
			return THEME_ROW_TOTAL;
		snprintf(buf, len, "%d", (int)(thread_rows(m) ? m->tasks[r].tid : m->tasks[r].pid));
		return THEME_ROW;
	case C_USER:
		if (r >= 0)
			util_strlcpy(buf, m->tasks[r].user, len);
		return THEME_ROW;
	case C_THR:
		if (r >= 0)
			snprintf(buf, len, "%d",
			         thread_rows(m) ? (int)m->tasks[r].pid : m->tasks[r].nr_threads);
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
	case C_COMMAND:
		if (r < 0) {
			util_strlcpy(buf, r == ROW_TOTAL ? "total" : "(unattributed)", len);
			return THEME_ROW_TOTAL;
		}
		util_strlcpy(buf, m->tasks[r].comm, len);
		return THEME_ROW;
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
		cells_scaled((double)m->hot[r].samples, 0, width, buf, len);
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
	}
	return THEME_ROW;
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
		return thread_rows(m) ? m->tasks[r].tid : m->tasks[r].pid;
	case C_THR:
		return thread_rows(m) ? m->tasks[r].pid : m->tasks[r].nr_threads;
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

	switch (v->kind) {
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

static bool matches(const struct view *v, int r)
{
	const struct model *m = v->m;
	char num[16];

	if (!v->filter[0])
		return true;
	switch (v->kind) {
	case VIEW_CPUS:
		snprintf(num, sizeof(num), "%d", m->cpus[r].cpu);
		return !strcmp(num, v->filter);
	case VIEW_TASKS:
		snprintf(num, sizeof(num), "%d", (int)m->tasks[r].pid);
		return strcasestr(m->tasks[r].comm, v->filter) ||
		       strcasestr(m->tasks[r].user, v->filter) || !strcmp(num, v->filter);
	case VIEW_HOTSPOTS:
		return strcasestr(m->hot[r].symbol, v->filter) ||
		       strcasestr(m->hot[r].module, v->filter) ||
		       strcasestr(m->hot[r].comm, v->filter);
	case VIEW_EVENTS:
		return strcasestr(m->events[r].name, v->filter) != NULL;
	default:
		return true;
	}
}

static int64_t row_id(const struct view *v, int r)
{
	const struct model *m = v->m;
	uint64_t h = 1469598103934665603ull;

	switch (v->kind) {
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
		cell(v, a, c, CELL, ta, sizeof(ta));
		cell(v, b, c, CELL, tb, sizeof(tb));
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
static void task_sort_from_model(struct view *v)
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

static void build_rows(struct view *v)
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
	if (v->nr_idx > 1)
		qsort_r(v->idx, (size_t)v->nr_idx, sizeof(int), cmp_rows, v);
	if (v->kind == VIEW_CPUS && !v->filter[0])
		v->idx[v->nr_idx++] = ROW_TOTAL; /* last */
	if (v->kind == VIEW_HOTSPOTS && v->expanded)
		insert_tree(v);
	/* Tasks with counters: what no task row holds, then the total, so that
	 * the column adds up as it does in the batch output. */
	if (v->kind == VIEW_TASKS && !v->filter[0] && v->m->tasks_counted) {
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

/* ---- drawing ---- */

/*
 * put(), add() and wrap() are the only ways text reaches the screen: each
 * draws it through untrusted_text(), so a name that holds controls (a
 * carriage return, ESC) shows them as ^M, ^[ and cannot move the cursor.
 */

/* Text at y, x in width columns (cut, padded), in slot s. */
static void put(struct view *v, int y, int x, int width, const char *text, enum theme_slot slot,
                bool left)
{
	char safe[1024];
	const char *s = untrusted_text(safe, sizeof(safe), text);
	int n = (int)strlen(s);

	if (width <= 0 || x >= COLS)
		return;
	if (x + width > COLS)
		width = COLS - x;
	view_use(v, slot);
	if (left || n >= width)
		mvprintw(y, x, "%-*.*s", width, width, s);
	else
		mvprintw(y, x, "%*s", width, s);
}

void view_put(struct view *v, int y, int x, int width, const char *text, enum theme_slot slot,
              bool left)
{
	put(v, y, x, width, text, slot, left);
}

/* Fill a line with slot's background. */
void view_bar(struct view *v, int y, enum theme_slot slot)
{
	view_use(v, slot);
	mvhline(y, 0, ' ', COLS);
}

/* Append s at *x on line y in slot; returns false when it no longer fits. */
static bool add(struct view *v, int y, int *x, const char *text, enum theme_slot slot)
{
	char safe[1024];
	const char *s = untrusted_text(safe, sizeof(safe), text);
	int n = (int)strlen(s);

	if (*x >= COLS)
		return false;
	view_use(v, slot);
	mvaddnstr(y, *x, s, COLS - *x);
	*x += n;
	return *x < COLS;
}

static const char *mode_text(enum model_mode m)
{
	return m == MODEL_SYSTEM ? "system-wide" : m == MODEL_TASKS ? "tasks" : "command";
}

static void draw_header(struct view *v)
{
	const struct model *m = v->m;
	char buf[512];
	int x = 0;

	view_bar(v, 0, THEME_HEADER);
	add(v, 0, &x, " pfmtop ", THEME_HEADER);
	add(v, 0, &x, PFMTOP_VERSION, THEME_HEADER_VALUE);
	if (m) {
		add(v, 0, &x, "  host ", THEME_HEADER);
		add(v, 0, &x, m->host, THEME_HEADER_VALUE);
		add(v, 0, &x, "  kernel ", THEME_HEADER);
		add(v, 0, &x, m->kernel, THEME_HEADER_VALUE);
		add(v, 0, &x, "  ", THEME_HEADER);
		snprintf(buf, sizeof(buf), "%s (%s)", mode_text(m->mode), m->target);
		add(v, 0, &x, buf, THEME_HEADER_VALUE);
	}
	add(v, 0, &x, "  every ", THEME_HEADER);
	snprintf(buf, sizeof(buf), "%.2gs", (double)v->set.interval_ns / 1e9);
	add(v, 0, &x, buf, THEME_HEADER_VALUE);
	add(v, 0, &x, "  preset ", THEME_HEADER);
	add(v, 0, &x, m ? m->preset : v->set.preset, THEME_HEADER_VALUE);
	if (v->timeline[0]) {
		int w = (int)strlen(v->timeline) + 2;

		snprintf(buf, sizeof(buf), " %s ", v->timeline);
		if (w > COLS / 2)
			w = COLS / 2;
		put(v, 0, COLS - w, w, buf, THEME_BADGE_THROTTLE, true);
	} else if (v->paused) {
		const char *p = " PAUSED ";
		put(v, 0, COLS - 8, 8, p, THEME_BADGE_THROTTLE, true);
	}
}

static void badge(struct view *v, int y, int *x, const char *text, enum theme_slot slot)
{
	add(v, y, x, " ", THEME_HEADER);
	add(v, y, x, text, slot);
}

/* The sampling-health bar: lost, throttled, max rate, and badges. */
static void draw_health(struct view *v)
{
	const struct model *m = v->m;
	const struct model_sampling *s = m ? &m->sampling : NULL;
	int x = 0, mux = 0, nsup = 0, fallbacks = 0;
	char buf[256];

	view_bar(v, 1, THEME_HEADER);
	if (!m) {
		add(v, 1, &x, " waiting for the first interval...", THEME_HEADER);
		return;
	}
	for (int i = 0; i < m->nr_events; i++) {
		mux += m->events[i].state == COUNTER_MULTIPLEXED;
		nsup += m->events[i].state == COUNTER_UNSUPPORTED ||
		        m->events[i].state == COUNTER_ERROR;
		fallbacks += m->events[i].why[0] && m->events[i].state != COUNTER_UNSUPPORTED;
	}
	fallbacks += m->nr_notes > 0 || (s->enabled && s->why[0]);
	if (s->enabled) {
		add(v, 1, &x, " sampling ", THEME_HEADER);
		snprintf(buf, sizeof(buf), "%s %s%" PRIu64 "%s", s->event, s->freq ? "" : "every ",
		         s->freq ? s->freq : s->period, s->freq ? " Hz" : "");
		add(v, 1, &x, buf, THEME_HEADER_VALUE);
		add(v, 1, &x, "  lost ", THEME_HEADER);
		snprintf(buf, sizeof(buf), "%" PRIu64 " rec/%" PRIu64 " smp",
		         s->interval.lost_records,
		         s->interval.lost_samples + s->interval.lost_samples_hw);
		add(v, 1, &x, buf, THEME_HEADER_VALUE);
		add(v, 1, &x, "  throttled ", THEME_HEADER);
		snprintf(buf, sizeof(buf), "%d/%d", s->throttled_now, s->nr_rings);
		add(v, 1, &x, buf, THEME_HEADER_VALUE);
		add(v, 1, &x, "  max rate ", THEME_HEADER);
		snprintf(buf, sizeof(buf), "%ld/s%s", s->max_rate,
		         s->max_rate_lowered ? " (lowered)" : "");
		add(v, 1, &x, buf, THEME_HEADER_VALUE);
	} else {
		add(v, 1, &x, " sampling off", THEME_HEADER);
	}
	add(v, 1, &x, " ", THEME_HEADER);
	if (s->enabled && (s->interval.lost_records || s->total.lost_records)) {
		snprintf(buf, sizeof(buf), "LOST %" PRIu64, s->total.lost_samples);
		badge(v, 1, &x, buf, THEME_BADGE_LOST);
	}
	if (s->enabled && (s->throttled_now || s->max_rate_lowered))
		badge(v, 1, &x, "THROTTLED", THEME_BADGE_THROTTLE);
	if (mux) {
		snprintf(buf, sizeof(buf), "MULTIPLEXED %d", mux);
		badge(v, 1, &x, buf, THEME_BADGE_MULTIPLEXED);
	}
	if (nsup) {
		snprintf(buf, sizeof(buf), "N/S %d", nsup);
		badge(v, 1, &x, buf, THEME_BADGE_UNSUPPORTED);
	}
	if (fallbacks)
		badge(v, 1, &x, "FALLBACK", THEME_BADGE_UNSUPPORTED);
	if (!mux && !nsup && !fallbacks && !(s->enabled && s->total.lost_records))
		badge(v, 1, &x, "OK", THEME_BADGE_OK);
}

static const char *const view_names[VIEW_NR_KINDS] = {"CPUs", "Tasks", "Hotspots", "Events"};

static void draw_tabs(struct view *v)
{
	const struct col *c = v->m ? view_sort_col(v) : NULL;
	char buf[160];
	int x = 0;

	view_bar(v, 2, THEME_TAB);
	for (int i = 0; i < VIEW_NR_KINDS; i++) {
		snprintf(buf, sizeof(buf), " %d %s ", i + 1, view_names[i]);
		add(v, 2, &x, buf, i == (int)v->kind ? THEME_TAB_ACTIVE : THEME_TAB);
		add(v, 2, &x, " ", THEME_TAB);
	}
	buf[0] = '\0';
	if (c && v->sort[v->kind].index >= 0)
		snprintf(buf, sizeof(buf), "sort %s%s", c->title,
		         v->sort[v->kind].reverse ? " (rev)" : "");
	if (v->filter[0] || v->prompt == PROMPT_FILTER) {
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof(buf) - n, "%sfilter '%s'", n ? "  " : "", v->filter);
	}
	if (buf[0] && x + (int)strlen(buf) + 2 < COLS)
		put(v, 2, COLS - (int)strlen(buf) - 1, (int)strlen(buf), buf, THEME_TAB, true);
}

static void draw_info(struct view *v)
{
	const struct model *m = v->m;
	const struct model_sampling *s = &m->sampling;
	char buf[512];
	int x = 0, n = 0;

	view_use(v, THEME_ROW);
	move(3, 0);
	clrtoeol();
	switch (v->kind) {
	case VIEW_CPUS:
		snprintf(buf, sizeof(buf), "%d CPUs, %.1f%% busy%s", m->nr_cpus, m->total.cpu_pct,
		         m->mode == MODEL_SYSTEM ? "" : " (counters are per task: see Tasks)");
		break;
	case VIEW_TASKS:
		n = snprintf(buf, sizeof(buf), "%d %s", m->nr_tasks,
		             thread_rows(m) ? "threads" : "processes");
		if (m->tasks_counted && m->cpu_min >= 0)
			snprintf(buf + n, sizeof(buf) - (size_t)n,
			         ", counters for tasks using %.1f%% CPU or more", m->cpu_min);
		else if (!m->tasks_counted)
			snprintf(buf + n, sizeof(buf) - (size_t)n,
			         ", /proc figures (per-task counters: -p PID or -- COMMAND)");
		break;
	case VIEW_HOTSPOTS:
		if (!s->enabled) {
			snprintf(buf, sizeof(buf),
			         "sampling is off (--no-hotspots, or it could not start)");
			break;
		}
		n = snprintf(buf, sizeof(buf), "%d of %d, %s, %" PRIu64 " samples%s%s", m->nr_hot,
		             m->hot_total, s->accumulated ? "since the start" : "this interval",
		             s->accumulated ? s->total.samples : s->interval.samples,
		             s->hide_kernel ? ", kernel hidden" : "",
		             s->hide_user ? ", user space hidden" : "");
		if (s->hot_keys[0])
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", by %s%s", s->hot_keys,
			              s->callchain
			                  ? (v->callees ? ", tree: callees" : ", tree: callers")
			                  : "");
		if (v->set.hot_filter && v->set.filter_pid >= 0)
			snprintf(buf + n, sizeof(buf) - (size_t)n, ", PID %d only%s",
			         (int)v->set.filter_pid,
			         s->filter_pid == v->set.filter_pid ? ""
			                                            : " (from the next interval)");
		else if (v->set.hot_filter && v->set.filter_cpu >= 0)
			snprintf(
			    buf + n, sizeof(buf) - (size_t)n, ", CPU %d only%s", v->set.filter_cpu,
			    s->filter_cpu == v->set.filter_cpu ? "" : " (from the next interval)");
		break;
	case VIEW_EVENTS:
		snprintf(buf, sizeof(buf), "%d events; paranoid %d (%s)", m->nr_events, m->paranoid,
		         m->privilege);
		break;
	default:
		buf[0] = '\0';
	}
	add(v, 3, &x, buf, THEME_ROW);
}

static void draw_titles(struct view *v)
{
	const struct col *sc = view_sort_col(v);

	view_bar(v, 4, THEME_COLUMN_TITLE);
	for (int i = 0; i < v->nr_cols; i++) {
		const struct col *c = &v->cols[i];
		if (v->x[i] < 0)
			continue;
		put(v, 4, v->x[i], v->w[i], c->title,
		    c == sc && v->sort[v->kind].index >= 0 ? THEME_COLUMN_SORTED
		                                           : THEME_COLUMN_TITLE,
		    c->f.left);
	}
}

int view_body_lines(const struct view *v)
{
	int n = LINES - 1 - BODY_Y;

	if (v->status[0] || v->prompt == PROMPT_FILTER || v->prompt == PROMPT_DELAY ||
	    v->prompt == PROMPT_TIME)
		n--;
	return n > 0 ? n : 0;
}

/* Word-wrap s into lines of at most width characters from y; returns the next y. */
static int wrap(struct view *v, int y, int ymax, const char *text, enum theme_slot slot, int indent)
{
	char safe[2048];
	const char *s = untrusted_text(safe, sizeof(safe), text);
	int width = COLS - indent;

	while (*s && y < ymax && width > 10) {
		int n = (int)strlen(s), cut = n;
		if (n > width) {
			cut = width;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = width;
		}
		view_use(v, slot);
		mvaddnstr(y++, indent, s, cut);
		s += cut;
		while (*s == ' ')
			s++;
	}
	return y;
}

static void draw_rows(struct view *v, int nlines)
{
	int sel = v->sel[v->kind], *top = &v->top[v->kind];
	int rows = nlines;
	char buf[CELL];

	if (v->kind == VIEW_EVENTS) { /* the facts below get the other half */
		int want = v->nr_idx < rows / 2 ? v->nr_idx : rows / 2;
		rows = want > 1 ? want : 1;
	}
	if (sel < *top)
		*top = sel;
	if (sel >= *top + rows)
		*top = sel - rows + 1;
	if (*top > v->nr_idx - rows)
		*top = v->nr_idx - rows;
	if (*top < 0)
		*top = 0;
	for (int line = 0; line < rows; line++) {
		int i = *top + line, y = BODY_Y + line;
		view_use(v, THEME_ROW);
		move(y, 0);
		clrtoeol();
		if (i >= v->nr_idx)
			continue;
		int r = v->idx[i];
		bool selected = i == sel;
		enum theme_slot base = THEME_ROW;
		if (v->kind == VIEW_TASKS && r >= 0 && v->m->tasks[r].exited)
			base = THEME_ROW_DIM;
		if (selected)
			view_bar(v, y, THEME_ROW_SELECTED);
		if (r <= ROW_TREE) {
			view_tree_text(v, ROW_TREE - r, COLS - 1, buf, sizeof(buf));
			put(v, y, 1, COLS - 1, buf, selected ? THEME_ROW_SELECTED : THEME_ROW_DIM,
			    true);
			continue;
		}
		for (int c = 0; c < v->nr_cols; c++) {
			enum theme_slot s;
			if (v->x[c] < 0)
				continue;
			s = cell(v, r, &v->cols[c], v->w[c], buf, sizeof(buf));
			if (selected)
				s = THEME_ROW_SELECTED;
			else if (s == THEME_ROW)
				s = base;
			put(v, y, v->x[c], v->w[c], buf, s, v->cols[c].f.left);
			if (v->x[c] + v->w[c] < COLS && !selected) {
				view_use(v, base);
				mvaddch(y, v->x[c] + v->w[c], ' ');
			}
		}
	}
	if (!v->nr_idx) {
		const char *msg = v->filter[0] ? "no rows match the filter (Esc clears it)"
		                  : v->kind == VIEW_HOTSPOTS && !v->m->sampling.enabled
		                      ? "no hotspots: sampling is off"
		                      : "no rows this interval";
		put(v, BODY_Y, 1, COLS - 1, msg, THEME_ROW_DIM, true);
	}
	if (v->kind == VIEW_EVENTS) {
		/* The selected event in full, then the facts behind the states. */
		const struct model *m = v->m;
		const struct model_sampling *s = &m->sampling;
		int y = BODY_Y + rows + 1, ymax = BODY_Y + nlines;
		char line[1024];
		for (int k = BODY_Y + rows; k < ymax; k++) {
			view_use(v, THEME_ROW);
			move(k, 0);
			clrtoeol();
		}
		if (sel >= 0 && sel < v->nr_idx && v->idx[sel] >= 0) {
			const struct model_event *e = &m->events[v->idx[sel]];
			snprintf(line, sizeof(line), "%s: %s%s%s", e->name,
			         e->opened ? e->encoding : "", e->why[0] && e->opened ? "; " : "",
			         e->why);
			y = wrap(v, y, ymax, line, THEME_ROW, 1);
		}
		if (y < ymax)
			y++;
		snprintf(line, sizeof(line), "kernel %s, perf_event_paranoid %d, running as %s",
		         m->kernel, m->paranoid, m->privilege);
		y = wrap(v, y, ymax, line, THEME_ROW_DIM, 1);
		if (s->enabled) {
			snprintf(line, sizeof(line),
			         "sampling %s; perf_event_max_sample_rate %ld/s%s%s%s", s->event,
			         s->max_rate, s->max_rate_lowered ? " (lowered by the kernel)" : "",
			         s->why[0] ? "; " : "", s->why);
			y = wrap(v, y, ymax, line, THEME_ROW_DIM, 1);
		}
		for (int i = 0; i < m->nr_notes && y < ymax; i++) {
			snprintf(line, sizeof(line), "note: %s", m->notes[i]);
			y = wrap(v, y, ymax, line, THEME_NOTE, 1);
		}
	}
}

struct key_help {
	const char *key, *label;
};

static const struct key_help bottom_keys[] = {
    {"h", "Help"},    {"Tab", "View"},   {"<>", "Sort"},   {"/", "Filter"},
    {"Enter", "Hot"}, {"a", "Annotate"}, {"Spc", "Pause"}, {"d", "Delay"},
    {"p", "Preset"},  {"t", "Theme"},    {"s", "Save"},    {"q", "Quit"},
};

static void draw_keys(struct view *v)
{
	int x = 0, y = LINES - 1;

	view_bar(v, y, THEME_KEY_LABEL);
	for (size_t i = 0; i < ARRAY_SIZE(bottom_keys); i++) {
		if (x + (int)strlen(bottom_keys[i].key) + (int)strlen(bottom_keys[i].label) + 1 >
		    COLS)
			break;
		add(v, y, &x, bottom_keys[i].key, THEME_KEY);
		add(v, y, &x, bottom_keys[i].label, THEME_KEY_LABEL);
		add(v, y, &x, " ", THEME_KEY_LABEL);
	}
}

static void draw_status(struct view *v)
{
	char buf[400];
	int y = LINES - 2;

	if (v->prompt == PROMPT_FILTER)
		snprintf(buf, sizeof(buf), " Filter: %s_   (Enter keeps it, Esc clears)",
		         v->filter);
	else if (v->prompt == PROMPT_DELAY)
		snprintf(buf, sizeof(buf),
		         " Delay in seconds (now %.2g): %s_   (Enter sets, Esc cancels)",
		         (double)v->set.interval_ns / 1e9, v->input);
	else if (v->prompt == PROMPT_TIME)
		snprintf(buf, sizeof(buf),
		         " Go to (HH:MM:SS, or YYYY-MM-DD HH:MM:SS): %s_   (Enter goes, Esc "
		         "cancels)",
		         v->input);
	else if (v->status[0])
		snprintf(buf, sizeof(buf), " %s", v->status);
	else
		return;
	view_bar(v, y, THEME_STATUS);
	put(v, y, 0, COLS, buf, THEME_STATUS, true);
}

void view_render(struct view *v)
{
	char buf[96];

	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		snprintf(buf, sizeof(buf), "pfmtop needs %dx%d, the terminal is %dx%d", MIN_COLS,
		         MIN_LINES, COLS, LINES);
		view_use(v, THEME_MESSAGE);
		mvaddnstr(0, 0, buf, COLS);
		refresh();
		return;
	}
	draw_header(v);
	draw_health(v);
	draw_tabs(v);
	if (v->help) {
		view_draw_help(v);
	} else if (v->annot) {
		view_draw_annotate(v);
	} else if (v->m) {
		build_cols(v);
		build_rows(v);
		draw_info(v);
		draw_titles(v);
		draw_rows(v, view_body_lines(v));
		if (v->prompt == PROMPT_PRESET)
			view_draw_presets(v);
	}
	draw_status(v);
	draw_keys(v);
	refresh();
}

void view_draw(struct view *v, const struct model *m)
{
	if (m) {
		v->m = m;
		if (v->task_sort_from_model)
			task_sort_from_model(v);
	}
	view_render(v);
}

void view_timeline(struct view *v, const char *text)
{
	util_strlcpy(v->timeline, text, sizeof(v->timeline));
}

void view_resize(struct view *v)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	view_render(v);
}
