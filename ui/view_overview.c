/* view_overview: the default screen: a meter per CPU, a summary line, the
 * task table, and the top hotspots, shrinking in that order of importance
 * (hotspots first, then the meters) on a small terminal. */
#include "view_priv.h"

#include "meter.h"
#include "util.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MIN_TASK_ROWS 5
#define HOT_ROWS      5

static enum theme_slot part_slot(enum meter_part p)
{
	switch (p) {
	case METER_USER:
		return THEME_METER_USER;
	case METER_SYSTEM:
		return THEME_METER_SYSTEM;
	case METER_OTHER:
		return THEME_METER_OTHER;
	case METER_FRAME:
		return THEME_METER_FRAME;
	case METER_EMPTY:
		break;
	}
	return THEME_ROW;
}

/* label, then a meter filling the rest of width, at y, x. */
static void meter(struct view *v, int y, int x, int width, const char *label, double user,
                  double sys, double other, double total)
{
	char text[512];
	enum meter_part part[512];
	chtype cells[512];
	int lw = (int)strlen(label), mw = width - lw;

	view_put(v, y, x, lw, label, THEME_METER_FRAME, true);
	if (mw > (int)sizeof(text) - 1)
		mw = (int)sizeof(text) - 1;
	if (mw <= 0)
		return;
	meter_render(user, sys, other, total, mw, text, part);
	for (int i = 0; i < mw; i++) /* ASCII: bars, brackets, the figure */
		cells[i] = (unsigned char)text[i] | v->attr[part_slot(part[i])];
	view_cells(y, x + lw, cells, mw);
}

/* The meters: one per CPU (in two columns when they are many and the
 * screen is wide), or one line for all CPUs (lines == 1). */
static void draw_meters(struct view *v, int y, int lines)
{
	const struct model *m = v->m;
	int n = m->nr_cpus, cols = lines < n ? 2 : 1, colw = cols == 2 ? (COLS - 1) / 2 : COLS - 1;
	int lw = 1;
	char label[32];

	for (int k = n - 1; k >= 10; k /= 10)
		lw++;
	if (lines == 1 && n > 1) {
		double u = 0, s = 0, o = 0;
		for (int i = 0; i < n; i++) {
			u += m->cpus[i].user_pct;
			s += m->cpus[i].sys_pct;
			o += m->cpus[i].other_pct;
		}
		snprintf(label, sizeof(label), "Avg");
		meter(v, y, 0, COLS - 1, label, u / n, s / n, o / n, m->total.cpu_pct);
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct model_row *c = &m->cpus[i];
		int line = i % lines, col = i / lines;
		if (col >= cols)
			break;
		snprintf(label, sizeof(label), "%*d", lw, c->cpu);
		meter(v, y + line, col * (colw + 1), colw, label, c->user_pct, c->sys_pct,
		      c->other_pct, c->cpu_pct);
	}
}

/* The rate of the total of the event named name, per second; NaN when the
 * preset lacks it or it did not count. */
static double total_rate(const struct model *m, const char *name)
{
	for (int i = 0; i < m->nr_events; i++) {
		const struct counter_value *c = &m->total.cells[i];
		if (strcmp(m->events[i].name, name))
			continue;
		if ((c->state == COUNTER_OK || c->state == COUNTER_MULTIPLEXED) &&
		    m->interval_s > 0)
			return c->value / m->interval_s;
	}
	return NAN;
}

/* Append label and value to the summary line when both fit whole. */
static void item(struct view *v, int y, int *x, const char *label, const char *value)
{
	if (*x + (int)strlen(label) + (int)strlen(value) > COLS)
		return;
	view_add(v, y, x, label, THEME_ROW_DIM);
	view_add(v, y, x, value, THEME_ROW_TOTAL);
}

static void draw_summary(struct view *v, int y)
{
	const struct model *m = v->m;
	char buf[160], num[16];
	int x = 0;

	view_use(v, THEME_ROW);
	move(y, 0);
	clrtoeol();
	if (isfinite(m->load[0])) {
		snprintf(buf, sizeof(buf), "%.2f %.2f %.2f", m->load[0], m->load[1], m->load[2]);
		item(v, y, &x, "Load ", buf);
	}
	snprintf(buf, sizeof(buf), "%d",
	         m->tasks_total > m->nr_tasks ? m->tasks_total : m->nr_tasks);
	if (m->tasks_running >= 0)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ", %d run",
		         m->tasks_running);
	item(v, y, &x, "  Tasks ", buf);
	double cs = total_rate(m, "context-switches"), pf = total_rate(m, "page-faults");
	if (!isnan(cs)) {
		snprintf(buf, sizeof(buf), "%s/s", meter_human(cs, 0, 8, num, sizeof(num)));
		item(v, y, &x, "  ctxsw ", buf);
	}
	if (!isnan(pf)) {
		snprintf(buf, sizeof(buf), "%s/s", meter_human(pf, 0, 8, num, sizeof(num)));
		item(v, y, &x, "  faults ", buf);
	}
	snprintf(buf, sizeof(buf), "%.1f%%", m->total.cpu_pct);
	item(v, y, &x, "  CPU ", buf);
}

