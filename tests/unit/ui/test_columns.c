/* test_columns: the column allocator of the views (format_layout with the
 * widths columns want, view_build_cols) at 80, 140 and 200 columns: no
 * title or text cell cut while there is room, n/s columns hidden and named. */
#include "model.h"
#include "view_priv.h"

#include <curses.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char *const state_note = "idle: /proc only";
static const char *const module = "libpython3.11.so.1.0";

static void test_want_before_flex(void **state)
{
	const struct format_column c[] = {
	    {"PID", 7, 0, false, false, 0, 0},
	    {"STATE", 10, 42, true, false, 16, 0},
	    {"COMMAND", 12, 0, true, true, 40, 0},
	    {"MODULE", 18, 1, true, false, 20, 0},
	};
	int x[4], w[4];

	(void)state;
	/* 80: STATE and MODULE get all they want, COMMAND the rest */
	assert_int_equal(format_layout(c, 4, 80, x, w), 4);
	assert_int_equal(w[1], 16);
	assert_int_equal(w[3], 20);
	assert_int_equal(w[2], 80 - 7 - 16 - 20 - 3);
	/* 52: the two columns of room go to MODULE (priority 1) before STATE (42) */
	assert_int_equal(format_layout(c, 4, 52, x, w), 4);
	assert_int_equal(w[3], 20);
	assert_int_equal(w[1], 10);
	assert_int_equal(w[2], 12);
	/* A counter whose short title reads whole at its width (need) widens
	 * to its full title only after a text column has what it needs. */
	const struct format_column e[] = {
	    {"context-switches/s", 7, 2, false, false, 18, 7},
	    {"STATE", 10, 42, true, false, 16, 0},
	    {"COMMAND", 16, 0, true, true, 0, 0},
	};
	assert_int_equal(format_layout(e, 3, 41, x, w), 3);
	assert_int_equal(w[1], 16);
	assert_int_equal(w[0], 7);
	assert_int_equal(format_layout(e, 3, 60, x, w), 3);
	assert_int_equal(w[1], 16);
	assert_int_equal(w[0], 18);
	assert_int_equal(w[2], 60 - 16 - 18 - 2);
	/* want 0 is the width: the old layout */
	const struct format_column d[] = {{"A", 5, 0, false, false, 0, 0},
	                                  {"B", 5, 0, true, true, 0, 0}};
	format_layout(d, 2, 30, x, w);
	assert_int_equal(w[0], 5);
	assert_int_equal(w[1], 24);
}

static struct model m;
static struct view *v;

static void set_event(int i, const char *name, const char *unit, enum counter_state st)
{
	struct model_event *e = &m.events[i];

	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->unit, sizeof(e->unit), "%s", unit);
	e->scale = unit[0] ? 1e-6 : 1.0;
	e->state = st;
	e->opened = st != COUNTER_UNSUPPORTED;
	if (st == COUNTER_UNSUPPORTED)
		snprintf(e->why, sizeof(e->why),
		         "hardware event; this machine exposes no hardware PMU");
}

static int setup(void **state)
{
	static const char *const events[] = {"cycles",           "instructions",   "task-clock",
	                                     "context-switches", "cpu-migrations", "page-faults"};
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");

	(void)state;
	if (!out || !in || !newterm("xterm", out, in))
		return -1;
	assert_int_equal(model_init(&m, 6), 0);
	for (int i = 0; i < 6; i++)
		set_event(i, events[i], i == 2 ? "ms" : "",
		          i < 2 ? COUNTER_UNSUPPORTED : COUNTER_OK);
	m.nr_metrics = 1;
	snprintf(m.metrics[0].name, sizeof(m.metrics[0].name), "IPC");
	m.mode = MODEL_SYSTEM;
	m.tasks_counted = true;
	m.interval_s = 2.0;
	for (int t = 0; t < 4; t++) {
		struct model_row *r = model_add_task(&m);
		r->kind = MODEL_ROW_PROCESS;
		r->pid = r->tid = 100 + t;
		r->cpu_pct = 10.0 * t;
		snprintf(r->comm, sizeof(r->comm), "python3");
		snprintf(r->user, sizeof(r->user), "root");
		r->counted = t != 3;
		if (!r->counted)
			snprintf(r->note, sizeof(r->note), "%s", state_note);
		for (int i = 0; i < 6; i++)
			r->cells[i] =
			    r->counted
			        ? (struct counter_value){.value = i < 2 ? NAN : 1234567.0 * t,
			                                 .state = i < 2 ? COUNTER_UNSUPPORTED
			                                                : COUNTER_OK}
			        : (struct counter_value){.value = NAN,
			                                 .state = COUNTER_NOT_COUNTED};
	}
	for (int i = 0; i < 6; i++)
		m.total.cells[i] = m.tasks[0].cells[i];
	struct model_hotspot *h = model_add_hotspot(&m);
	h->share = 50;
	h->pid = 100;
	snprintf(h->symbol, sizeof(h->symbol), "PyEval_EvalFrameDefault");
	snprintf(h->module, sizeof(h->module), "%s", module);
	v = calloc(1, sizeof(*v));
	v->m = &m;
	v->cfg.replay = true; /* no /proc reads for these made-up PIDs */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	endwin();
	model_fini(&m);
	free(v);
	return 0;
}

