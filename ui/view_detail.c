/* view_detail: the detail pane of one task (Enter on a task): who it is,
 * its command line, a graph of each counter's last intervals, its
 * hotspots. It follows the model shown (the history, a replay) and keeps
 * the last history of a task that has exited. */
#include "view_priv.h"

#include "cells.h"
#include "procfs.h"
#include "rowhist.h"
#include "spark.h"
#include "untrusted.h"
#include "util.h"
#include "view_hist.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GRAPH_MIN_W 36 /* a graph's cell, label and scale included */
#define AXIS_W      8  /* the scale right of a graph */
#define HOT_MAX     5

bool view_detail_shown(const struct view *v)
{
	return v->hist && v->hist->open;
}

static int64_t id_of(const struct model_row *t)
{
	return (int64_t)t->pid << 32 | (uint32_t)t->tid;
}

/* The pane's task in the model shown, or NULL. */
static const struct model_row *task(const struct view *v)
{
	const struct model *m = v->m;

	for (int i = 0; m && i < m->nr_tasks; i++)
		if (id_of(&m->tasks[i]) == v->hist->id && m->tasks[i].start == v->hist->start)
			return &m->tasks[i];
	return NULL;
}

/* Whether the screen shows the live stream (not a replay, not the history). */
static bool live(const struct view *v)
{
	return !v->cfg.replay && !v->timeline[0];
}

unsigned view_open_detail(struct view *v)
{
	int s = v->sel[v->kind];
	struct view_hist *h = view_hist_get(v);
	const struct model_row *t;

	if (!h || !v->m || view_table_kind(v) != VIEW_TASKS || s < 0 || s >= v->nr_idx ||
	    v->idx[s] < 0)
		return 0; /* a summary row: no one task */
	t = &v->m->tasks[v->idx[s]];
	h->open = true;
	h->id = id_of(t);
	h->pid = t->pid;
	h->tid = t->tid;
	h->thread = view_thread_rows(v->m);
	h->start = t->start;
	h->gone = false;
	h->top = 0;
	h->cmdline[0] = h->state[0] = '\0';
	util_strlcpy(h->comm, t->comm, sizeof(h->comm));
	util_strlcpy(h->user, t->user, sizeof(h->user));
	rowhist_pin(h->tasks, true, h->id);
	/* Its hotspots: sampled from the next interval on (a replay picks
	 * its rows from what was recorded). */
	h->filtered = true;
	v->set.hot_filter = true;
	v->set.filter_pid = t->pid;
	v->set.filter_cpu = -1;
	return VIEW_PROFILE | VIEW_REDRAW;
}

unsigned view_close_detail(struct view *v)
{
	struct view_hist *h = v->hist;

	if (!h || !h->open)
		return 0;
	h->open = false;
	rowhist_pin(h->tasks, false, 0);
	if (!h->filtered)
		return VIEW_REDRAW;
	h->filtered = false;
	v->set.hot_filter = false;
	v->set.filter_pid = -1;
	return VIEW_PROFILE | VIEW_REDRAW;
}

unsigned view_key_detail(struct view *v, int ch)
{
	struct view_hist *h = v->hist;

	switch (ch) {
	case KEY_ESC:
	case 'q':
		return view_close_detail(v) | VIEW_REDRAW;
	case '\r':
	case '\n':
	case KEY_ENTER: /* its hotspots, in the Hotspots view (Esc comes back) */
		if (!h->filtered) {
			v->set.hot_filter = true;
			v->set.filter_pid = h->pid;
			v->set.filter_cpu = -1;
		}
		h->filtered = false; /* the Hotspots view keeps the filter */
		view_close_detail(v);
		v->back = VIEW_TASKS;
		v->kind = VIEW_HOTSPOTS;
		v->filter[0] = '\0';
		v->sel[VIEW_HOTSPOTS] = 0;
		v->sel_id_valid[VIEW_HOTSPOTS] = false;
		return VIEW_PROFILE | VIEW_REDRAW;
	case KEY_UP:
	case KEY_PPAGE:
		h->top -= ch == KEY_UP ? 1 : 5;
		if (h->top < 0)
			h->top = 0;
		return VIEW_REDRAW;
	case KEY_DOWN:
	case KEY_NPAGE:
		h->top += ch == KEY_DOWN ? 1 : 5; /* drawing brings it back in range */
		return VIEW_REDRAW;
	/* the view's own: time, pause, theme, help, repaint, save, quit */
	case ' ':
	case KEY_LEFT:
	case KEY_RIGHT:
	case '[':
	case ']':
	case 'g':
	case 'x':
	case 'd':
	case 't':
	case 'h':
	case '?':
	case 's':
	case 'Q':
	case 'L' & 0x1f:
	case KEY_RESIZE:
	case KEY_F(1):
	case KEY_F(10):
		return VIEW_DETAIL_PASS;
	default:
		return 0;
	}
}

