/* view_keys: what the keys of the interactive view do. */
#include "view_priv.h"

#include "hotkeys.h"
#include "util.h"
#include "view_hist.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ---- keys ---- */

static void move_sel(struct view *v, int delta)
{
	int *s = &v->sel[v->kind];

	*s += delta;
	if (*s >= v->nr_idx)
		*s = v->nr_idx - 1;
	if (*s < 0)
		*s = 0;
	view_remember_selection(v);
}

static void set_view(struct view *v, enum view_kind k)
{
	v->kind = k;
	v->filter[0] = '\0';
	if (v->prompt == PROMPT_FILTER)
		v->prompt = PROMPT_NONE;
}

static void cycle_sort(struct view *v, int dir)
{
	struct sort_key *k = &v->sort[v->kind];
	const struct col *c = view_sort_col(v);
	int i = c && k->index >= 0 ? (int)(c - v->cols) : -1;

	if (!v->nr_cols)
		return;
	i += dir;
	if (i < 0)
		i = v->nr_cols - 1;
	if (i >= v->nr_cols)
		i = 0;
	k->kind = v->cols[i].kind;
	k->index = v->cols[i].index;
	k->reverse = false;
	v->hot_sort_picked |= v->kind == VIEW_HOTSPOTS;
}

/* Enter: hotspots of the selected task or CPU. */
static unsigned open_hotspots(struct view *v)
{
	int s = v->sel[v->kind];

	if (s < 0 || s >= v->nr_idx)
		return 0;
	int r = v->idx[s];
	if (view_table_kind(v) == VIEW_TASKS) {
		if (r < 0)
			return 0; /* a summary row: no one process */
		v->set.hot_filter = true;
		v->set.filter_pid = v->m->tasks[r].pid;
		v->set.filter_cpu = -1;
	} else if (v->kind == VIEW_CPUS) {
		v->set.hot_filter = r >= 0;
		v->set.filter_pid = -1;
		v->set.filter_cpu = r >= 0 ? v->m->cpus[r].cpu : -1;
	} else {
		return 0;
	}
	v->back = v->kind;
	set_view(v, VIEW_HOTSPOTS);
	v->sel[VIEW_HOTSPOTS] = 0;
	v->sel_id_valid[VIEW_HOTSPOTS] = false;
	return VIEW_PROFILE;
}

static unsigned key_prompt(struct view *v, int ch)
{
	size_t n;

	if (v->prompt == PROMPT_FILTER) {
		n = strlen(v->filter);
		if (ch == KEY_ESC) {
			v->filter[0] = '\0';
			v->prompt = PROMPT_NONE;
		} else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
			v->prompt = PROMPT_NONE;
		} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
			if (n)
				v->filter[n - 1] = '\0';
		} else if (ch >= 32 && ch < 127 && n + 1 < sizeof(v->filter)) {
			v->filter[n] = (char)ch;
			v->filter[n + 1] = '\0';
		}
		v->sel[v->kind] = 0;
		v->sel_id_valid[v->kind] = false;
		return VIEW_REDRAW;
	}
	if (v->prompt == PROMPT_DELAY) {
		n = strlen(v->input);
		if (ch == KEY_ESC) {
			v->prompt = PROMPT_NONE;
		} else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
			uint64_t ns;
			v->prompt = PROMPT_NONE;
			if (!v->input[0])
				return VIEW_REDRAW;
			/* the bounds of -d */
			if (util_parse_seconds(v->input, &ns)) {
				snprintf(v->status, sizeof(v->status),
				         "delay '%s' not set: give seconds from 0.01 to 86400",
				         v->input);
				return VIEW_REDRAW;
			}
			v->set.interval_ns = ns;
			snprintf(v->status, sizeof(v->status), "refresh every %s s", v->input);
			return VIEW_DELAY | VIEW_REDRAW;
		} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
			if (n)
				v->input[n - 1] = '\0';
		} else if ((isdigit(ch) || ch == '.') && n + 1 < sizeof(v->input)) {
			v->input[n] = (char)ch;
			v->input[n + 1] = '\0';
		}
		return VIEW_REDRAW;
	}
	if (v->prompt == PROMPT_TIME) {
		n = strlen(v->input);
		if (ch == KEY_ESC) {
			v->prompt = PROMPT_NONE;
		} else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
			v->prompt = PROMPT_NONE;
			if (!v->input[0])
				return VIEW_REDRAW;
			util_strlcpy(v->set.when, v->input, sizeof(v->set.when));
			return VIEW_GOTO | VIEW_REDRAW;
		} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
			if (n)
				v->input[n - 1] = '\0';
		} else if ((isdigit(ch) || ch == ':' || ch == '-' || ch == ' ' || ch == 'T') &&
		           n + 1 < sizeof(v->input)) {
			v->input[n] = (char)ch;
			v->input[n + 1] = '\0';
		}
		return VIEW_REDRAW;
	}
	/* PROMPT_PRESET */
	if (ch == KEY_ESC || ch == 'q') {
		v->prompt = PROMPT_NONE;
	} else if (ch == KEY_UP && v->preset_sel > 0) {
		v->preset_sel--;
	} else if (ch == KEY_DOWN && v->preset_sel + 1 < v->cfg.nr_presets) {
		v->preset_sel++;
	} else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
		v->prompt = PROMPT_NONE;
		util_strlcpy(v->set.preset, v->cfg.presets[v->preset_sel], sizeof(v->set.preset));
		/* other columns: the sort is the new session's (or CPU%) */
		v->task_sort_from_model = true;
		return VIEW_PRESET | VIEW_REDRAW;
	}
	return VIEW_REDRAW;
}

