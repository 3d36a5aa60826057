/* view_priv.h: what the screen (view.c) and its keys (view_keys.c) share. */
#ifndef PFMTOP_VIEW_PRIV_H
#define PFMTOP_VIEW_PRIV_H

#include "view.h"

#include "format.h"
#include "theme.h"

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>

#define MIN_COLS  50
#define MIN_LINES 10
#define BODY_Y    5 /* first row under the column titles */
#define KEY_ESC   27
#define CELL      160

enum col_kind {
	C_CPU,
	C_CPUPCT,
	C_EVENT,
	C_METRIC,
	C_PID,
	C_USER,
	C_THR,
	C_STATE,
	C_COMMAND,
	C_SHARE,
	C_CHILDREN,
	C_SELF,
	C_SAMPLES,
	C_HPID,
	C_HCOMM,
	C_SYMBOL,
	C_MODULE,
	C_EVNAME,
	C_EVSTATE,
	C_EVCOV,
	C_EVWHY,
	C_HIST, /* the sparkline of a series (view_hist.c) */
};

struct col {
	struct format_column f;
	enum col_kind kind;
	int index; /* event or metric */
	char title[40];
	char brief[40]; /* a shorter title for a narrow column, "" none */
	bool text;      /* sorts ascending as text */
	bool hidden;    /* F2 setup: not shown (in view.all_cols only) */
	int def_width;  /* its width before the setup's */
};

struct sort_key {
	enum col_kind kind;
	int index;
	bool reverse;
};

enum prompt {
	PROMPT_NONE,
	PROMPT_FILTER,
	PROMPT_DELAY,
	PROMPT_PRESET,
	PROMPT_TIME,
	PROMPT_SEARCH, /* / F3: jump to the next row matching */
};

/* The small menus over the rows (view_menu.c). */
enum view_menu {
	MENU_NONE,
	MENU_SORT,    /* F6: the view's columns */
	MENU_USER,    /* u: the users present */
	MENU_SIGNAL,  /* k, F9: a signal for the selected task */
	MENU_CONFIRM, /* y/n before the signal goes */
};
#define VIEW_MENU_MAX 128

/* One item of the F-key bar as drawn, for the mouse. */
struct view_keybar_item {
	int x0, x1; /* columns [x0, x1) */
	int key;
};

/* One line of an expanded hotspot row's call tree. */
struct view_tree_line {
	int depth;
	double share;
	char name[160];
};

/* Rows at or below this are the lines of the expanded row's call tree:
 * ROW_TREE - k is line k. */
#define ROW_TREE (-1000)

