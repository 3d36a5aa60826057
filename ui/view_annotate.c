/* view_annotate: the annotate screen (a hotspot's code and its samples per instruction) and the
 * help. */
#include "view_priv.h"

#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- the help ---- */

void view_draw_help(struct view *v)
{
	int n = view_help_nr, rows = LINES - 1 - BODY_Y + 2;

	if (v->help_top > n - rows)
		v->help_top = n - rows;
	if (v->help_top < 0)
		v->help_top = 0;
	for (int i = 0; i < rows; i++) {
		int y = BODY_Y - 2 + i;
		view_use(v, THEME_ROW);
		move(y, 0);
		clrtoeol();
		if (v->help_top + i >= n)
			continue;
		const char *line = view_help_lines[v->help_top + i];
		char rc[PATH_MAX + 32];
		if (!strcmp(line, VIEW_HELP_RC)) { /* the file in use, not the usual place */
			snprintf(rc, sizeof(rc), "%18s%s", "",
			         v->cfg.replay    ? "nowhere (a replay saves none)"
			         : v->cfg.rc_path ? v->cfg.rc_path
			                          : "nowhere");
			line = rc;
		}
		view_put(v, y, 1, COLS - 1, line,
		         v->help_top + i == 0 ? THEME_COLUMN_TITLE : THEME_ROW, true);
	}
}

/* ---- the annotate screen ---- */

/* a or Enter on a hotspot row: ask for its function. */
unsigned view_open_annotate(struct view *v)
{
	int s = v->sel[VIEW_HOTSPOTS];

	if (v->kind != VIEW_HOTSPOTS || !v->m || s < 0 || s >= v->nr_idx || v->idx[s] < 0 ||
	    v->idx[s] >= v->m->nr_hot)
		return 0;
	const struct model_hotspot *h = &v->m->hot[v->idx[s]];
	v->set.annotate = true;
	v->set.annotate_pid = h->pid;
	v->set.annotate_ip = h->ip;
	v->set.annotate_kernel = h->kernel;
	v->annot = true;
	v->annot_fresh = true;
	v->nr_annot_back = 0;
	return VIEW_PROFILE | VIEW_REDRAW;
}

static unsigned close_annotate(struct view *v)
{
	v->annot = false;
	v->set.annotate = false;
	return VIEW_PROFILE | VIEW_REDRAW;
}

static int code_lines(const struct view *v)
{
	int n = LINES - 3 - BODY_Y; /* two title lines above, status and keys below */

	return n > 1 ? n : 1;
}

/* The selection where the model's function asks for it: on the hottest
 * instruction the first time a function is shown. */
static void sync_selection(struct view *v)
{
	const struct model_annotation *a = &v->m->annot;

	if (v->annot_fresh || a->id != v->annot_id) {
		v->annot_fresh = false;
		v->annot_id = a->id;
		v->nr_annot_back = 0;
		v->annot_sel = a->hottest;
		if (v->annot_sel < 0) /* no sample yet: the first instruction */
			for (v->annot_sel = 0; v->annot_sel < a->nr_lines &&
			                       a->lines[v->annot_sel].kind != ANNOTATE_INSN;
			     v->annot_sel++)
				;
		v->annot_top = v->annot_sel - code_lines(v) / 2;
	}
	if (v->annot_sel >= a->nr_lines)
		v->annot_sel = a->nr_lines - 1;
	if (v->annot_sel < 0)
		v->annot_sel = 0;
}

static enum theme_slot share_slot(double share)
{
	return share >= 20 ? THEME_HOT_HIGH : share >= 5 ? THEME_HOT_MID : THEME_HOT_LOW;
}