/* ---- the key map: each action a function, bound to its keys below ---- */

static unsigned act_quit(struct view *v, int ch)
{
	return VIEW_QUIT;
}

static unsigned act_save(struct view *v, int ch)
{
	return VIEW_SAVE;
}

static unsigned act_pause(struct view *v, int ch)
{
	v->paused = !v->paused;
	return VIEW_PAUSE | VIEW_REDRAW;
}

static unsigned act_help(struct view *v, int ch)
{
	v->help = true;
	v->help_top = 0;
	return VIEW_REDRAW;
}

static unsigned act_next_view(struct view *v, int ch)
{
	int step = ch == KEY_BTAB ? VIEW_NR_KINDS - 1 : 1;

	set_view(v, (enum view_kind)((v->kind + step) % VIEW_NR_KINDS));
	return VIEW_REDRAW;
}

static unsigned act_view(struct view *v, int ch)
{
	set_view(v, (enum view_kind)(ch - '1'));
	return VIEW_REDRAW;
}

static unsigned act_move(struct view *v, int ch)
{
	int page = view_body_lines(v) > 1 ? view_body_lines(v) - 1 : 1;

	move_sel(v, ch == KEY_UP      ? -1
	            : ch == KEY_DOWN  ? 1
	            : ch == KEY_PPAGE ? -page
	            : ch == KEY_NPAGE ? page
	            : ch == KEY_HOME  ? -v->nr_idx
	                              : v->nr_idx);
	return VIEW_REDRAW;
}

static unsigned act_sort(struct view *v, int ch)
{
	if (ch == KEY_F(6))
		return view_menu_sort(v); /* a menu (view_menu.c) */
	cycle_sort(v, ch == '<' || ch == ',' ? -1 : 1);
	return VIEW_REDRAW;
}

static unsigned act_reverse(struct view *v, int ch)
{
	v->sort[v->kind].reverse = !v->sort[v->kind].reverse;
	return VIEW_REDRAW;
}

static unsigned act_filter(struct view *v, int ch)
{
	v->prompt = PROMPT_FILTER;
	return VIEW_REDRAW;
}

static unsigned act_escape(struct view *v, int ch)
{
	if (v->filter[0]) {
		v->filter[0] = '\0';
	} else if (view_table_kind(v) == VIEW_TASKS && v->user[0]) {
		v->user[0] = '\0'; /* u */
	} else if (v->kind == VIEW_HOTSPOTS && v->set.hot_filter) {
		v->set.hot_filter = false;
		v->set.filter_pid = -1;
		v->set.filter_cpu = -1;
		set_view(v, v->back);
		return VIEW_PROFILE | VIEW_REDRAW;
	}
	return VIEW_REDRAW;
}