struct view {
	const struct model *m;
	enum view_kind kind, back; /* back: where Esc returns from filtered hotspots */
	struct view_settings set;
	struct view_config cfg;
	int sel[VIEW_NR_KINDS], top[VIEW_NR_KINDS];
	int64_t sel_id[VIEW_NR_KINDS];
	bool sel_id_valid[VIEW_NR_KINDS];
	struct sort_key sort[VIEW_NR_KINDS];
	bool task_sort_from_model;
	bool hot_sort_picked; /* else Hotspots sort by CHILDREN with -g, SHARE without */
	char filter[64];
	enum prompt prompt;
	char input[32];
	int preset_sel;
	bool paused, help;
	int help_top;
	/* the annotate screen (a, or Enter, on a hotspot) */
	bool annot, annot_fresh;
	uint64_t annot_id; /* model.annot.id shown */
	int annot_sel, annot_top;
	int annot_back[32], nr_annot_back; /* where jumps were followed from */
	char status[320];
	char timeline[96];
	char banner[320]; /* view_banner(): the status line when no message */
	bool banner_alert;
	/* rows of the current view, after filter and sort */
	int *idx;
	int nr_idx, cap_idx;
	struct col cols[FORMAT_MAX_COLUMNS];
	int nr_cols, x[FORMAT_MAX_COLUMNS], w[FORMAT_MAX_COLUMNS];
	/* the Hotspots view's expanded row (-g) and its call tree */
	bool expanded, callees;
	int64_t expanded_id;
	struct view_tree_line *tree;
	int nr_tree, cap_tree;
	/* themes */
	struct theme_set themes;
	int theme;
	bool colors, mono_only;
	attr_t attr[THEME_NR_SLOTS];
	struct view_hist *hist; /* the rows' history and the detail pane (view_hist.h) */
	/* / and F3: search (view_menu.c) */
	char search[64];
	/* u: only this user's tasks ("" all) */
	char user[32];
	/* F6, u, k: a menu over the rows (view_menu.c) */
	enum view_menu menu;
	int menu_sel, menu_top, nr_menu;
	char menu_item[VIEW_MENU_MAX][40];
	int menu_val[VIEW_MENU_MAX];
	pid_t kill_pid;
	int kill_sig;
	char kill_comm[32];
	/* F5: tasks as a tree by parent (view_ptree.c); folded: pids whose
	 * children are hidden; pfx: the tree glyphs of each task row */
	pid_t folded[64];
	int nr_folded;
	char (*ptree_pfx)[48];
	int cap_pfx;
	bool ptree_ready; /* ptree_pfx is of the rows as built now */
	/* F2: the column setup (view_setup.c); all_cols: every column of the
	 * view in the setup's order, hidden ones too */
	bool setup;
	int setup_sel;
	struct col all_cols[FORMAT_MAX_COLUMNS];
	int nr_all_cols;
	/* the F-key bar as drawn (view_keybar.c), for the mouse */
	struct view_keybar_item keybar[24];
	int nr_keybar;
	/* the table's place: titles on body_y - 1, rows from body_y, below
	 * lines kept under it (the overview's hotspots) */
	int body_y, below;
	bool totals;      /* R: counters as per-interval totals, not per second */
	bool show_nsup;   /* X: show the columns that are n/s on every row */
	char hidden[256]; /* the columns hidden as n/s: "cycles instructions" */
	char hidden_why[96];
	struct view_cmdlines *cmdlines; /* view_cmdline.c */
	/* the widest each column wanted so far, so that columns do not move
	 * from one refresh to the next (reset with the view, columns or size) */
	int want_seen[FORMAT_MAX_COLUMNS];
	int want_key[3];
};

/* The view whose rows and columns v shows: the overview's table is the
 * Tasks view's. */
static inline enum view_kind view_table_kind(const struct view *v)
{
	return v->kind == VIEW_OVERVIEW ? VIEW_TASKS : v->kind;
}

/* view_table.c: columns, cells, rows (filter, sort, selection). Rows below
 * 0 are the summary rows under a table: ROW_TOTAL, and in the Tasks view
 * ROW_UNATTRIBUTED (what no task row holds). */
#define ROW_TOTAL        (-1)
#define ROW_UNATTRIBUTED (-2)
bool view_thread_rows(const struct model *m);
void view_build_cols(struct view *v);
/* The width column c needs for its title and every row's cell in full. */
int view_col_want(const struct view *v, const struct col *c);
enum theme_slot view_cell(const struct view *v, int r, const struct col *c, int width, char *buf,
                          size_t len);
/* The text number column c of row r would show for value x (false: not a
 * number column). */
bool view_cell_as(const struct view *v, int r, const struct col *c, double x, int width, char *buf,
                  size_t len);
void view_task_sort_from_model(struct view *v);
void view_build_rows(struct view *v);
void view_remember_selection(struct view *v);
const struct col *view_sort_col(const struct view *v);
void view_apply_theme(struct view *v);
int view_body_lines(const struct view *v);
void view_render(struct view *v);
void view_use(struct view *v, enum theme_slot s);
void view_bar(struct view *v, int y, enum theme_slot slot);
void view_draw_presets(struct view *v);
void view_put(struct view *v, int y, int x, int width, const char *text, enum theme_slot slot,
              bool left);
bool view_add(struct view *v, int y, int *x, const char *text, enum theme_slot slot);
/* n > 0 cells of printable ASCII, each with its attributes, at y, x (x + n
 * <= COLS): the cells, and the cursor after them, that waddnstr() would
 * give; the window's attributes are then the last cell's. */
