/* view: the interactive ncurses screen: header, health bar, the body of each view, themes. */
#include "view_priv.h"

#include "cells.h"
#include "format.h"
#include "meter.h"
#include "snapshot.h"
#include "theme.h"
#include "untrusted.h"
#include "util.h"
#include "view_hist.h"

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
	/* ncurses (6.4 at least) flushes after every cursor move while the
	 * screen is in its first state, never left: a frame then goes out in
	 * a write() per move, hundreds for a full one. Left and resumed once,
	 * before anything is drawn or set (endwin() turns the keypad mode
	 * off), it writes a frame in one go. */
	endwin();
	refresh();
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
	/* clicks and the wheel (view_mouse.c); Shift selects text as usual */
	mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
	              | BUTTON5_PRESSED
#endif
	          ,
	          NULL);
	mouseinterval(0);
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
		v->kind = VIEW_OVERVIEW;
	v->back = v->kind;
	v->body_y = BODY_Y;
	v->sort[VIEW_OVERVIEW] = (struct sort_key){C_CPUPCT, 0, false};
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
	view_hist_free(v);
	free(v->idx);
	free(v->tree);
	free(v->ptree_pfx);
	view_cmdlines_free(v->cmdlines);
	free(v);
}

/* ---- drawing ---- */

/*
 * put(), add() and wrap() are the only ways text reaches the screen: each
 * draws it through untrusted_text(), so a name that holds controls (a
 * carriage return, ESC) shows them as ^M, ^[ and cannot move the cursor.
 */

/* The length of text, at most max, when that much of it is printable
 * ASCII (every number, most names): untrusted_text() leaves it as it is
 * and it takes a column a byte. -1 otherwise. */
static int ascii_len(const char *text, int max)
{
	int n = 0;

	for (const unsigned char *u = (const unsigned char *)text; *u && n < max; u++, n++)
		if (*u < 0x20 || *u > 0x7e)
			return -1;
	return n;
}

/*
 * The n cells of c (printable ASCII, attributes set) from y, x, x + n <=
 * COLS: waddnstr()'s cells for the same text in the same attributes,
 * without its per-character decoding, width and control checks. The last
 * column of a line goes through waddnstr() itself: the cursor then ends
 * where it would (the next line). The window's attributes end as the last
 * cell's.
 */
void view_cells(int y, int x, const chtype *c, int n)
{
	const bool edge = x + n >= COLS;

	attrset(c[n - 1] & A_ATTRIBUTES);
	if (n - edge > 0)
		mvaddchnstr(y, x, c, n - edge);
	if (edge) {
		char last = (char)(c[n - 1] & A_CHARTEXT);

		mvaddnstr(y, x + n - 1, &last, 1);
	} else {
		move(y, x + n);
	}
}

/* Text at y, x in width columns (cut, padded), in slot s. */
static void put(struct view *v, int y, int x, int width, const char *text, enum theme_slot slot,
                bool left)
{
	char safe[1024], fit[4096];
	chtype cells[1024];
	int n;

	if (width <= 0 || x >= COLS)
		return;
	if (x + width > COLS)
		width = COLS - x;
	view_use(v, slot);
	/* what shows of the text, when it is ASCII: as view_text_fit() fits
	 * it, cut, padded, right-aligned when !left and narrower */
	n = width < (int)(sizeof(cells) / sizeof(cells[0])) ? ascii_len(text, width) : -1;
	if (n >= 0) {
		const int lead = !left && n < width ? width - n : 0;
		const chtype a = v->attr[slot];
		int k = 0;

		for (; k < lead; k++)
			cells[k] = ' ' | a;
		for (int i = 0; k < width && i < n; i++)
			cells[k++] = (unsigned char)text[i] | a;
		for (; k < width; k++)
			cells[k] = ' ' | a;
		view_cells(y, x, cells, width);
		return;
	}
	const char *s = untrusted_text(safe, sizeof(safe), text);
	/* by columns, not bytes: wide and combining characters (view_text.c) */
	view_text_fit(fit, sizeof(fit), s, width, left, true);
	mvaddstr(y, x, fit);
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
	char safe[1024], fit[4096];
	chtype cells[1024];
	/* all of it ASCII: its width is its length */
	int n = ascii_len(text, (int)sizeof(safe));

	if (*x >= COLS)
		return false;
	view_use(v, slot);
	if (n >= 0 && !text[n] && COLS - *x < (int)(sizeof(cells) / sizeof(cells[0]))) {
		const int w = n < COLS - *x ? n : COLS - *x;
		const chtype a = v->attr[slot];

		for (int i = 0; i < w; i++)
			cells[i] = (unsigned char)text[i] | a;
		if (w > 0)
			view_cells(y, *x, cells, w);
		*x += n;
		return *x < COLS;
	}
	const char *s = untrusted_text(safe, sizeof(safe), text);
	n = view_text_width(s);
	view_text_fit(fit, sizeof(fit), s, COLS - *x, true, false);
	mvaddstr(y, *x, fit);
	*x += n;
	return *x < COLS;
}