static unsigned act_annotate(struct view *v, int ch);

static unsigned act_enter(struct view *v, int ch)
{
	if (v->kind == VIEW_HOTSPOTS)
		return act_annotate(v, 'a');
	if (view_table_kind(v) == VIEW_TASKS) /* its detail pane; Enter there: its hotspots */
		return view_open_detail(v) | VIEW_REDRAW;
	return open_hotspots(v) | VIEW_REDRAW;
}

/* ← → [ ]: through the history kept (pausing the live screen) or a replay. */
static unsigned act_step(struct view *v, int ch)
{
	unsigned act = VIEW_STEP | VIEW_REDRAW;

	v->set.step += ch == KEY_LEFT ? -1 : ch == KEY_RIGHT ? 1 : ch == '[' ? -10 : 10;
	if (!v->paused && (!v->cfg.replay || v->set.step < 0)) {
		v->paused = true; /* a live screen stops to be looked back at */
		act |= VIEW_PAUSE;
	}
	return act;
}

static unsigned act_goto(struct view *v, int ch)
{
	if (v->cfg.no_history && !v->cfg.replay) { /* no prompt for nothing */
		snprintf(v->status, sizeof(v->status), "g: no history kept (--history 0)");
		return VIEW_REDRAW;
	}
	v->prompt = PROMPT_TIME;
	v->input[0] = '\0';
	return VIEW_REDRAW;
}

static unsigned act_speed(struct view *v, int ch)
{
	static const unsigned speeds[] = {1, 2, 10, 60};
	size_t i = 0;

	if (!v->cfg.replay) {
		snprintf(v->status, sizeof(v->status), "x: the speed of a replay (--replay FILE)");
		return VIEW_REDRAW;
	}
	while (i < ARRAY_SIZE(speeds) && speeds[i] != v->set.speed)
		i++;
	v->set.speed = speeds[(i + 1) % ARRAY_SIZE(speeds)];
	snprintf(v->status, sizeof(v->status), "plays at x%u", v->set.speed);
	return VIEW_SPEED | VIEW_REDRAW;
}

/* Keys that change what is counted mean nothing in a replay. */
static bool replay_refuses(struct view *v, int ch)
{
	if (!v->cfg.replay)
		return false;
	snprintf(v->status, sizeof(v->status),
	         "%c: a replay shows what was recorded; it counts "
	         "nothing",
	         ch);
	return true;
}

static unsigned act_annotate(struct view *v, int ch)
{
	if (replay_refuses(v, ch))
		return VIEW_REDRAW;
	if (v->timeline[0]) {
		snprintf(v->status, sizeof(v->status),
		         "a annotates the live hotspots: space comes back to them");
		return VIEW_REDRAW;
	}
	if (v->kind != VIEW_HOTSPOTS) {
		snprintf(v->status, sizeof(v->status), "a annotates a hotspot: go to Hotspots (3)");
		return VIEW_REDRAW;
	}
	return view_open_annotate(v) | VIEW_REDRAW;
}

static unsigned act_delay(struct view *v, int ch)
{
	if (replay_refuses(v, ch))
		return VIEW_REDRAW;
	v->prompt = PROMPT_DELAY;
	v->input[0] = '\0';
	return VIEW_REDRAW;
}

static unsigned act_threads(struct view *v, int ch)
{
	if (replay_refuses(v, ch))
		return VIEW_REDRAW;
	if (!v->cfg.can_reopen) {
		snprintf(v->status, sizeof(v->status), "H: %s", v->cfg.cannot_reopen);
		return VIEW_REDRAW;
	}
	v->set.threads = !v->set.threads;
	snprintf(v->status, sizeof(v->status), "a row per %s",
	         v->set.threads ? "thread" : "process");
	return VIEW_THREADS | VIEW_REDRAW;
}

static unsigned act_hide(struct view *v, int ch)
{
	bool *hide = ch == 'K' ? &v->set.hide_kernel : &v->set.hide_user;
	bool *other = ch == 'K' ? &v->set.hide_user : &v->set.hide_kernel;

	if (replay_refuses(v, ch))
		return VIEW_REDRAW;
	*hide = !*hide;
	if (*hide)
		*other = false; /* hiding both would hide everything */
	snprintf(v->status, sizeof(v->status), "%s hotspots %s (from the next interval)",
	         ch == 'K' ? "kernel" : "user-space", *hide ? "hidden" : "shown");
	return VIEW_PROFILE | VIEW_REDRAW;
}

