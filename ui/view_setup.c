/* view_setup: F2, a view's columns: which show, their order and width, kept as text in the
 * settings. */
#include "view_priv.h"

#include "colspec.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static const char *const kind_names[VIEW_NR_KINDS] = {[VIEW_OVERVIEW] = "Overview",
                                                      [VIEW_CPUS] = "CPUs",
                                                      [VIEW_TASKS] = "Tasks",
                                                      [VIEW_HOTSPOTS] = "Hotspots",
                                                      [VIEW_EVENTS] = "Events"};

const char *view_columns_text(const struct view_settings *s, enum view_kind k)
{
	return k >= 0 && k < VIEW_NR_KINDS ? s->columns[k] : "";
}

int view_columns_parse(struct view_settings *s, enum view_kind k, const char *text, char *err,
                       size_t errlen)
{
	struct colspec_item it[COLSPEC_MAX];
	char buf[sizeof(s->columns[0])];
	int n;

	if (k < 0 || k >= VIEW_NR_KINDS) {
		snprintf(err, errlen, "no such view");
		return -1;
	}
	n = colspec_parse(text, it, COLSPEC_MAX, err, errlen);
	if (n < 0)
		return -1;
	if (colspec_format(it, n, buf, sizeof(buf))) {
		snprintf(err, errlen, "column list too long");
		return -1;
	}
	util_strlcpy(s->columns[k], buf, sizeof(s->columns[k]));
	return 0;
}

/* The name a column goes by in the setup text: an event or metric by its
 * name, the others by a fixed word (PID stays PID in a row per thread). */
static const char *col_key(const struct view *v, const struct col *c)
{
	switch (c->kind) {
	case C_EVENT:
		return v->m->events[c->index].name;
	case C_METRIC:
		return v->m->metrics[c->index].name;
	case C_PID:
		return "PID";
	case C_THR:
		return "THR";
	case C_EVWHY:
		return "WHY";
	default:
		return c->title;
	}
}

/* v->cols (the view's default columns) into v->all_cols in the setup's
 * order, then v->cols: the shown ones, with their widths. */
void view_setup_apply(struct view *v)
{
	struct colspec_item it[COLSPEC_MAX];
	const char *names[FORMAT_MAX_COLUMNS];
	int order[FORMAT_MAX_COLUMNS], width[FORMAT_MAX_COLUMNS], n, nd = v->nr_cols;
	bool hidden[FORMAT_MAX_COLUMNS];
	char err[128];

	if (nd > COLSPEC_MAX)
		nd = COLSPEC_MAX;
	n = colspec_parse(v->set.columns[view_table_kind(v)], it, COLSPEC_MAX, err, sizeof(err));
	if (n < 0)
		n = 0;
	for (int d = 0; d < nd; d++)
		names[d] = col_key(v, &v->cols[d]);
	colspec_merge(names, nd, it, n, order, hidden, width);
	v->nr_all_cols = nd;
	for (int j = 0; j < nd; j++) {
		struct col *c = &v->all_cols[j];
		*c = v->cols[order[j]];
		c->f.title = c->title;
		c->hidden = hidden[order[j]];
		c->def_width = c->f.width;
		if (width[order[j]] > 0)
			c->f.width = width[order[j]];
	}
	v->nr_cols = 0;
	for (int j = 0; j < nd; j++)
		if (!v->all_cols[j].hidden) {
			v->cols[v->nr_cols] = v->all_cols[j];
			v->cols[v->nr_cols].f.title = v->cols[v->nr_cols].title;
			v->nr_cols++;
		}
}

/* The setup as text again, after a change on the screen. */
static void save(struct view *v)
{
	struct colspec_item it[COLSPEC_MAX];
	int n = 0;

	for (int j = 0; j < v->nr_all_cols && n < COLSPEC_MAX; j++) {
		const struct col *c = &v->all_cols[j];
		memset(&it[n], 0, sizeof(it[n]));
		util_strlcpy(it[n].name, col_key(v, c), sizeof(it[n].name));
		it[n].hidden = c->hidden;
		it[n].width = c->f.width != c->def_width ? c->f.width : 0;
		n++;
	}
	if (colspec_format(it, n, v->set.columns[view_table_kind(v)], sizeof(v->set.columns[0])))
		snprintf(v->status, sizeof(v->status), "too many columns to keep their setup");
}