bool view_add(struct view *v, int y, int *x, const char *text, enum theme_slot slot)
{
	return add(v, y, x, text, slot);
}

static const char *mode_text(enum model_mode m)
{
	return m == MODEL_SYSTEM ? "system-wide" : m == MODEL_TASKS ? "tasks" : "command";
}

/* Columns text takes on the screen. */
static int text_cols(const char *text)
{
	char safe[1024];
	int n = ascii_len(text, (int)sizeof(safe));

	return n >= 0 && !text[n] ? n : view_text_width(untrusted_text(safe, sizeof(safe), text));
}

/* The header's fields, in order; when the line is too narrow the one of the
 * largest drop goes first, whole, so nothing is cut mid-word. */
struct header_field {
	const char *label, *value;
	int drop; /* 0: always kept */
};

static void draw_header(struct view *v)
{
	const struct model *m = v->m;
	char mode[320], every[32], badge[128];
	struct header_field f[] = {
	    {" pfmtop ", PFMTOP_VERSION, 0},
	    {"  host ", m ? m->host : NULL, 3},
	    {"  kernel ", m ? m->kernel : NULL, 5},
	    {"  ", m ? mode : NULL, 4},
	    {"  every ", every, 1},
	    {"  preset ", m ? m->preset : v->set.preset, 2},
	};
	const int nf = (int)ARRAY_SIZE(f);
	int x = 0, total = 0, room = COLS, bw = 0;

	if (m)
		snprintf(mode, sizeof(mode), "%s (%s)", mode_text(m->mode), m->target);
	snprintf(every, sizeof(every), "%.2gs", (double)v->set.interval_ns / 1e9);
	badge[0] = '\0';
	if (v->timeline[0])
		snprintf(badge, sizeof(badge), " %s ", v->timeline);
	else if (v->paused)
		snprintf(badge, sizeof(badge), " PAUSED ");
	if (badge[0]) {
		bw = (int)strlen(badge);
		if (bw > COLS / 2)
			bw = COLS / 2;
		room = COLS - bw - 1;
	}
	for (int i = 0; i < nf; i++)
		if (f[i].value)
			total += text_cols(f[i].label) + text_cols(f[i].value);
	while (total > room) {
		int worst = -1;
		for (int i = 0; i < nf; i++)
			if (f[i].value && f[i].drop && (worst < 0 || f[i].drop > f[worst].drop))
				worst = i;
		if (worst < 0)
			break;
		total -= text_cols(f[worst].label) + text_cols(f[worst].value);
		f[worst].value = NULL;
	}
	view_bar(v, 0, THEME_HEADER);
	for (int i = 0; i < nf; i++) {
		if (!f[i].value || x >= room)
			continue;
		add(v, 0, &x, f[i].label, THEME_HEADER);
		add(v, 0, &x, f[i].value, THEME_HEADER_VALUE);
	}
	if (badge[0])
		put(v, 0, COLS - bw, bw, badge, THEME_BADGE_THROTTLE, true);
}

static void badge(struct view *v, int y, int *x, const char *text, enum theme_slot slot)
{
	add(v, y, x, " ", THEME_HEADER);
	add(v, y, x, text, slot);
}