static unsigned act_accumulate(struct view *v, int ch)
{
	if (replay_refuses(v, ch))
		return VIEW_REDRAW;
	v->set.accumulated = !v->set.accumulated;
	snprintf(v->status, sizeof(v->status), "hotspots %s (from the next interval)",
	         v->set.accumulated ? "since the start" : "of each interval");
	return VIEW_PROFILE | VIEW_REDRAW;
}

static unsigned act_group(struct view *v, int ch)
{
	const char *cur = v->set.hot_keys[0]                   ? v->set.hot_keys
	                  : v->m && v->m->sampling.hot_keys[0] ? v->m->sampling.hot_keys
	                                                       : HOTKEYS_DEFAULT;

	util_strlcpy(v->set.hot_keys, hotkeys_next(cur), sizeof(v->set.hot_keys));
	v->expanded = false;
	snprintf(v->status, sizeof(v->status), "hotspots by %s (from the next interval)",
	         v->set.hot_keys);
	return VIEW_PROFILE | VIEW_REDRAW;
}

/* The hotspot row of the selection (a tree line selects its row). */
static int selected_hot(const struct view *v)
{
	for (int i = v->sel[v->kind]; i >= 0 && i < v->nr_idx; i--)
		if (v->idx[i] >= 0)
			return i;
	return -1;
}

static unsigned act_expand(struct view *v, int ch)
{
	const bool open = ch == '+' || ch == '=' || ch == KEY_RIGHT;
	int i;

	if (view_table_kind(v) == VIEW_TASKS && v->set.tree && ch != KEY_RIGHT)
		return view_ptree_fold(v, ch == '-' ? '-' : '+'); /* F5 */
	if (v->kind != VIEW_HOTSPOTS || !v->m)
		return 0;
	if (!v->m->sampling.callchain) {
		snprintf(v->status, sizeof(v->status), "call trees need call chains: run with -g");
		return VIEW_REDRAW;
	}
	i = selected_hot(v);
	if (open && i >= 0) {
		v->sel[v->kind] = i;
		view_remember_selection(v);
		v->expanded = true;
		v->expanded_id = v->sel_id[v->kind];
	} else if (!open) {
		if (i >= 0)
			v->sel[v->kind] = i;
		view_remember_selection(v);
		v->expanded = false;
	}
	return VIEW_REDRAW;
}

static unsigned act_callees(struct view *v, int ch)
{
	if (v->kind != VIEW_HOTSPOTS)
		return 0;
	v->callees = !v->callees;
	snprintf(v->status, sizeof(v->status), "call trees show %s",
	         v->callees ? "callees (what the function called)" : "callers (who called it)");
	return VIEW_REDRAW;
}

static unsigned act_presets(struct view *v, int ch)
{
	if (replay_refuses(v, ch))
		return VIEW_REDRAW;
	if (!v->cfg.can_reopen || !v->cfg.nr_presets) {
		snprintf(v->status, sizeof(v->status), "p: %s",
		         v->cfg.cannot_reopen ? v->cfg.cannot_reopen : "no presets");
		return VIEW_REDRAW;
	}
	v->prompt = PROMPT_PRESET;
	v->preset_sel = 0;
	for (int i = 0; i < v->cfg.nr_presets; i++)
		if (v->m && !strcmp(v->cfg.presets[i], v->m->preset))
			v->preset_sel = i;
	return VIEW_REDRAW;
}

static unsigned act_theme(struct view *v, int ch)
{
	char *st = v->status;
	size_t stl = sizeof(v->status);

	if (v->mono_only) {
		snprintf(st, stl, "no colours here (NO_COLOR or the terminal): mono theme only");
		return VIEW_REDRAW;
	}
	v->theme = (v->theme + 1) % v->themes.nr;
	view_apply_theme(v);
	const struct theme *t = &v->themes.t[v->theme];
	if (snprintf(st, stl, "theme %s (%s)%s", t->name, t->origin,
	             COLORS >= 256 ? ", 256 colours" : ", 8 colours") >= (int)stl)
		st[stl - 1] = '\0'; /* a long file name: the status line is cut */
	return VIEW_REDRAW;
}