static const char *state_name(char c)
{
	switch (c) {
	case 'R':
		return "R (running)";
	case 'S':
		return "S (sleeping)";
	case 'D':
		return "D (disk sleep)";
	case 'Z':
		return "Z (zombie)";
	case 'T':
		return "T (stopped)";
	case 't':
		return "t (traced)";
	case 'I':
		return "I (idle)";
	case 'X':
		return "X (dead)";
	default:
		return "?";
	}
}

/* The live task's state and command line from /proc; gone when it has
 * exited (or its PID is another process's now). */
static void read_proc(struct view *v)
{
	struct view_hist *h = v->hist;
	struct procfs_task pt;

	if (h->gone || !live(v))
		return;
	if (procfs_task_stat(&h->pf, h->pid, h->thread ? h->tid : 0, &pt) ||
	    (h->start && h->tid == h->pid && pt.starttime != h->start)) {
		h->gone = true;
		return;
	}
	util_strlcpy(h->state, state_name(pt.state), sizeof(h->state));
	if (!h->cmdline[0] && procfs_cmdline(&h->pf, h->pid, h->cmdline, sizeof(h->cmdline)))
		h->cmdline[0] = '\0';
}

/* Text made safe, drawn from y in lines of width columns (at most maxl). */
static int draw_wrapped(struct view *v, int y, int x, int width, int maxl, const char *text,
                        enum theme_slot slot)
{
	char safe[4096 * 4];
	const char *s = untrusted_text(safe, sizeof(safe), text);

	while (*s && maxl-- > 0 && width > 0) {
		const char *e = s;
		int cols = 0;
		/* one column per character, as untrusted_width() counts */
		while (*e && cols < width) {
			e++;
			while ((*e & 0xc0) == 0x80)
				e++;
			cols++;
		}
		if (*e && maxl == 0 && cols > 3) { /* the last line: say it goes on */
			while (cols > width - 3) {
				e--;
				while ((*e & 0xc0) == 0x80)
					e--;
				cols--;
			}
		}
		view_use(v, slot);
		move(y, x);
		clrtoeol();
		mvaddnstr(y, x, s, (int)(e - s));
		if (*e && maxl == 0)
			addstr("...");
		s = e;
		y++;
	}
	return y;
}

/* A value as the graphs' labels show it. */
static void value_text(const struct model *m, int s, double x, char *buf, size_t len)
{
	if (isnan(x))
		util_strlcpy(buf, "-", len);
	else if (s == 0)
		snprintf(buf, len, "%.1f%%", x);
	else if (s <= m->nr_events) /* kept in the event's unit, as its column */
		cells_scaled(x, m->events[s - 1].unit[0] ? 1 : 0, 7, buf, len);
	else
		cells_scaled(x, 2, 7, buf, len);
}

/* The series the pane graphs: CPU%, each counter that counts, each metric. */
static int graph_series(const struct model *m, int *out)
{
	int n = 0;

	out[n++] = 0;
	for (int i = 0; i < m->nr_events; i++)
		if (cells_state_counted(m->events[i].state))
			out[n++] = 1 + i;
	for (int k = 0; k < m->nr_metrics; k++)
		out[n++] = 1 + m->nr_events + k;
	return n;
}

/* One graph: a label line (name, now, max) and height lines of bars with
 * the scale on their right, in a cell of width columns at y, x. */