/* n in human units (K, M, G with one decimal), as the badges show it. */
static const char *human(uint64_t n, char *buf, size_t len)
{
	return meter_human((double)n, 0, 12, buf, len);
}

/* The sampling-health bar: lost, throttled, max rate, and badges. */
static void draw_health(struct view *v)
{
	const struct model *m = v->m;
	const struct model_sampling *s = m ? &m->sampling : NULL;
	int x = 0, mux = 0, nsup = 0, fallbacks = 0;
	char buf[256], h1[16], h2[16];

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
	const bool lowered_now = s->max_rate_lowered && s->max_rate > 0 && s->max_rate_start > 0 &&
	                         s->max_rate < s->max_rate_start;
	if (s->enabled) {
		add(v, 1, &x, " sampling ", THEME_HEADER);
		snprintf(buf, sizeof(buf), "%s %s%s%s", s->event, s->freq ? "" : "every ",
		         human(s->freq ? s->freq : s->period, h1, sizeof(h1)),
		         s->freq ? " Hz" : "");
		add(v, 1, &x, buf, THEME_HEADER_VALUE);
		add(v, 1, &x, "  interval: lost ", THEME_HEADER);
		snprintf(
		    buf, sizeof(buf), "%s rec/%s smp",
		    human(s->interval.lost_records, h1, sizeof(h1)),
		    human(s->interval.lost_samples + s->interval.lost_samples_hw, h2, sizeof(h2)));
		add(v, 1, &x, buf, THEME_HEADER_VALUE);
		add(v, 1, &x, "  throttled ", THEME_HEADER);
		snprintf(buf, sizeof(buf), "%d/%d", s->throttled_now, s->nr_rings);
		add(v, 1, &x, buf, THEME_HEADER_VALUE);
		add(v, 1, &x, "  max rate ", THEME_HEADER);
		/* "(lowered)" while it is: a rate raised again clears it. */
		snprintf(buf, sizeof(buf), "%s/s%s",
		         human(s->max_rate > 0 ? (uint64_t)s->max_rate : 0, h1, sizeof(h1)),
		         lowered_now ? " (lowered)" : "");
		add(v, 1, &x, buf, THEME_HEADER_VALUE);
	} else {
		add(v, 1, &x, " sampling off", THEME_HEADER);
	}
	add(v, 1, &x, " ", THEME_HEADER);
	if (s->enabled && (s->interval.lost_records || s->total.lost_records)) {
		/* since the start: a loss stays a fact of the run */
		snprintf(buf, sizeof(buf), "LOST %s in all",
		         human(s->total.lost_samples, h1, sizeof(h1)));
		badge(v, 1, &x, buf, THEME_BADGE_LOST);
	}
	/* now: clears when no ring is throttled and the rate is back */
	if (s->enabled && (s->throttled_now || lowered_now))
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

static const char *const view_names[VIEW_NR_KINDS] = {"Overview", "CPUs", "Tasks", "Hotspots",
                                                      "Events"};

static void draw_tabs(struct view *v)
{
	const struct col *c = v->m ? view_sort_col(v) : NULL;
	char buf[160], tab[48];
	int x = 0, full = 0;

	buf[0] = '\0';
	if (c && v->sort[v->kind].index >= 0)
		snprintf(buf, sizeof(buf), "sort %s%s", c->title,
		         v->sort[v->kind].reverse ? " (rev)" : "");
	if (v->filter[0] || v->prompt == PROMPT_FILTER) {
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof(buf) - n, "%sfilter '%s'", n ? "  " : "", v->filter);
	}
	if (view_table_kind(v) == VIEW_TASKS && (v->user[0] || v->set.tree)) {
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof(buf) - n, "%s%s%s%s", n ? "  " : "",
		         v->set.tree ? "tree" : "", v->user[0] && v->set.tree ? "  " : "",
		         v->user[0] ? "user " : "");
		n = strlen(buf);
		snprintf(buf + n, sizeof(buf) - n, "%s", v->user);
	}
	for (int i = 0; i < VIEW_NR_KINDS; i++)
		full += (int)strlen(view_names[i]) + 5;
	/* Narrow: the other tabs by their numbers only, so that the sort and
	 * the filter keep their place on the right. */
	bool compact = buf[0] && full + (int)strlen(buf) + 2 >= COLS;

	view_bar(v, 2, THEME_TAB);
	for (int i = 0; i < VIEW_NR_KINDS; i++) {
		if (compact && i != (int)v->kind)
			snprintf(tab, sizeof(tab), " %d ", i + 1);
		else
			snprintf(tab, sizeof(tab), " %d %s ", i + 1, view_names[i]);
		add(v, 2, &x, tab, i == (int)v->kind ? THEME_TAB_ACTIVE : THEME_TAB);
		add(v, 2, &x, " ", THEME_TAB);
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
		             view_thread_rows(m) ? "threads" : "processes");
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
		n = snprintf(buf, sizeof(buf), "%d of %d, %s, %s%" PRIu64 " samples%s%s", m->nr_hot,
		             m->hot_total, s->accumulated ? "since the start" : "this interval",
		             s->total_samples ? "shares of " : "",
		             s->total_samples ? s->total_samples
		             : s->accumulated ? s->total.samples
		                              : s->interval.samples,
		             s->hide_kernel ? ", kernel hidden" : "",
		             s->hide_user ? ", user space hidden" : "");
		if (s->hot_other.samples) /* what the rows shown leave */
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", other %.1f%%",
			              s->hot_other.share);
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

	int y = v->body_y - 1;

	view_bar(v, y, THEME_COLUMN_TITLE);
	for (int i = 0; i < v->nr_cols; i++) {
		const struct col *c = &v->cols[i];
		if (v->x[i] < 0)
			continue;
		/* a narrow column: its brief title rather than a cut one */
		bool brief = c->brief[0] && (int)strlen(c->title) > v->w[i];
		put(v, y, v->x[i], v->w[i], brief ? c->brief : c->title,
		    c == sc && v->sort[v->kind].index >= 0 ? THEME_COLUMN_SORTED
		                                           : THEME_COLUMN_TITLE,
		    c->f.left);
	}
}