unsigned view_setup_open(struct view *v)
{
	if (!v->m) {
		snprintf(v->status, sizeof(v->status), "F2: no columns before the first interval");
		return VIEW_REDRAW;
	}
	v->setup = true;
	v->setup_sel = 0;
	v->prompt = PROMPT_NONE;
	v->menu = MENU_NONE;
	return VIEW_REDRAW;
}

unsigned view_key_setup(struct view *v, int ch)
{
	int *s = &v->setup_sel, n = v->nr_all_cols;
	struct col *c = *s >= 0 && *s < n ? &v->all_cols[*s] : NULL;

	if (ch == KEY_F(10))
		return VIEW_QUIT;
	if (ch == KEY_ESC || ch == 'q' || ch == KEY_F(2)) {
		v->setup = false;
		return VIEW_REDRAW;
	}
	if (ch == KEY_UP || ch == KEY_DOWN) {
		*s += ch == KEY_UP ? -1 : 1;
		*s = *s < 0 ? 0 : *s >= n ? n - 1 : *s;
		return VIEW_REDRAW;
	}
	if (!c)
		return VIEW_REDRAW;
	switch (ch) {
	case ' ':
	case '\r':
	case '\n':
	case KEY_ENTER: {
		int shown = 0;
		for (int j = 0; j < n; j++)
			shown += !v->all_cols[j].hidden;
		if (!c->hidden && shown == 1) {
			snprintf(v->status, sizeof(v->status), "one column at least stays");
			return VIEW_REDRAW;
		}
		c->hidden = !c->hidden;
		break;
	}
	case KEY_F(7):
	case '[':
	case KEY_F(8):
	case ']': {
		int to = *s + (ch == KEY_F(7) || ch == '[' ? -1 : 1);
		if (to < 0 || to >= n)
			return VIEW_REDRAW;
		struct col t = v->all_cols[to];
		v->all_cols[to] = *c;
		v->all_cols[*s] = t;
		*s = to;
		break;
	}
	case '+':
	case '=':
	case KEY_RIGHT:
		if (c->f.width < 200)
			c->f.width++;
		break;
	case '-':
	case KEY_LEFT:
		if (c->f.width > 1)
			c->f.width--;
		break;
	case '0':
		c->f.width = c->def_width;
		break;
	case 'r':
		v->set.columns[view_table_kind(v)][0] = '\0';
		snprintf(v->status, sizeof(v->status), "%s columns as by default",
		         kind_names[view_table_kind(v)]);
		return VIEW_REDRAW;
	default:
		return VIEW_REDRAW;
	}
	save(v);
	return VIEW_REDRAW;
}

/* The list of columns over the rows; the titles above show the result. */
void view_draw_setup(struct view *v)
{
	int rows = view_body_lines(v), n = v->nr_all_cols, top = 0, y;
	char buf[160];

	if (v->setup_sel >= n)
		v->setup_sel = n - 1;
	view_use(v, THEME_ROW);
	for (y = BODY_Y; y < BODY_Y + rows; y++) {
		move(y, 0);
		clrtoeol();
	}
	snprintf(buf, sizeof(buf), " Columns of the %s view: %d of %d chosen",
	         kind_names[view_table_kind(v)], v->nr_cols, n);
	view_put(v, BODY_Y, 0, COLS, buf, THEME_COLUMN_TITLE, true);
	view_put(v, BODY_Y + 1, 0, COLS,
	         " Space show/hide  F7 [ up  F8 ] down  + - width  0 default  r reset  Esc done",
	         THEME_ROW_DIM, true);
	rows -= 3;
	if (rows < 1)
		return;
	if (v->setup_sel >= rows)
		top = v->setup_sel - rows + 1;
	for (int i = 0; i < rows && top + i < n; i++) {
		const struct col *c = &v->all_cols[top + i];
		bool sel = top + i == v->setup_sel;
		snprintf(buf, sizeof(buf), " [%c] %-24.24s width %3d%s%s", c->hidden ? ' ' : 'x',
		         col_key(v, c), c->f.width, c->f.width != c->def_width ? " (set)" : "",
		         c->f.flex ? ", takes the rest" : "");
		y = BODY_Y + 3 + i;
		if (sel)
			view_bar(v, y, THEME_ROW_SELECTED);
		view_put(v, y, 1, COLS - 1, buf,
		         sel         ? THEME_ROW_SELECTED
		         : c->hidden ? THEME_ROW_DIM
		                     : THEME_ROW,
		         true);
	}
}