static void draw_graph(struct view *v, int s, int y, int x, int width, int height)
{
	const struct model *m = v->m;
	struct view_hist *h = v->hist;
	float vals[ROWHIST_LEN];
	char name[128], now[32], top[32], line[256], bar[SPARK_BYTES(ROWHIST_LEN)];
	int gw = width - AXIS_W - 1, n;
	double lo, hi;

	if (gw > ROWHIST_LEN)
		gw = ROWHIST_LEN;
	n = rowhist_get(h->tasks, h->id, s, vals, gw, NULL);
	view_hist_series_name(m, s, name, sizeof(name));
	value_text(m, s, n ? vals[n - 1] : NAN, now, sizeof(now));
	/* "now": the newest interval; looking back in time, the newest live one */
	const char *when = live(v) ? "now" : "live";
	if (s >= 1 && s <= m->nr_events && m->events[s - 1].unit[0])
		snprintf(line, sizeof(line), "%s(%s)  %s %s", name, m->events[s - 1].unit, when,
		         now);
	else if (s > m->nr_events)
		snprintf(line, sizeof(line), "%s%s  %s %s", name,
		         m->metrics[s - 1 - m->nr_events].unit, when, now);
	else
		snprintf(line, sizeof(line), "%s  %s %s", name, when, now);
	view_put(v, y, x, width - 1, line, THEME_NOTE, true);
	if (!spark_range(vals, n, gw, &lo, &hi)) {
		view_put(v, y + 1, x, width - 1, n ? "  not counted" : "  no history yet",
		         THEME_ROW_DIM, true);
		return;
	}
	value_text(m, s, hi, top, sizeof(top));
	for (int row = 0; row < height; row++) {
		spark_graph_row(vals, n, gw, height, row, lo, hi, h->utf8, bar, sizeof(bar));
		view_use(v, THEME_ROW);
		mvaddstr(y + 1 + row, x, bar);
		if (row == 0)
			view_put(v, y + 1 + row, x + gw + 1, AXIS_W, top, THEME_ROW_DIM, true);
		else if (row == height - 1)
			view_put(v, y + 1 + row, x + gw + 1, AXIS_W, lo == 0 ? "0" : "min",
			         THEME_ROW_DIM, true);
	}
}

/* Up to max hotspot rows of the task, heaviest first; returns how many. */
static int task_hot(const struct view *v, int *out, int max)
{
	const struct model *m = v->m;
	int n = 0;
	bool all = m->sampling.filter_pid == v->hist->pid;

	for (int i = 0; i < m->nr_hot && n < max; i++)
		if (all || m->hot[i].pid == v->hist->pid)
			out[n++] = i;
	return n;
}