int view_body_lines(const struct view *v)
{
	int n = LINES - 1 - v->body_y - v->below;

	if (v->status[0] || v->banner[0] || v->prompt == PROMPT_FILTER ||
	    v->prompt == PROMPT_DELAY || v->prompt == PROMPT_TIME || v->prompt == PROMPT_SEARCH ||
	    v->menu == MENU_CONFIRM)
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
		int i = *top + line, y = v->body_y + line;
		view_use(v, THEME_ROW);
		move(y, 0);
		clrtoeol();
		if (i >= v->nr_idx)
			continue;
		int r = v->idx[i];
		bool selected = i == sel;
		enum theme_slot base = THEME_ROW;
		if (view_table_kind(v) == VIEW_TASKS && r >= 0 && v->m->tasks[r].exited)
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
			if (v->cols[c].kind == C_HIST) {
				view_hist_cell(v, y, v->x[c], v->w[c], r,
				               selected ? THEME_ROW_SELECTED : base);
				continue;
			}
			s = view_cell(v, r, &v->cols[c], v->w[c], buf, sizeof(buf));
			if (!selected && s == THEME_ROW && base == THEME_ROW &&
			    view_hist_changed(v, r, &v->cols[c], v->w[c], buf))
				s = THEME_VALUE_CHANGED;
			if (selected)
				s = THEME_ROW_SELECTED;
			else if (s == THEME_ROW)
				s = base;
			put(v, y, v->x[c], v->w[c], buf, s, v->cols[c].f.left);
			if (v->x[c] + v->w[c] < COLS && !selected) {
				const chtype blank = ' ' | v->attr[base];

				view_cells(y, v->x[c] + v->w[c], &blank, 1);
			}
		}
	}
	if (!v->nr_idx) {
		const char *msg = v->filter[0] ? "no rows match the filter (Esc clears it)"
		                  : v->kind == VIEW_HOTSPOTS && !v->m->sampling.enabled
		                      ? "no hotspots: sampling is off"
		                      : "no rows this interval";
		put(v, v->body_y, 1, COLS - 1, msg, THEME_ROW_DIM, true);
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
			         s->max_rate,
			         s->max_rate_lowered ? " (lowered by the kernel during the run)"
			                             : "",
			         s->why[0] ? "; " : "", s->why);
			y = wrap(v, y, ymax, line, THEME_ROW_DIM, 1);
		}
		for (int i = 0; i < m->nr_notes && y < ymax; i++) {
			snprintf(line, sizeof(line), "note: %s", m->notes[i]);
			y = wrap(v, y, ymax, line, THEME_NOTE, 1);
		}
	}
}

