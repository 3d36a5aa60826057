/* view_mouse: a click selects a row, sorts by a column title (again: reversed), switches a tab or
 * runs a key of the bar; the wheel scrolls. */
#include "view_priv.h"

#include <string.h>

static unsigned wheel(struct view *v, int delta)
{
	if (v->help) {
		v->help_top += delta;
		return VIEW_REDRAW;
	}
	if (v->menu != MENU_NONE && v->menu != MENU_CONFIRM) {
		v->menu_sel += delta;
		v->menu_sel = v->menu_sel < 0             ? 0
		              : v->menu_sel >= v->nr_menu ? v->nr_menu - 1
		                                          : v->menu_sel;
		return VIEW_REDRAW;
	}
	if (v->setup || v->annot || !v->m)
		return 0;
	int *s = &v->sel[v->kind];
	*s += delta;
	*s = *s >= v->nr_idx ? v->nr_idx - 1 : *s < 0 ? 0 : *s;
	view_remember_selection(v);
	return VIEW_REDRAW;
}

/* A click on the tab line: the view under it (" 1 CPUs  2 Tasks ..."). */
static unsigned click_tab(struct view *v, int x)
{
	static const char *const names[VIEW_NR_KINDS] = {"CPUs", "Tasks", "Hotspots", "Events"};
	int x0 = 0;

	for (int i = 0; i < VIEW_NR_KINDS; i++) {
		int w = (int)strlen(names[i]) + 5; /* " N name " and a space */
		if (x >= x0 && x < x0 + w)
			return view_key(v, '1' + i);
		x0 += w;
	}
	return 0;
}

unsigned view_mouse(struct view *v)
{
	MEVENT e;

	if (getmouse(&e) != OK)
		return 0;
	if (e.bstate & BUTTON4_PRESSED)
		return wheel(v, -3);
#ifdef BUTTON5_PRESSED
	if (e.bstate & BUTTON5_PRESSED)
		return wheel(v, 3);
#endif
	if (!(e.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_RELEASED)))
		return 0;
	if (e.bstate & BUTTON1_RELEASED && !(e.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)))
		return 0; /* the press did it */
	if (e.y == LINES - 1) {
		for (int i = 0; i < v->nr_keybar; i++)
			if (e.x >= v->keybar[i].x0 && e.x < v->keybar[i].x1)
				return view_key(v, v->keybar[i].key);
		return 0;
	}
	/* over the menus and screens only the bar and the wheel act */
	if (v->help || v->setup || v->annot || v->menu != MENU_NONE || v->prompt != PROMPT_NONE ||
	    !v->m)
		return 0;
	if (e.y == 2)
		return click_tab(v, e.x);
	if (e.y == BODY_Y - 1) {
		for (int i = 0; i < v->nr_cols; i++)
			if (v->x[i] >= 0 && e.x >= v->x[i] &&
			    e.x < v->x[i] + v->w[i] + FORMAT_GAP) {
				view_sort_col_pick(v, i, true);
				return VIEW_REDRAW;
			}
		return 0;
	}
	if (e.y >= BODY_Y && e.y < BODY_Y + view_body_lines(v)) {
		int i = v->top[v->kind] + e.y - BODY_Y;
		if (i < v->nr_idx) {
			v->sel[v->kind] = i;
			view_remember_selection(v);
			return VIEW_REDRAW;
		}
	}
	return 0;
}
