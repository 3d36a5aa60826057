/* test_view_menu: the user, sort and signal menus and the M P T keys, on a view with no terminal.
 */
#include "view_priv.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static struct model m;
static struct model_row rows[4];
static struct model_event events[2];

static struct view *new_view(void)
{
	struct view *v = calloc(1, sizeof(*v));
	const char *users[] = {"bob", "alice", "bob", ""};

	memset(rows, 0, sizeof(rows));
	for (int i = 0; i < 4; i++) {
		rows[i].kind = MODEL_ROW_PROCESS;
		rows[i].pid = rows[i].tid = 100 + i;
		strcpy(rows[i].user, users[i]);
		snprintf(rows[i].comm, sizeof(rows[i].comm), "task%d", i);
	}
	memset(events, 0, sizeof(events));
	strcpy(events[0].name, "task-clock");
	strcpy(events[1].name, "page-faults");
	m.tasks = rows;
	m.nr_tasks = 4;
	m.events = events;
	m.nr_events = 2;
	v->m = &m;
	v->kind = VIEW_TASKS;
	v->cols[0] = (struct col){.kind = C_PID, .title = "PID"};
	v->cols[1] = (struct col){.kind = C_CPUPCT, .title = "CPU%"};
	v->cols[2] = (struct col){.kind = C_EVENT, .index = 0, .title = "task-clock(ms)"};
	v->cols[3] = (struct col){.kind = C_EVENT, .index = 1, .title = "page-faults"};
	v->cols[4] = (struct col){.kind = C_COMMAND, .title = "COMMAND", .text = true};
	v->nr_cols = 5;
	v->sort[VIEW_TASKS] = (struct sort_key){C_CPUPCT, 0, false};
	v->idx = calloc(8, sizeof(int));
	for (int i = 0; i < 4; i++)
		v->idx[i] = i;
	v->nr_idx = 4;
	return v;
}

static void free_view(struct view *v)
{
	free(v->idx);
	free(v);
}

static void test_user_menu(void **state)
{
	struct view *v = new_view();

	v->kind = VIEW_CPUS; /* u goes to the Tasks view */
	view_menu_user(v);
	assert_int_equal(v->menu, MENU_USER);
	assert_int_equal(v->kind, VIEW_TASKS);
	assert_int_equal(v->nr_menu, 3); /* all, then each user once, sorted */
	assert_string_equal(v->menu_item[0], "All users");
	assert_string_equal(v->menu_item[1], "alice");
	assert_string_equal(v->menu_item[2], "bob");
	view_key_menu(v, KEY_DOWN);
	view_key_menu(v, KEY_DOWN);
	view_key_menu(v, KEY_DOWN); /* stays on the last */
	assert_int_equal(v->menu_sel, 2);
	view_key_menu(v, '\r');
	assert_int_equal(v->menu, MENU_NONE);
	assert_string_equal(v->user, "bob");
	/* opened again: on the chosen user; All users clears it */
	view_menu_user(v);
	assert_int_equal(v->menu_sel, 2);
	view_key_menu(v, KEY_HOME);
	view_key_menu(v, KEY_ENTER);
	assert_string_equal(v->user, "");
	/* Esc changes nothing */
	view_menu_user(v);
	view_key_menu(v, KEY_DOWN);
	view_key_menu(v, KEY_ESC);
	assert_int_equal(v->menu, MENU_NONE);
	assert_string_equal(v->user, "");
	free_view(v);
}

static void test_sort_menu_and_keys(void **state)
{
	struct view *v = new_view();

	view_menu_sort(v);
	assert_int_equal(v->menu, MENU_SORT);
	assert_int_equal(v->nr_menu, 5);
	assert_int_equal(v->menu_sel, 1); /* the current sort, CPU% */
	assert_string_equal(v->menu_item[4], "COMMAND");
	view_key_menu(v, KEY_END);
	view_key_menu(v, '\n');
	assert_int_equal(v->sort[VIEW_TASKS].kind, C_COMMAND);
	assert_false(v->sort[VIEW_TASKS].reverse);

	view_sort_by(v, 'M');
	assert_int_equal(v->sort[VIEW_TASKS].kind, C_EVENT);
	assert_int_equal(v->sort[VIEW_TASKS].index, 1);
	assert_non_null(strstr(v->status, "no memory column"));
	view_sort_by(v, 'T');
	assert_int_equal(v->sort[VIEW_TASKS].index, 0);
	view_sort_by(v, 'P');
	assert_int_equal(v->sort[VIEW_TASKS].kind, C_CPUPCT);
	/* a view without the column says so and keeps its sort */
	v->nr_cols = 2;
	view_sort_by(v, 'M');
	assert_string_equal(v->status, "M: this view has no page-faults column");
	assert_int_equal(v->sort[VIEW_TASKS].kind, C_CPUPCT);
	/* a click on the sorted column's title reverses it */
	view_sort_col_pick(v, 1, true);
	assert_true(v->sort[VIEW_TASKS].reverse);
	view_sort_col_pick(v, 0, true);
	assert_int_equal(v->sort[VIEW_TASKS].kind, C_PID);
	assert_false(v->sort[VIEW_TASKS].reverse);
	free_view(v);
}