void view_draw_detail(struct view *v)
{
	struct view_hist *h = v->hist;
	const struct model *m = v->m;
	const struct model_row *t = task(v);
	int y = 3, ymax = BODY_Y + view_body_lines(v), x = 0;
	int series[1 + 2 * 64], ns, hot[HOT_MAX], nhot, hot_lines, avail;
	int ncol, cw, nrows, gh, rows_shown;
	char buf[512], num[32];
	bool exited;

	for (int k = y; k < ymax; k++) {
		view_use(v, THEME_ROW);
		move(k, 0);
		clrtoeol();
	}
	if (!m)
		return;
	if (t) {
		util_strlcpy(h->comm, t->comm, sizeof(h->comm));
		if (t->user[0])
			util_strlcpy(h->user, t->user, sizeof(h->user));
		h->nr_threads = t->nr_threads;
	}
	read_proc(v);
	/* Live, /proc says whether it has gone (a task may just have left
	 * the rows shown); a recording, its last row does. */
	exited = (t && t->exited) || (live(v) && h->gone);
	/* Who: a title bar, then the command line. */
	view_bar(v, y, THEME_COLUMN_TITLE);
	if (exited) {
		view_put(v, y, 0, 8, " exited ", THEME_BADGE_LOST, true);
		x = 8;
	} else if (!t) {
		view_put(v, y, 0, 22, " not in this interval ", THEME_BADGE_THROTTLE, true);
		x = 22;
	}
	int n = snprintf(buf, sizeof(buf), " %s %d", h->thread ? "TID" : "PID",
	                 (int)(h->thread ? h->tid : h->pid));
	if (h->thread)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "  PID %d", (int)h->pid);
	n += snprintf(buf + n, sizeof(buf) - (size_t)n, "  USER %s", h->user[0] ? h->user : "?");
	if (!exited && live(v) && h->state[0])
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "  STATE %s", h->state);
	if (!h->thread && h->nr_threads)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "  THR %d", h->nr_threads);
	if (t && !isnan(t->cpu_pct))
		snprintf(buf + n, sizeof(buf) - (size_t)n, "  CPU%% %.1f", t->cpu_pct);
	view_put(v, y, x, COLS - x, buf, THEME_COLUMN_TITLE, true);
	y++;
	snprintf(buf, sizeof(buf), "%s: ", h->comm);
	view_put(v, y, 0, COLS, buf, THEME_ROW_TOTAL, true);
	x = untrusted_width(buf) + 0;
	if (x > COLS / 3)
		x = COLS / 3;
	y = draw_wrapped(v, y, x, COLS - x, ymax - y > 12 ? 2 : 1,
	                 h->cmdline[0] ? h->cmdline
	                 : live(v)     ? "(no command line: a kernel thread, or not readable)"
	                               : "(the command line is read live, not recorded)",
	                 THEME_ROW);
	/* The hotspots at the bottom, the graphs between. */
	nhot = task_hot(v, hot, ymax - y > 16 ? HOT_MAX : 2);
	hot_lines = 1 + (nhot ? nhot : 1);
	avail = ymax - y - hot_lines;
	ns = graph_series(m, series);
	ncol = COLS / GRAPH_MIN_W;
	if (ncol < 1)
		ncol = 1;
	if (ncol > ns)
		ncol = ns;
	cw = COLS / ncol;
	if (cw - AXIS_W - 1 > ROWHIST_LEN)
		cw = ROWHIST_LEN + AXIS_W + 1;
	nrows = (ns + ncol - 1) / ncol;
	gh = avail / (nrows ? nrows : 1) - 1;
	gh = gh < 1 ? 1 : gh > 8 ? 8 : gh;
	rows_shown = avail / (gh + 1);
	if (rows_shown < 1)
		rows_shown = 0;
	if (h->top > nrows - rows_shown)
		h->top = nrows - rows_shown > 0 ? nrows - rows_shown : 0;
	for (int row = 0; row < rows_shown && h->top + row < nrows; row++)
		for (int c = 0; c < ncol; c++) {
			int i = (h->top + row) * ncol + c;
			if (i < ns)
				draw_graph(v, series[i], y + row * (gh + 1), c * cw, cw, gh);
		}
	y += rows_shown * (gh + 1);
	if (nrows > rows_shown && rows_shown > 0) {
		snprintf(buf, sizeof(buf), " graphs %d-%d of %d rows: Up/Down ", h->top + 1,
		         h->top + rows_shown, nrows);
		view_put(v, y - 1, COLS - (int)strlen(buf), (int)strlen(buf), buf, THEME_STATUS,
		         true);
	}
	if (y >= ymax || ymax - hot_lines < y)
		return; /* no room left for them */
	/* its hotspots */
	y = ymax - hot_lines;
	snprintf(buf, sizeof(buf), "hotspots of PID %d%s   Enter: all of them  Esc/q: back",
	         (int)h->pid,
	         m->sampling.filter_pid == h->pid || !m->sampling.enabled || !live(v)
	             ? ""
	             : " (from the next interval)");
	view_put(v, y++, 0, COLS, buf, THEME_COLUMN_TITLE, true);
	if (!nhot)
		view_put(v, y, 1, COLS - 1,
		         !m->sampling.enabled ? "sampling is off" : "no samples this interval",
		         THEME_ROW_DIM, true);
	for (int k = 0; k < nhot && y < ymax; k++, y++) {
		const struct model_hotspot *hs = &m->hot[hot[k]];
		int sw = COLS - 9 - 20 > 70 ? 70 : COLS - 9 - 20;
		snprintf(num, sizeof(num), "%.1f%%", hs->share);
		view_put(v, y, 1, 7, num, hs->share >= 10 ? THEME_HOT_HIGH : THEME_ROW, false);
		cells_elide(hs->symbol[0] ? hs->symbol : "-", sw, buf, sizeof(buf));
		view_put(v, y, 9, sw, buf, THEME_ROW, true);
		view_put(v, y, 10 + sw, COLS - 10 - sw, hs->module[0] ? hs->module : "-",
		         THEME_ROW_DIM, true);
	}
}