static unsigned act_hist_series(struct view *v, int ch)
{
	return view_hist_key_series(v);
}

static unsigned act_redraw(struct view *v, int ch)
{
	return VIEW_REDRAW;
}

/* Ctrl-L: the whole screen drawn again, whatever wrote over it. */
static unsigned act_repaint(struct view *v, int ch)
{
	clearok(curscr, TRUE);
	return VIEW_REDRAW;
}

/* F2, F3 and /, F5, F6, u, k and F9, M P T (view_menu.c, view_setup.c, view_ptree.c) */
static unsigned act_setup(struct view *v, int ch)
{
	return view_setup_open(v);
}

static unsigned act_search(struct view *v, int ch)
{
	if (ch == KEY_F(3) && v->search[0])
		return view_search_next(v, false); /* F3 again: the next one */
	return view_search_open(v);
}

static unsigned act_tree(struct view *v, int ch)
{
	return view_ptree_toggle(v);
}

static unsigned act_user(struct view *v, int ch)
{
	return view_menu_user(v);
}

static unsigned act_kill(struct view *v, int ch)
{
	return view_menu_signal(v);
}

static unsigned act_sort_by(struct view *v, int ch)
{
	return view_sort_by(v, ch);
}

/* R: counters per second / per interval. */
static unsigned act_rates(struct view *v, int ch)
{
	(void)ch;
	v->totals = !v->totals;
	util_strlcpy(v->status,
	             v->totals ? "counters: totals per interval (R: per second)"
	                       : "counters: per second (R: totals per interval)",
	             sizeof(v->status));
	return VIEW_REDRAW;
}

/* X: show / hide the columns that are n/s on every row. */
static unsigned act_show_nsup(struct view *v, int ch)
{
	(void)ch;
	v->show_nsup = !v->show_nsup;
	return VIEW_REDRAW;
}

static const struct binding {
	int key;
	unsigned (*act)(struct view *v, int ch);
} bindings[] = {
    {'q', act_quit},           {'Q', act_quit},           {KEY_F(10), act_quit},
    {'s', act_save},           {' ', act_pause},          {'h', act_help},
    {'?', act_help},           {KEY_F(1), act_help},      {'\t', act_next_view},
    {KEY_BTAB, act_next_view}, {'1', act_view},           {'2', act_view},
    {'3', act_view},           {'4', act_view},           {'5', act_view},
    {'R', act_rates},          {'X', act_show_nsup},      {KEY_UP, act_move},
    {KEY_DOWN, act_move},      {KEY_PPAGE, act_move},     {KEY_NPAGE, act_move},
    {KEY_HOME, act_move},      {KEY_END, act_move},       {'<', act_sort},
    {',', act_sort},           {'>', act_sort},           {'.', act_sort},
    {KEY_F(6), act_sort},      {'r', act_reverse},        {'/', act_search},
    {KEY_F(4), act_filter},    {KEY_ESC, act_escape},     {'\r', act_enter},
    {'\n', act_enter},         {KEY_ENTER, act_enter},    {'d', act_delay},
    {'H', act_threads},        {'K', act_hide},           {'U', act_hide},
    {'z', act_accumulate},     {'p', act_presets},        {'t', act_theme},
    {KEY_RESIZE, act_redraw},  {'L' & 0x1f, act_repaint}, {KEY_LEFT, act_step},
    {KEY_RIGHT, act_step},     {'[', act_step},           {']', act_step},
    {'g', act_goto},           {'x', act_speed},          {'G', act_group},
    {'+', act_expand},         {'=', act_expand},         {'-', act_expand},
    {'c', act_callees},        {'a', act_annotate},       {'y', act_hist_series},
    {'\\', act_filter},        {KEY_F(2), act_setup},     {KEY_F(3), act_search},
    {KEY_F(5), act_tree},      {'u', act_user},           {'k', act_kill},
    {KEY_F(9), act_kill},      {'M', act_sort_by},        {'P', act_sort_by},
    {'T', act_sort_by},
};