void view_draw_annotate(struct view *v)
{
	const struct model_annotation *a = v->m ? &v->m->annot : NULL;
	int rows = code_lines(v), y0 = BODY_Y - 2, aw = 4;
	char buf[sizeof(((struct model_annotation *)0)->title) + ANNOTATE_WHY + 64];

	for (int y = y0; y < LINES - 2; y++) {
		view_use(v, THEME_ROW);
		move(y, 0);
		clrtoeol();
	}
	if (!a || !a->active) {
		view_put(v, y0, 0, COLS, " Annotate: reading the function's code...",
		         THEME_COLUMN_TITLE, true);
		return;
	}
	sync_selection(v);
	snprintf(buf, sizeof(buf), " Annotate %s: %" PRIu64 " samples %s", a->title, a->samples,
	         a->partial ? "since this screen opened" : "since the start");
	view_bar(v, y0, THEME_COLUMN_TITLE);
	view_put(v, y0, 0, COLS, buf, THEME_COLUMN_TITLE, true);
	if (!a->nr_lines) {
		snprintf(buf, sizeof(buf), " no code: %s", a->why[0] ? a->why : "nothing to show");
		view_put(v, y0 + 1, 0, COLS, buf, THEME_NOTE, true);
		return;
	}
	snprintf(buf, sizeof(buf), " %s", a->check);
	view_put(v, y0 + 1, 0, COLS, buf, THEME_ROW_DIM, true);
	/* addresses as wide as the last one */
	for (uint64_t last = a->lines[a->nr_lines - 1].addr; aw < 16 && last >> (4 * aw);)
		aw++;
	if (v->annot_sel < v->annot_top)
		v->annot_top = v->annot_sel;
	if (v->annot_sel >= v->annot_top + rows)
		v->annot_top = v->annot_sel - rows + 1;
	if (v->annot_top > a->nr_lines - rows)
		v->annot_top = a->nr_lines - rows;
	if (v->annot_top < 0)
		v->annot_top = 0;
	for (int k = 0; k < rows; k++) {
		int i = v->annot_top + k, y = BODY_Y + k;
		if (i >= a->nr_lines)
			break;
		const struct annotate_line *l = &a->lines[i];
		bool sel = i == v->annot_sel;
		if (sel)
			view_bar(v, y, THEME_ROW_SELECTED);
		if (l->kind == ANNOTATE_SOURCE) {
			view_put(v, y, 9 + aw, COLS - 9 - aw, l->text,
			         sel ? THEME_ROW_SELECTED : THEME_ROW_DIM, true);
			continue;
		}
		if (l->samples) {
			snprintf(buf, sizeof(buf), "%7.2f", l->share);
			view_put(v, y, 0, 7, buf, sel ? THEME_ROW_SELECTED : share_slot(l->share),
			         false);
		}
		if (i == a->hottest)
			view_put(v, y, 7, 1, ">", sel ? THEME_ROW_SELECTED : THEME_HOT_HIGH, true);
		snprintf(buf, sizeof(buf), "%*" PRIx64 ":  %s", aw, l->addr, l->text);
		if (l->target >= 0 && l->target < a->nr_lines)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "  -> %" PRIx64,
			         a->lines[l->target].addr);
		view_put(v, y, 9, COLS - 9, buf, sel ? THEME_ROW_SELECTED : THEME_ROW, true);
	}
}

/* The next instruction after the selection with the most samples below
 * the selected one's (n: walk down the hot spots). */
static int next_hottest(const struct model_annotation *a, int from)
{
	const uint64_t cap = from >= 0 && from < a->nr_lines && a->lines[from].samples
	                         ? a->lines[from].weight
	                         : UINT64_MAX;
	int best = -1;

	for (int i = 0; i < a->nr_lines; i++) {
		const struct annotate_line *l = &a->lines[i];
		if (l->kind != ANNOTATE_INSN || !l->samples || i == from)
			continue;
		/* lighter than the selection, or as heavy and after it */
		if (l->weight > cap || (l->weight == cap && i < from))
			continue;
		if (best < 0 || l->weight > a->lines[best].weight)
			best = i;
	}
	return best;
}

unsigned view_key_annotate(struct view *v, int ch)
{
	const struct model_annotation *a = v->m ? &v->m->annot : NULL;
	int page = code_lines(v) > 1 ? code_lines(v) - 1 : 1, n = a ? a->nr_lines : 0;

	switch (ch) {
	case 'q':
	case 'a':
	case KEY_ESC:
		return close_annotate(v);
	case KEY_F(10):
		return VIEW_QUIT;
	case 'h':
	case '?':
	case KEY_F(1):
		/* the help, from its part about this screen */
		v->help = true;
		v->help_top = 0;
		for (int i = 0; i < view_help_nr; i++)
			if (!strncmp(view_help_lines[i], "Annotate screen", 15))
				v->help_top = i;
		return VIEW_REDRAW;
	case ' ':
		v->paused = !v->paused;
		return VIEW_PAUSE | VIEW_REDRAW;
	case 'L' & 0x1f:
		clearok(curscr, TRUE);
		return VIEW_REDRAW;
	case KEY_RESIZE:
		return VIEW_REDRAW;
	}
	if (!n)
		return 0;
	switch (ch) {
	case KEY_UP:
		v->annot_sel--;
		break;
	case KEY_DOWN:
		v->annot_sel++;
		break;
	case KEY_PPAGE:
		v->annot_sel -= page;
		break;
	case KEY_NPAGE:
		v->annot_sel += page;
		break;
	case KEY_HOME:
		v->annot_sel = 0;
		break;
	case KEY_END:
		v->annot_sel = n - 1;
		break;
	case '\r':
	case '\n':
	case KEY_ENTER:
		if (v->annot_sel >= 0 && v->annot_sel < n && a->lines[v->annot_sel].target >= 0) {
			if (v->nr_annot_back < (int)ARRAY_SIZE(v->annot_back))
				v->annot_back[v->nr_annot_back++] = v->annot_sel;
			v->annot_sel = a->lines[v->annot_sel].target;
			v->annot_top = v->annot_sel - code_lines(v) / 2;
		} else {
			snprintf(
			    v->status, sizeof(v->status),
			    "Enter follows a jump or call inside the function (a line with ->)");
		}
		break;
	case KEY_BACKSPACE:
	case KEY_LEFT:
	case 127:
	case 8:
		if (v->nr_annot_back)
			v->annot_sel = v->annot_back[--v->nr_annot_back];
		break;
	case 'n': {
		int next = next_hottest(a, v->annot_sel);
		if (next >= 0)
			v->annot_sel = next;
		break;
	}
	default:
		return 0;
	}
	if (v->annot_sel >= n)
		v->annot_sel = n - 1;
	if (v->annot_sel < 0)
		v->annot_sel = 0;
	return VIEW_REDRAW;
}