void view_draw_table(struct view *v, int nlines)
{
	draw_titles(v);
	draw_rows(v, nlines);
}

void view_draw_hidden(struct view *v, int y)
{
	char buf[512];

	view_use(v, THEME_ROW);
	move(y, 0);
	clrtoeol();
	if (!v->hidden[0])
		return;
	/* the longest that fits: never cut in the middle of a word */
	const char *what = v->show_nsup ? "shown" : "hidden", *key = v->show_nsup ? "hide" : "show";
	snprintf(buf, sizeof(buf), "%s: %s: %s; press X to %s them", what, v->hidden, v->hidden_why,
	         key);
	if ((int)strlen(buf) > COLS)
		snprintf(buf, sizeof(buf), "%s (n/s): %s; X %ss them", what, v->hidden, key);
	if ((int)strlen(buf) > COLS)
		snprintf(buf, sizeof(buf), "n/s columns %s; X %ss them", what, key);
	put(v, y, 0, COLS, buf, THEME_NOTE, true);
}

static void draw_status(struct view *v)
{
	enum theme_slot slot = THEME_STATUS;
	char buf[400];
	int y = LINES - 2;

	if (v->prompt == PROMPT_FILTER)
		snprintf(buf, sizeof(buf), " Filter: %s_   (Enter keeps it, Esc clears)",
		         v->filter);
	else if (v->prompt == PROMPT_SEARCH)
		snprintf(buf, sizeof(buf), " Search: %s_   (F3 next, Enter keeps the row, Esc)",
		         v->search);
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
	else if (v->banner[0]) {
		slot = v->banner_alert ? THEME_BADGE_THROTTLE : THEME_STATUS;
		snprintf(buf, sizeof(buf), " %s", v->banner);
	} else
		return;
	view_bar(v, y, slot);
	put(v, y, 0, COLS, buf, slot, true);
}

void view_banner(struct view *v, const char *text, bool alert)
{
	util_strlcpy(v->banner, text, sizeof(v->banner));
	v->banner_alert = alert;
	view_render(v);
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
	} else if (v->m && view_detail_shown(v)) {
		view_draw_detail(v);
	} else if (v->m && v->kind == VIEW_OVERVIEW) {
		view_draw_overview(v, 3);
		if (v->prompt == PROMPT_PRESET)
			view_draw_presets(v);
	} else if (v->m) {
		v->body_y = BODY_Y;
		v->below = 0;
		view_build_cols(v);
		view_build_rows(v);
		draw_info(v);
		if (v->hidden[0] && LINES > MIN_LINES) {
			view_draw_hidden(v, BODY_Y - 1);
			v->body_y++;
		}
		draw_titles(v);
		if (v->setup)
			view_draw_setup(v); /* F2 */
		else
			draw_rows(v, view_body_lines(v));
		if (v->prompt == PROMPT_PRESET)
			view_draw_presets(v);
	}
	draw_status(v);
	if (v->menu != MENU_NONE && !v->help && !v->annot && !v->setup && v->m)
		view_draw_menu(v); /* F6, u, k */
	view_draw_keybar(v);
	refresh();
}

void view_draw(struct view *v, const struct model *m)
{
	if (m) {
		v->m = m;
		view_hist_feed(v, m); /* a newer model only */
		if (v->task_sort_from_model)
			view_task_sort_from_model(v);
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