static void test_signal_menu(void **state)
{
	struct view *v = new_view();
	int st;
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	assert_true(child > 0);
	rows[1].pid = rows[1].tid = child;
	v->sel[VIEW_TASKS] = 1;

	/* a replay: nothing to signal */
	v->cfg.replay = true;
	view_menu_signal(v);
	assert_int_equal(v->menu, MENU_NONE);
	assert_non_null(strstr(v->status, "replay"));
	v->cfg.replay = false;
	/* not the Tasks view */
	v->kind = VIEW_CPUS;
	view_menu_signal(v);
	assert_int_equal(v->menu, MENU_NONE);
	v->kind = VIEW_TASKS;

	view_menu_signal(v);
	assert_int_equal(v->menu, MENU_SIGNAL);
	assert_int_equal(v->kill_pid, child);
	assert_string_equal(v->menu_item[0], "15 SIGTERM");
	view_key_menu(v, '\r');
	assert_int_equal(v->menu, MENU_CONFIRM);
	assert_int_equal(v->kill_sig, SIGTERM);
	view_key_menu(v, 'n'); /* anything but y: not sent */
	assert_int_equal(v->menu, MENU_NONE);
	assert_string_equal(v->status, "not sent");
	assert_int_equal(waitpid(child, &st, WNOHANG), 0);

	view_menu_signal(v);
	view_key_menu(v, KEY_DOWN); /* SIGINT */
	view_key_menu(v, '\r');
	view_key_menu(v, 'y');
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGINT);
	assert_non_null(strstr(v->status, "sent SIGINT to"));

	/* gone now: said so */
	view_menu_signal(v);
	view_key_menu(v, '\r');
	view_key_menu(v, 'y');
	assert_non_null(strstr(v->status, "has exited"));

	/* never a PID of 0 or less */
	rows[1].pid = rows[1].tid = 0;
	view_menu_signal(v);
	assert_int_equal(v->menu, MENU_NONE);
	free_view(v);
}

static void test_search(void **state)
{
	struct view *v = new_view();

	view_search_open(v);
	assert_int_equal(v->prompt, PROMPT_SEARCH);
	view_key_search(v, 't');
	assert_int_equal(v->sel[VIEW_TASKS], 0); /* the selection itself matches */
	view_key_search(v, 'a');
	view_key_search(v, 's');
	view_key_search(v, 'k');
	view_key_search(v, '2');
	assert_int_equal(v->sel[VIEW_TASKS], 2);
	view_key_search(v, '\r');
	assert_int_equal(v->prompt, PROMPT_NONE);
	strcpy(v->search, "task");
	view_search_next(v, false);
	assert_int_equal(v->sel[VIEW_TASKS], 3);
	view_search_next(v, false); /* wraps */
	assert_int_equal(v->sel[VIEW_TASKS], 0);
	strcpy(v->search, "103"); /* a PID */
	view_search_next(v, false);
	assert_int_equal(v->sel[VIEW_TASKS], 3);
	strcpy(v->search, "alice"); /* a user */
	view_search_next(v, false);
	assert_int_equal(v->sel[VIEW_TASKS], 1);
	strcpy(v->search, "nothing");
	view_search_next(v, false);
	assert_int_equal(v->sel[VIEW_TASKS], 1);
	assert_string_equal(v->status, "no row matches 'nothing'");
	free_view(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_user_menu),
	    cmocka_unit_test(test_sort_menu_and_keys),
	    cmocka_unit_test(test_signal_menu),
	    cmocka_unit_test(test_search),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
