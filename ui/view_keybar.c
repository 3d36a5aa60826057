/* view_keybar: the F-key bar at the bottom (htop's), per screen, shrunk to the terminal's width. */
#include "view_priv.h"

#include "util.h"

#include <string.h>

struct item {
	const char *key, *label;
	int code; /* what a click on it sends */
	int prio; /* 0 always; larger ones go first when the bar is too wide */
};

static const struct item main_bar[] = {
    {"F1", "Help", KEY_F(1), 0},   {"F2", "Setup", KEY_F(2), 3},  {"F3", "Search", KEY_F(3), 2},
    {"F4", "Filter", KEY_F(4), 2}, {"F5", "Tree", KEY_F(5), 3},   {"F6", "SortBy", KEY_F(6), 1},
    {"F9", "Kill", KEY_F(9), 4},   {"F10", "Quit", KEY_F(10), 0}, {"Tab", "View", '\t', 5},
    {"Spc", "Pause", ' ', 6},      {"Enter", "Hot", '\r', 7},     {"p", "Preset", 'p', 8},
    {"d", "Delay", 'd', 9},        {"s", "Save", 's', 10},
};
static const struct item help_bar[] = {
    {"Esc", "Close", KEY_ESC, 0}, {"Up/Dn", "Scroll", 0, 1}, {"F10", "Quit", KEY_F(10), 0}};
static const struct item setup_bar[] = {{"Spc", "Show/hide", ' ', 0}, {"F7", "Up", KEY_F(7), 1},
                                        {"F8", "Down", KEY_F(8), 1},  {"+-", "Width", 0, 2},
                                        {"r", "Reset", 'r', 3},       {"Esc", "Done", KEY_ESC, 0},
                                        {"F10", "Quit", KEY_F(10), 0}};
static const struct item menu_bar[] = {
    {"Enter", "Pick", '\r', 0}, {"Esc", "Cancel", KEY_ESC, 0}, {"F10", "Quit", KEY_F(10), 1}};
static const struct item confirm_bar[] = {{"y", "Send", 'y', 0}, {"n", "Cancel", 'n', 0}};
static const struct item search_bar[] = {
    {"Enter", "Done", '\r', 0}, {"F3", "Next", KEY_F(3), 0}, {"Esc", "Cancel", KEY_ESC, 0}};
static const struct item filter_bar[] = {{"Enter", "Keep", '\r', 0}, {"Esc", "Clear", KEY_ESC, 0}};
static const struct item annot_bar[] = {{"Enter", "Jump", '\r', 1},
                                        {"n", "Next hot", 'n', 2},
                                        {"Esc", "Back", KEY_ESC, 0},
                                        {"F10", "Quit", KEY_F(10), 0}};

/* The label shown: F5 and Enter say what they do in this view. */
static const char *label_of(const struct view *v, const struct item *it, bool main)
{
	if (main && it->code == KEY_F(5) && v->set.tree)
		return "List";
	if (main && it->code == '\r') /* as act_enter() */
		return v->kind == VIEW_HOTSPOTS           ? "Annotate"
		       : view_table_kind(v) == VIEW_TASKS ? "Detail"
		                                          : "Hot";
	return it->label;
}

static int item_width(const struct view *v, const struct item *it, bool main)
{
	return (int)(strlen(it->key) + strlen(label_of(v, it, main))) + 1;
}

void view_draw_keybar(struct view *v)
{
	const struct item *bar = main_bar;
	size_t n = ARRAY_SIZE(main_bar);
	bool drop[32] = {false};
	int y = LINES - 1, x = 0, total = 0;

#define USE(b) (bar = (b), n = ARRAY_SIZE(b))
	if (v->menu == MENU_CONFIRM)
		USE(confirm_bar);
	else if (v->menu != MENU_NONE)
		USE(menu_bar);
	else if (v->prompt == PROMPT_SEARCH)
		USE(search_bar);
	else if (v->prompt == PROMPT_FILTER)
		USE(filter_bar);
	else if (v->prompt != PROMPT_NONE)
		USE(menu_bar);
	else if (v->help)
		USE(help_bar);
	else if (v->setup)
		USE(setup_bar);
	else if (v->annot)
		USE(annot_bar);
#undef USE
	for (size_t i = 0; i < n; i++)
		total += item_width(v, &bar[i], bar == main_bar);
	while (total > COLS) { /* the least needed first, the rightmost of equals */
		int worst = -1;
		for (size_t i = 0; i < n; i++)
			if (!drop[i] && bar[i].prio > 0 &&
			    (worst < 0 || bar[i].prio >= bar[worst].prio))
				worst = (int)i;
		if (worst < 0)
			break;
		drop[worst] = true;
		total -= item_width(v, &bar[worst], bar == main_bar);
	}
	view_bar(v, y, THEME_KEY_LABEL);
	v->nr_keybar = 0;
	for (size_t i = 0; i < n && x < COLS; i++) {
		const char *label = label_of(v, &bar[i], bar == main_bar);
		if (drop[i])
			continue;
		int x0 = x, kw = (int)strlen(bar[i].key), lw = (int)strlen(label);
		view_put(v, y, x, kw, bar[i].key, THEME_KEY, true);
		view_put(v, y, x + kw, lw + 1, label, THEME_KEY_LABEL, true);
		x += kw + lw + 1;
		if (v->nr_keybar < (int)ARRAY_SIZE(v->keybar) && bar[i].code)
			v->keybar[v->nr_keybar++] = (struct view_keybar_item){x0, x, bar[i].code};
	}
}
