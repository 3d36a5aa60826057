/* view_menu: search (/ F3), the sort (F6), user (u) and signal (k) menus, and the M P T sort keys.
 */
#include "view_priv.h"

#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- search ---- */

unsigned view_search_open(struct view *v)
{
	v->prompt = PROMPT_SEARCH;
	v->search[0] = '\0';
	return VIEW_REDRAW;
}

/* The next row matching the search, from the selection (from_here: the
 * selection itself first); wraps around. */
unsigned view_search_next(struct view *v, bool from_here)
{
	int n = v->nr_idx, s = v->sel[v->kind];

	if (!v->search[0] || !v->m)
		return VIEW_REDRAW;
	for (int k = from_here ? 0 : 1; k <= n; k++) {
		int i = ((s + k) % n + n) % n;
		if (v->idx[i] >= 0 && view_row_matches(v, v->idx[i], v->search)) {
			v->sel[v->kind] = i;
			view_remember_selection(v);
			return VIEW_REDRAW;
		}
	}
	snprintf(v->status, sizeof(v->status), "no row matches '%s'", v->search);
	return VIEW_REDRAW;
}

unsigned view_key_search(struct view *v, int ch)
{
	size_t n = strlen(v->search);

	if (ch == KEY_ESC) {
		v->prompt = PROMPT_NONE;
	} else if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
		v->prompt = PROMPT_NONE; /* the selection stays; F3 goes on */
	} else if (ch == KEY_F(3)) {
		return view_search_next(v, false);
	} else if (ch == KEY_F(10)) {
		return VIEW_QUIT;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (n)
			v->search[n - 1] = '\0';
	} else if (ch >= 32 && ch < 127 && n + 1 < sizeof(v->search)) {
		v->search[n] = (char)ch;
		v->search[n + 1] = '\0';
		return view_search_next(v, true);
	}
	return VIEW_REDRAW;
}

/* ---- sort ---- */

void view_sort_col_pick(struct view *v, int i, bool toggle)
{
	struct sort_key *k = &v->sort[v->kind];
	const struct col *c = &v->cols[i];
	bool same = view_sort_col(v) == c && k->index >= 0;

	k->reverse = toggle && same ? !k->reverse : false;
	k->kind = c->kind;
	k->index = c->index;
	v->task_sort_from_model = false;
	v->hot_sort_picked |= v->kind == VIEW_HOTSPOTS;
}

/* M P T: htop's memory, CPU and time sort keys, on the columns pfmtop has:
 * M page-faults (there is no memory column), P CPU%, T task-clock. */
unsigned view_sort_by(struct view *v, int ch)
{
	const char *want = ch == 'M' ? "page-faults" : ch == 'T' ? "task-clock" : NULL;

	if (!v->m)
		return VIEW_REDRAW;
	for (int i = 0; i < v->nr_cols; i++) {
		const struct col *c = &v->cols[i];
		if (want ? c->kind == C_EVENT && !strcmp(v->m->events[c->index].name, want)
		         : c->kind == C_CPUPCT) {
			view_sort_col_pick(v, i, false);
			snprintf(v->status, sizeof(v->status), "sort by %s%s", c->title,
			         ch == 'M' ? " (no memory column: page faults instead)" : "");
			return VIEW_REDRAW;
		}
	}
	snprintf(v->status, sizeof(v->status), "%c: this view has no %s column", ch,
	         want ? want : "CPU%");
	return VIEW_REDRAW;
}

/* ---- menus ---- */

static void menu_add(struct view *v, const char *text, int val)
{
	if (v->nr_menu == VIEW_MENU_MAX)
		return;
	util_strlcpy(v->menu_item[v->nr_menu], text, sizeof(v->menu_item[0]));
	v->menu_val[v->nr_menu++] = val;
}

static void menu_open(struct view *v, enum view_menu m)
{
	v->menu = m;
	v->nr_menu = 0;
	v->menu_sel = 0;
	v->menu_top = 0;
	v->prompt = PROMPT_NONE;
}