/* In the help: arrows and pages scroll it; F10 quits; any other key (q,
 * Esc, h, F1 among them) closes it. */
static unsigned key_help(struct view *v, int ch)
{
	if (ch == KEY_UP || ch == KEY_DOWN || ch == KEY_PPAGE || ch == KEY_NPAGE) {
		v->help_top += ch == KEY_UP ? -1 : ch == KEY_DOWN ? 1 : ch == KEY_PPAGE ? -10 : 10;
		return VIEW_REDRAW;
	}
	v->help = false;
	return ch == KEY_F(10) ? VIEW_QUIT : VIEW_REDRAW;
}

static unsigned key(struct view *v, int ch)
{
	if (ch == KEY_RESIZE)
		return VIEW_REDRAW; /* closes no help, menu or prompt */
	if (ch == KEY_MOUSE)
		return view_mouse(v);
	if (v->menu != MENU_NONE)
		return view_key_menu(v, ch);
	if (v->prompt == PROMPT_SEARCH)
		return view_key_search(v, ch);
	if (v->prompt != PROMPT_NONE)
		return key_prompt(v, ch);
	if (v->help)
		return key_help(v, ch);
	if (v->setup)
		return view_key_setup(v, ch);
	if (v->annot)
		return view_key_annotate(v, ch);
	if (view_detail_shown(v)) {
		unsigned act = view_key_detail(v, ch);
		if (!(act & VIEW_DETAIL_PASS))
			return act;
	}
	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++)
		if (bindings[i].key == ch)
			return bindings[i].act(v, ch);
	return 0;
}

unsigned view_key(struct view *v, int ch)
{
	return key(v, ch);
}

unsigned view_input(struct view *v)
{
	unsigned act = 0;
	int ch;

	v->set.step = 0; /* the steps of the keys read now */
	while ((ch = getch()) != ERR) {
		if (ch != KEY_RESIZE)
			v->status[0] = '\0';
		act |= key(v, ch);
		if (act & VIEW_QUIT)
			break;
	}
	return act;
}

void view_status(struct view *v, const char *msg)
{
	util_strlcpy(v->status, msg, sizeof(v->status));
	view_render(v);
}

const struct view_settings *view_settings(const struct view *v)
{
	return &v->set;
}

bool view_paused(const struct view *v)
{
	return v->paused;
}

/* The preset chooser (p), over the rows. */
void view_draw_presets(struct view *v)
{
	int n = v->cfg.nr_presets, w = 30, h = n + 2, y0, x0;

	if (h > LINES - BODY_Y - 1)
		h = LINES - BODY_Y - 1;
	y0 = BODY_Y;
	x0 = (COLS - w) / 2;
	for (int i = 0; i < h; i++)
		view_put(v, y0 + i, x0, w, "", THEME_HEADER, true);
	view_put(v, y0, x0, w, " Preset (Enter, Esc)", THEME_HEADER, true);
	for (int i = 0; i < n && i < h - 2; i++) {
		char buf[64];
		snprintf(buf, sizeof(buf), " %s%s", v->cfg.presets[i],
		         !strcmp(v->cfg.presets[i], v->m ? v->m->preset : "") ? " *" : "");
		view_put(v, y0 + 1 + i, x0 + 1, w - 2, buf,
		         i == v->preset_sel ? THEME_ROW_SELECTED : THEME_ROW, true);
	}
}