void view_cells(int y, int x, const chtype *c, int n);
/* The column titles on body_y - 1 and nlines rows from body_y. */
void view_draw_table(struct view *v, int nlines);

/* view_overview.c: the overview's body from line y0 (meters, summary,
 * tasks, hotspots); the task table's place set in v->body_y, v->below. */
void view_draw_overview(struct view *v, int y0);
/* The line saying which columns are hidden and why, at y ("" none). */
void view_draw_hidden(struct view *v, int y);

/* view_cmdline.c: the full command lines of the task rows shown, read
 * from /proc (not in a replay), bounded, kept per PID and start time;
 * view_cmdline() gives task row r's as its COMMAND cell in width columns. */
struct view_cmdlines;
const char *view_cmdline(struct view *v, int r, int width);
void view_cmdlines_free(struct view_cmdlines *c);

/* view_text.c: text already made safe (untrusted_text()) on the screen.
 * Whether the terminal's locale is UTF-8 (else non-ASCII shows as \xNN). */
bool view_text_utf8(void);
/* Columns s takes on this terminal (wcwidth: wide 2, combining 0). */
int view_text_width(const char *s);
/* s in at most width columns into out: cut at a character, right-aligned
 * when !left and it is narrower, padded with blanks to width when pad.
 * Returns the columns it takes. */
int view_text_fit(char *out, size_t len, const char *s, int width, bool left, bool pad);

/* view_annotate.c: the help, and the annotate screen: draw, keys, open */
void view_draw_help(struct view *v);
void view_draw_annotate(struct view *v);
unsigned view_key_annotate(struct view *v, int ch);
unsigned view_open_annotate(struct view *v);

/* view_table.c: whether row r of the view matches text (command, user, PID
 * of a task; symbol, module, command of a hotspot...). */
bool view_row_matches(const struct view *v, int r, const char *text);

/* view_menu.c: search, the sort / user / signal menus, M P T */
unsigned view_search_open(struct view *v);
unsigned view_search_next(struct view *v, bool from_here);
unsigned view_key_search(struct view *v, int ch);
unsigned view_menu_sort(struct view *v);
unsigned view_menu_user(struct view *v);
unsigned view_menu_signal(struct view *v);
unsigned view_key_menu(struct view *v, int ch);
void view_draw_menu(struct view *v);
unsigned view_sort_by(struct view *v, int ch); /* M P T */
/* Sort by column i of v->cols (again: reversed). */
void view_sort_col_pick(struct view *v, int i, bool toggle);

/* view_ptree.c: F5, the tasks as a tree by parent. */
void view_ptree_rows(struct view *v);                       /* reorder v->idx[0..nr_idx) */
const char *view_ptree_prefix(const struct view *v, int r); /* glyphs of row r, or "" */
unsigned view_ptree_toggle(struct view *v);                 /* F5 */
unsigned view_ptree_fold(struct view *v, int ch);           /* + - on a task */

/* view_setup.c: F2, the columns of a view: shown, order, width. */
void view_setup_apply(struct view *v); /* v->cols as the setup says */
unsigned view_setup_open(struct view *v);
unsigned view_key_setup(struct view *v, int ch);
void view_draw_setup(struct view *v);

/* view_keybar.c: the F-key bar at the bottom. */
void view_draw_keybar(struct view *v);

/* view_mouse.c: clicks and the wheel. */
unsigned view_mouse(struct view *v);
/* view_keys.c: what key ch does now (the mouse's clicks on the bar). */
unsigned view_key(struct view *v, int ch);

/* view_keys.c: the lines of the help screen. */
/* The help's line that view_draw_help() replaces with cfg.rc_path. */
#define VIEW_HELP_RC "@rc"
extern const char *const view_help_lines[];
extern const int view_help_nr;

/* view_tree.c: the call tree of hotspot row r (callers, or callees with
 * v->callees) as lines in v->tree; returns how many. */
int view_tree_build(struct view *v, int r);
/* Line k of the tree as text in width columns. */
void view_tree_text(const struct view *v, int k, int width, char *buf, size_t len);

#endif