unsigned view_menu_sort(struct view *v)
{
	const struct col *sc = view_sort_col(v);

	if (!v->m || !v->nr_cols)
		return VIEW_REDRAW;
	menu_open(v, MENU_SORT);
	for (int i = 0; i < v->nr_cols; i++) {
		if (&v->cols[i] == sc && v->sort[v->kind].index >= 0)
			v->menu_sel = i;
		menu_add(v, v->cols[i].title, i);
	}
	return VIEW_REDRAW;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

unsigned view_menu_user(struct view *v)
{
	char users[VIEW_MENU_MAX][40];
	int n = 0;

	if (!v->m)
		return VIEW_REDRAW;
	for (int r = 0; r < v->m->nr_tasks && n < VIEW_MENU_MAX - 1; r++) {
		const char *u = v->m->tasks[r].user;
		int k;
		if (!u[0])
			continue;
		for (k = 0; k < n && strcmp(users[k], u); k++)
			;
		if (k == n)
			util_strlcpy(users[n++], u, sizeof(users[0]));
	}
	qsort(users, (size_t)n, sizeof(users[0]), cmp_str);
	menu_open(v, MENU_USER);
	menu_add(v, "All users", -1);
	for (int k = 0; k < n; k++) {
		menu_add(v, users[k], k);
		if (!strcmp(users[k], v->user))
			v->menu_sel = k + 1;
	}
	if (view_table_kind(v) != VIEW_TASKS) {
		v->kind = VIEW_TASKS;
		v->filter[0] = '\0';
	}
	return VIEW_REDRAW;
}

static const struct {
	int sig;
	const char *name;
} signals[] = {
    {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGHUP, "SIGHUP"},   {SIGQUIT, "SIGQUIT"},
    {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}, {SIGSTOP, "SIGSTOP"},
    {SIGCONT, "SIGCONT"}, {SIGTSTP, "SIGTSTP"},
};

static const char *sig_name(int sig)
{
	for (size_t i = 0; i < ARRAY_SIZE(signals); i++)
		if (signals[i].sig == sig)
			return signals[i].name;
	return "?";
}

unsigned view_menu_signal(struct view *v)
{
	int s = v->sel[v->kind], r;
	char buf[40];

	if (v->cfg.replay) {
		snprintf(v->status, sizeof(v->status),
		         "k: a replay shows what was recorded; its processes are not these");
		return VIEW_REDRAW;
	}
	if (view_table_kind(v) != VIEW_TASKS || !v->m || s < 0 || s >= v->nr_idx ||
	    (r = v->idx[s]) < 0) {
		snprintf(v->status, sizeof(v->status), "k: select a task first (Tasks view, 2)");
		return VIEW_REDRAW;
	}
	const struct model_row *t = &v->m->tasks[r];
	v->kill_pid = view_thread_rows(v->m) ? t->tid : t->pid;
	util_strlcpy(v->kill_comm, t->comm, sizeof(v->kill_comm));
	if (v->kill_pid <= 0) {
		snprintf(v->status, sizeof(v->status), "k: no process to signal there");
		return VIEW_REDRAW;
	}
	menu_open(v, MENU_SIGNAL);
	for (size_t i = 0; i < ARRAY_SIZE(signals); i++) {
		snprintf(buf, sizeof(buf), "%2d %s", signals[i].sig, signals[i].name);
		menu_add(v, buf, signals[i].sig);
	}
	return VIEW_REDRAW;
}

static void send_signal(struct view *v)
{
	const char *name = sig_name(v->kill_sig);

	if (v->kill_pid <= 0)
		return;
	if (kill(v->kill_pid, v->kill_sig) == 0)
		snprintf(v->status, sizeof(v->status), "sent %s to %d (%s)", name, (int)v->kill_pid,
		         v->kill_comm);
	else if (errno == EPERM)
		snprintf(v->status, sizeof(v->status),
		         "not sent: no permission to signal %d (%s): it is another user's "
		         "(run as its owner or root)",
		         (int)v->kill_pid, v->kill_comm);
	else if (errno == ESRCH)
		snprintf(v->status, sizeof(v->status), "not sent: %d (%s) has exited",
		         (int)v->kill_pid, v->kill_comm);
	else
		snprintf(v->status, sizeof(v->status), "not sent: %s to %d: %s", name,
		         (int)v->kill_pid, strerror(errno));
}

unsigned view_key_menu(struct view *v, int ch)
{
	int *s = &v->menu_sel;

	if (v->menu == MENU_CONFIRM) {
		v->menu = MENU_NONE;
		if (ch == 'y' || ch == 'Y')
			send_signal(v);
		else
			snprintf(v->status, sizeof(v->status), "not sent");
		return VIEW_REDRAW;
	}
	switch (ch) {
	case KEY_F(10):
		return VIEW_QUIT;
	case KEY_ESC:
	case 'q':
		v->menu = MENU_NONE;
		return VIEW_REDRAW;
	case KEY_UP:
	case KEY_DOWN:
	case KEY_PPAGE:
	case KEY_NPAGE:
	case KEY_HOME:
	case KEY_END:
		*s += ch == KEY_UP      ? -1
		      : ch == KEY_DOWN  ? 1
		      : ch == KEY_PPAGE ? -10
		      : ch == KEY_NPAGE ? 10
		      : ch == KEY_HOME  ? -v->nr_menu
		                        : v->nr_menu;
		*s = *s < 0 ? 0 : *s >= v->nr_menu ? v->nr_menu - 1 : *s;
		return VIEW_REDRAW;
	case '\r':
	case '\n':
	case KEY_ENTER:
		break;
	default:
		return VIEW_REDRAW;
	}
	if (*s < 0 || *s >= v->nr_menu) {
		v->menu = MENU_NONE;
		return VIEW_REDRAW;
	}
	switch (v->menu) {
	case MENU_SORT:
		v->menu = MENU_NONE;
		if (v->menu_val[*s] < v->nr_cols) {
			view_sort_col_pick(v, v->menu_val[*s], false);
			snprintf(v->status, sizeof(v->status), "sort by %s",
			         v->cols[v->menu_val[*s]].title);
		}
		break;
	case MENU_USER:
		v->menu = MENU_NONE;
		if (v->menu_val[*s] < 0)
			v->user[0] = '\0';
		else
			util_strlcpy(v->user, v->menu_item[*s], sizeof(v->user));
		v->sel[v->kind] = 0;
		v->sel_id_valid[v->kind] = false;
		snprintf(v->status, sizeof(v->status), "%s%s",
		         v->user[0] ? "tasks of " : "tasks of all users", v->user);
		break;
	case MENU_SIGNAL:
		v->kill_sig = v->menu_val[*s];
		v->menu = MENU_CONFIRM;
		break;
	default:
		v->menu = MENU_NONE;
	}
	return VIEW_REDRAW;
}

/* The menu as a box at the left of the rows; the confirmation on the status line. */
void view_draw_menu(struct view *v)
{
	static const char *const titles[] = {"", "Sort by", "Show the tasks of", "Send signal", ""};
	int w = 28, rows = view_body_lines(v), y0 = BODY_Y - 1;
	char buf[160];

	if (v->menu == MENU_CONFIRM) {
		bool self = v->kill_pid == getpid();
		snprintf(buf, sizeof(buf), " send %s to %d (%s)%s? y/n", sig_name(v->kill_sig),
		         (int)v->kill_pid, v->kill_comm, self ? " -- this is pfmtop itself" : "");
		view_bar(v, LINES - 2, THEME_STATUS);
		view_put(v, LINES - 2, 0, COLS, buf, THEME_STATUS, true);
		return;
	}
	if (rows < 2)
		return;
	if (v->menu_sel < v->menu_top)
		v->menu_top = v->menu_sel;
	if (v->menu_sel >= v->menu_top + rows)
		v->menu_top = v->menu_sel - rows + 1;
	if (v->menu == MENU_SIGNAL)
		snprintf(buf, sizeof(buf), " Send to %d", (int)v->kill_pid);
	else
		snprintf(buf, sizeof(buf), " %s", titles[v->menu]);
	view_put(v, y0, 0, w, buf, THEME_COLUMN_SORTED, true);
	for (int i = 0; i < rows; i++) {
		int k = v->menu_top + i;
		bool sel = k == v->menu_sel;
		snprintf(buf, sizeof(buf), " %s", k < v->nr_menu ? v->menu_item[k] : "");
		view_put(v, y0 + 1 + i, 0, w, buf, sel ? THEME_ROW_SELECTED : THEME_HEADER, true);
	}
}