/* The top hotspots: a title line, then n rows. */
static void draw_hot(struct view *v, int y, int n)
{
	const struct model *m = v->m;
	struct col all[4], c[4];
	struct format_column fc[4];
	int x[4], w[4], nc = 0;
	char buf[CELL];

	memset(all, 0, sizeof(all));
	all[0] = (struct col){
	    {"SHARE", 6, 0, false, false, 0, 0}, C_SHARE, 0, "SHARE", "", false, false, 0};
	if (m->sampling.callchain) /* children mode: the rows are in its order */
		all[0] = (struct col){{"CHILDREN", 8, 0, false, false, 0, 0},
		                      C_CHILDREN,
		                      0,
		                      "CHILDREN",
		                      "",
		                      false,
		                      false,
		                      0};
	all[1] = (struct col){{"TOP HOTSPOTS (4: all)", 24, 0, true, true, 0, 0},
	                      C_SYMBOL,
	                      0,
	                      "",
	                      "",
	                      true,
	                      false,
	                      0};
	all[2] = (struct col){
	    {"MODULE", 18, 1, true, false, 0, 0}, C_MODULE, 0, "MODULE", "", true, false, 0};
	all[3] = (struct col){
	    {"COMMAND", 15, 2, true, false, 0, 0}, C_HCOMM, 0, "COMMAND", "", true, false, 0};
	for (int i = 0; i < 4; i++) {
		bool dash = i >= 2; /* MODULE, COMMAND: left out when "-" on every row */
		int want = (int)strlen(all[i].f.title);
		for (int r = 0; r < n && r < m->nr_hot; r++) {
			view_cell(v, r, &all[i], CELL, buf, sizeof(buf));
			int len = (int)strlen(buf);
			want = len > want ? len : want;
			dash = dash && (!buf[0] || !strcmp(buf, "-"));
		}
		if (dash)
			continue;
		c[nc] = all[i];
		fc[nc] = all[i].f;
		fc[nc++].want = want;
	}
	format_layout(fc, nc, COLS, x, w);
	view_bar(v, y, THEME_COLUMN_TITLE);
	for (int i = 0; i < nc; i++)
		if (x[i] >= 0)
			view_put(v, y, x[i], w[i], c[i].f.title, THEME_COLUMN_TITLE, c[i].f.left);
	for (int k = 0; k < n; k++) {
		int yy = y + 1 + k;
		view_use(v, THEME_ROW);
		move(yy, 0);
		clrtoeol();
		if (k >= m->nr_hot) {
			if (!k)
				view_put(v, yy, 1, COLS - 1,
				         m->sampling.enabled ? "no samples this interval"
				                             : "no hotspots: sampling is off",
				         THEME_ROW_DIM, true);
			continue;
		}
		for (int i = 0; i < nc; i++) {
			if (x[i] < 0)
				continue;
			enum theme_slot s = view_cell(v, k, &c[i], w[i], buf, sizeof(buf));
			view_put(v, yy, x[i], w[i], buf, s, c[i].f.left);
		}
	}
}

void view_draw_overview(struct view *v, int y0)
{
	const struct model *m = v->m;
	int end, ncpu = m->nr_cpus, meters, hot_rows, note, rows;
	bool two = ncpu >= 4 && COLS >= 100;

	v->body_y = BODY_Y;
	v->below = 0;
	view_build_cols(v);
	view_build_rows(v);
	/* the last line for the body: above the keys and the status line */
	end = LINES - 1 - ((LINES - 1 - BODY_Y) - view_body_lines(v));
	meters = ncpu ? (two ? (ncpu + 1) / 2 : ncpu) : 0;
	hot_rows = m->nr_hot < HOT_ROWS ? m->nr_hot : HOT_ROWS;
	if (!hot_rows)
		hot_rows = 1; /* a line saying why there are none */
	note = v->hidden[0] ? 1 : 0;
#define TASK_ROWS() (end - y0 - meters - 1 - note - 1 - (hot_rows ? hot_rows + 1 : 0))
	while (TASK_ROWS() < MIN_TASK_ROWS && hot_rows > 3)
		hot_rows--;
	if (TASK_ROWS() < MIN_TASK_ROWS)
		hot_rows = 0;
	if (TASK_ROWS() < MIN_TASK_ROWS && meters > 1)
		meters = 1;
	if (TASK_ROWS() < 3)
		note = 0;
	rows = TASK_ROWS();
#undef TASK_ROWS
	int y = y0;
	if (meters)
		draw_meters(v, y, meters);
	y += meters;
	draw_summary(v, y++);
	if (note)
		view_draw_hidden(v, y++);
	v->body_y = y + 1;
	v->below = hot_rows ? hot_rows + 1 : 0;
	view_draw_table(v, rows > 0 ? rows : 0);
	if (hot_rows)
		draw_hot(v, v->body_y + (rows > 0 ? rows : 0), hot_rows);
}
