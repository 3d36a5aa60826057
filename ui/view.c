/* view: the interactive ncurses screen: the snapshot text, scrollable, live. */
#include "view.h"

#include "snapshot.h"
#include "util.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MIN_COLS 40
#define MIN_LINES 8

struct view {
	char *text;     /* the rendered snapshot */
	size_t len;
	int top;        /* first line shown */
	int nr_lines;
	bool paused;
	bool help;
	char status[256];
	const struct model *last;
};

struct view *view_open(char *err, size_t errlen)
{
	struct view *v;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "the interactive view needs a terminal: use -b for batch output");
		return NULL;
	}
	if (!newterm(NULL, stdout, stdin)) {
		snprintf(err, errlen, "cannot use terminal type '%s': set TERM (e.g. xterm-256color) or use -b",
			 getenv("TERM") ? getenv("TERM") : "");
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		endwin();
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	if (has_colors() && !getenv("NO_COLOR")) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_BLACK, COLOR_CYAN);
		init_pair(2, COLOR_YELLOW, -1);
	}
	return v;
}

void view_close(struct view *v)
{
	if (!v)
		return;
	endwin();
	free(v->text);
	free(v);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void draw_bar(int y, const char *text)
{
	attron(COLOR_PAIR(1) | A_BOLD);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, text, COLS);
	attroff(COLOR_PAIR(1) | A_BOLD);
}

static const char *help_text =
	"pfmtop keys\n"
	"\n"
	"  q          quit\n"
	"  space      pause / resume updates\n"
	"  s          save this screen as pfmtop-DATE-TIME.txt in the current directory\n"
	"  Up/Down    scroll one line\n"
	"  PgUp/PgDn  scroll one page\n"
	"  Home/End   first / last line\n"
	"  h or ?     this help (any key returns)\n";

static void render(struct view *v)
{
	char bar[sizeof(v->status) + 8];
	const char *p;
	int y = 0, line = 0, body = LINES - 2;

	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		snprintf(bar, sizeof(bar), "terminal too small: need %dx%d", MIN_COLS, MIN_LINES);
		mvaddnstr(0, 0, bar, COLS);
		refresh();
		return;
	}
	snprintf(bar, sizeof(bar), " pfmtop %s%s   q quit  space pause  s save  h help", PFMTOP_VERSION,
		 v->paused ? "  [paused]" : "");
	draw_bar(0, bar);
	p = v->help ? help_text : v->text ? v->text : "waiting for the first interval...\n";
	v->nr_lines = count_lines(p);
	if (v->top > v->nr_lines - body)
		v->top = v->nr_lines - body;
	if (v->top < 0)
		v->top = 0;
	while (*p && y < body) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		if (line >= v->top) {
			bool note = !strncmp(p, "note:", 5);
			if (note)
				attron(COLOR_PAIR(2));
			mvaddnstr(1 + y, 0, p, n < COLS ? n : COLS);
			if (note)
				attroff(COLOR_PAIR(2));
			y++;
		}
		line++;
		p = nl ? nl + 1 : p + n;
	}
	snprintf(bar, sizeof(bar), " %s", v->status[0] ? v->status : "");
	draw_bar(LINES - 1, bar);
	refresh();
}

void view_draw(struct view *v, const struct model *m)
{
	if (m) {
		FILE *f;

		free(v->text);
		v->text = NULL;
		f = open_memstream(&v->text, &v->len);
		if (f) {
			snapshot_write(f, m, SNAPSHOT_TEXT);
			fclose(f);
		}
		v->last = m;
	}
	render(v);
}

void view_resize(struct view *v)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	render(v);
}

enum view_action view_input(struct view *v)
{
	enum view_action act = VIEW_NONE;
	int ch, page = LINES > 3 ? LINES - 3 : 1;

	while ((ch = getch()) != ERR) {
		v->status[0] = '\0';
		if (v->help) {
			v->help = false;
			act = VIEW_REDRAW;
			continue;
		}
		switch (ch) {
		case 'q':
		case 'Q':
			return VIEW_QUIT;
		case 's':
			act = VIEW_SAVE;
			break;
		case ' ':
			v->paused = !v->paused;
			act = VIEW_PAUSE;
			break;
		case 'h':
		case '?':
			v->help = true;
			act = VIEW_REDRAW;
			break;
		case KEY_UP:
			v->top--;
			act = VIEW_REDRAW;
			break;
		case KEY_DOWN:
			v->top++;
			act = VIEW_REDRAW;
			break;
		case KEY_PPAGE:
			v->top -= page;
			act = VIEW_REDRAW;
			break;
		case KEY_NPAGE:
			v->top += page;
			act = VIEW_REDRAW;
			break;
		case KEY_HOME:
			v->top = 0;
			act = VIEW_REDRAW;
			break;
		case KEY_END:
			v->top = v->nr_lines;
			act = VIEW_REDRAW;
			break;
		case KEY_RESIZE:
			act = VIEW_REDRAW;
			break;
		default:
			break;
		}
	}
	return act;
}

void view_status(struct view *v, const char *msg)
{
	util_strlcpy(v->status, msg, sizeof(v->status));
	render(v);
}

bool view_paused(const struct view *v)
{
	return v->paused;
}