static const struct col *find(enum col_kind k, int index, int *at)
{
	for (int i = 0; i < v->nr_cols; i++)
		if (v->cols[i].kind == k && v->cols[i].index == index) {
			*at = i;
			return &v->cols[i];
		}
	return NULL;
}

/* Every column shown: its title, or its brief title, whole. */
static void titles_whole(bool full)
{
	for (int i = 0; i < v->nr_cols; i++) {
		const struct col *c = &v->cols[i];
		if (v->x[i] < 0 || c->kind == C_HIST) /* the sparkline elides its own title */
			continue;
		assert_true(v->x[i] + v->w[i] <= COLS);
		if (full || (int)strlen(c->title) <= v->w[i])
			assert_in_range(strlen(c->title), 0, v->w[i]);
		else
			assert_true(c->brief[0] && (int)strlen(c->brief) <= v->w[i]);
	}
}

static void at(int cols, enum view_kind kind)
{
	resizeterm(40, cols);
	v->kind = kind;
	view_build_cols(v);
}

static void test_tasks_80_140_200(void **state)
{
	const struct col *c;
	int i = -1;

	(void)state;
	at(80, VIEW_TASKS);
	titles_whole(false);
	/* n/s on every counted row: hidden, named, with the reason */
	assert_null(find(C_EVENT, 0, &i));
	assert_null(find(C_EVENT, 1, &i));
	assert_null(find(C_METRIC, 0, &i));
	assert_string_equal(v->hidden, "cycles instructions IPC");
	assert_non_null(strstr(v->hidden_why, "no hardware PMU"));
	/* per second by default, with units in the titles */
	c = find(C_EVENT, 3, &i);
	assert_non_null(c);
	assert_string_equal(c->title, "context-switches/s");
	c = find(C_EVENT, 2, &i);
	assert_string_equal(c->title, "task-clock%");
	for (int w = 140; w <= 200; w += 60) {
		at(w, VIEW_TASKS);
		/* 140 is shared with the sparkline (HIST): short titles there */
		titles_whole(w == 200);
		c = find(C_STATE, 0, &i);
		assert_non_null(c);
		assert_true(v->x[i] >= 0 && v->w[i] >= (int)strlen(state_note));
	}
	/* X: shown again, not cut at 200 */
	v->show_nsup = true;
	at(200, VIEW_TASKS);
	assert_non_null(find(C_EVENT, 1, &i));
	assert_true(v->w[i] >= (int)strlen("instructions/s"));
	titles_whole(true);
	v->show_nsup = false;
	/* R: totals, titles with the unit */
	v->totals = true;
	at(140, VIEW_TASKS);
	assert_string_equal(find(C_EVENT, 2, &i)->title, "task-clock(ms)");
	assert_string_equal(find(C_EVENT, 3, &i)->title, "context-switches");
	v->totals = false;
}

static void test_cells_rates(void **state)
{
	char buf[CELL];
	int i = -1;

	(void)state;
	at(200, VIEW_TASKS);
	/* 1234567 * 2 page faults in 2 s: 1.2M/s; totals: 2.5M */
	const struct col *c = find(C_EVENT, 5, &i);
	view_cell(v, 2, c, v->w[i], buf, sizeof(buf));
	assert_string_equal(buf, "1.2M");
	v->totals = true;
	view_build_cols(v);
	c = find(C_EVENT, 5, &i);
	view_cell(v, 2, c, v->w[i], buf, sizeof(buf));
	assert_string_equal(buf, "2.5M");
	v->totals = false;
	/* task-clock: 1234567 * 1e-6 ms = 1.23 ms in 2 s: 0.06% of a CPU */
	view_build_cols(v);
	c = find(C_EVENT, 2, &i);
	view_cell(v, 1, c, v->w[i], buf, sizeof(buf));
	assert_string_equal(buf, "0.1");
}

static void test_hotspots_module_whole(void **state)
{
	int i = -1;

	(void)state;
	for (int w = 140; w <= 200; w += 60) {
		at(w, VIEW_HOTSPOTS);
		titles_whole(true);
		assert_non_null(find(C_MODULE, 0, &i));
		assert_true(v->w[i] >= (int)strlen(module));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_want_before_flex),
	    cmocka_unit_test(test_tasks_80_140_200),
	    cmocka_unit_test(test_cells_rates),
	    cmocka_unit_test(test_hotspots_module_whole),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