/* The help screen (h): one line each. */
const char *const view_help_lines[] = {
    "pfmtop keys",
    "",
    "  Tab, Shift-Tab  next / previous view",
    "  1 2 3 4 5       Overview (meters, tasks, hotspots), CPUs, Tasks, Hotspots, Events",
    "  R               counters per second (the default) / totals per interval",
    "  X               show / hide the columns not supported on any row",
    "  Up/Down         move the selection",
    "  PgUp/PgDn       a page up / down",
    "  Home/End        first / last row",
    "  < >             sort by the column left / right of the current one",
    "  r               reverse the sort order",
    "  / or F3         search: jump to the next row matching (F3 again: the next)",
    "  \\ or F4         filter rows: only those matching (Enter keeps, Esc clears)",
    "  Esc             clear the filter, then the user; filtered hotspots: back",
    "  Enter           on a task: its detail pane; on a CPU: its hotspots;",
    "                  on a hotspot: annotate",
    "  y               what the HIST sparkline shows: the sort column, or each",
    "                  counter in turn",
    "  a               on a hotspot: annotate its function (code, % per instruction)",
    "  space           pause / resume updates (a replay: play / pause)",
    "  Left / Right    an interval back / on (the history kept, or a replay)",
    "  [ ]             ten intervals back / on",
    "  g               go to a time (HH:MM:SS, or YYYY-MM-DD HH:MM:SS)",
    "  x               a replay's speed: x1, x2, x10, x60",
    "  d               set the refresh delay in seconds",
    "  H               a row per thread / per process",
    "  K               hide / show kernel hotspots",
    "  U               hide / show user-space hotspots",
    "  z               hotspots of this interval / since the start",
    "  G               group hotspots by the next keys (dso,sym; sym; pid,sym ...)",
    "  + -             with -g: expand / fold a hotspot's call tree (F5: tasks)",
    "  c               the tree shows callers / callees",
    "  p               choose an event preset (counters are reopened; a sort",
    "                  column it lacks: by CPU%)",
    "  t               next colour theme",
    "  s               save a text snapshot to pfmtop-DATE-TIME.txt here",
    "  Ctrl-L          draw the whole screen again",
    "  h, ?, F1        this help (Esc, q or any other key closes it; F10 quits)",
    "  q, F10          quit; the view's settings are saved (options given",
    "                  override them) to:",
    VIEW_HELP_RC,
    "",
    "With a command (-- CMD): its output goes to a file (--command-output), named",
    "on the status line; at its exit its totals stay, q prints them as perf stat",
    "does and exits with its status.",
    "The first snapshot has task counters: tasks busy so far are counted from",
    "the start, with the CPUs.",
    "",
    "As in htop (the bar at the bottom names them; a click on one runs it):",
    "  F2              columns of this view: show/hide, order (F7 F8), width (+ -)",
    "  F5              tasks as a tree by parent; - folds a task, + unfolds it",
    "  F6              sort by a column chosen from a menu",
    "  M P T           sort by page-faults (no memory column), CPU%, task-clock",
    "  u               only the tasks of one user (a menu)",
    "  k or F9         send a signal to the selected task (a menu, then y/n)",
    "  mouse           click: select a row, sort by a title (again: reverse), run",
    "                  a key of the bottom bar; the wheel scrolls",
    "  Search and filter match a task's command, user or PID; a hotspot's",
    "  symbol, module or command; an event's name.",
    "",
    "Annotate screen: the function's instructions with the share of its samples",
    "(since it opened, or since the start), the hottest one selected; source",
    "lines where the binary has line tables.",
    "  Up/Down, PgUp/PgDn, Home/End  move",
    "  Enter           on a jump or call inside the function (-> ADDR): go there",
    "  Backspace, Left back to where the last jump was followed from",
    "  n               the next hottest instruction after the selected one",
    "  q, Esc, a       back to the hotspots",
    "",
    "Detail pane (Enter on a task): who it is, its full command line, a graph",
    "of each counter over the last intervals, its hotspots.",
    "  Enter           its hotspots in the Hotspots view (Esc comes back)",
    "  Up/Down         scroll the graphs",
    "  Esc, q          back to the table",
    "",
    "HIST: the last intervals of a row (of the live stream, not the history",
    "kept); numbers that changed since the last refresh are highlighted.",
    "",
    "Cells: n/s not supported (the Events view says why), n/c not counted",
    "(did not run), 'N%' after a value: multiplexed, scaled from N% of the",
    "interval. K, M, G: thousands, millions, billions (one decimal).",
    "Counters are per second (/s; task-clock and cpu-clock as % of a CPU);",
    "R shows what each interval counted instead. COMMAND is the full command",
    "line where it fits. Meters: user (with nice) | system | other (irq,",
    "softirq, steal), from /proc/stat.",
};
const int view_help_nr = (int)(sizeof(view_help_lines) / sizeof(view_help_lines[0]));
