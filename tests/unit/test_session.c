/* Unit tests for session: the whole pipeline (events, groups, reads, model) on the fake sys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fake_sys.h"
#include "session.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int hw_missing(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	return a->type == PERF_TYPE_HARDWARE ? ENOENT : 0;
}

static struct session s;

static int setup(void **state)
{
	struct probe p;

	probe_collect(&p);
	if (!probe_system_wide_ok(&p)) {
		print_message("skipped: system-wide counting needs root or perf_event_paranoid <= 0\n");
		return -1;
	}
	fake_sys_install();
	return 0;
}

static int teardown(void **state)
{
	session_fini(&s);
	fake_sys_reset();
	sys_set_ops(NULL);
	return 0;
}

static void config(struct session_config *c, const char *events)
{
	char err[256];

	memset(c, 0, sizeof(*c));
	c->mode = MODEL_SYSTEM;
	c->interval_ns = 1000000000ull;
	c->top_n = 5;
	c->cpu_min = -1; /* no per-task counters: this test counts fds */
	c->nr_cpus = 2;
	c->cpus[0] = 0;
	c->cpus[1] = 1;
	util_strlcpy(c->preset, "test", sizeof(c->preset));
	assert_int_equal(events_parse_list(events, &c->events, err, sizeof(err)), 0);
}

/* Queue one group read on every CPU target's leader of event index ev. */
static void queue(int ev, int nr, uint64_t enabled, uint64_t running, const uint64_t *vals)
{
	for (int t = 0; t < s.nr_targets; t++) {
		struct counter_set *cs = &s.targets[t].cs;
		uint64_t ids[8];
		for (int k = 0; k < nr; k++)
			ids[k] = cs->c[ev + k].id;
		fake_sys_queue_group_read(cs->c[ev].fd, enabled, running, nr, vals, ids);
	}
}

static void test_no_hardware_pmu(void **state)
{
	struct session_config c;
	char err[256];

	config(&c, "{cycles,instructions},task-clock");
	fake_sys_set_open_rule(hw_missing);
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(s.nr_targets, 2);
	/* One fd per CPU per event that opens; the hardware pair opened nowhere. */
	assert_int_equal(fake_sys_nr_open_fds(), 2);
	assert_int_equal(s.ev[0].nr_open, 0);
	assert_int_equal(s.ev[2].nr_open, 2);
	assert_true(s.model.events[0].why[0] != '\0');
	assert_false(s.model.events[0].opened);
	if (!s.probe.core_pmu) {
		assert_true(s.model.nr_notes >= 1);
		assert_non_null(strstr(s.model.notes[0], "no hardware PMU"));
		assert_non_null(strstr(s.model.notes[0], "cycles, instructions"));
	}
	for (int t = 0; t < 2; t++) {
		struct fake_event *e = fake_sys_event(s.targets[t].cs.c[2].fd);
		assert_int_equal(e->pid, -1);
		assert_int_equal(e->cpu, t);
	}
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	assert_int_equal(fake_sys_event(s.targets[0].cs.c[2].fd)->nr_enable, 1);

	/* Interval 1: CPU0 ran 0.25 s of task-clock, CPU1 0.5 s. */
	for (int t = 0; t < 2; t++) {
		uint64_t v[] = {250000000ull * (uint64_t)(t + 1)};
		struct counter_set *cs = &s.targets[t].cs;
		fake_sys_queue_group_read(cs->c[2].fd, 1000000000, 1000000000, 1, v, &cs->c[2].id);
	}
	assert_int_equal(session_tick(&s, false), 0);
	struct model *m = &s.model;
	assert_int_equal(m->seq, 1);
	assert_int_equal(m->nr_cpus, 2);
	assert_int_equal(m->cpus[0].cells[0].state, COUNTER_UNSUPPORTED);
	assert_int_equal(m->cpus[1].cells[2].state, COUNTER_OK);
	assert_true(m->cpus[0].cells[2].value == 250000000.0);
	assert_true(m->cpus[1].cells[2].value == 500000000.0);
	assert_true(m->total.cells[2].value == 750000000.0);
	assert_int_equal(m->total.cells[0].state, COUNTER_UNSUPPORTED);
	assert_int_equal(m->events[2].state, COUNTER_OK);
	/* The task table comes from /proc: at least this process. */
	assert_true(m->tasks_total >= 1);
	assert_false(m->tasks_counted);
	assert_int_equal(m->nr_metrics, 0);
}

static void test_groups_metrics_multiplexing(void **state)
{
	struct session_config c;
	char err[256];

	config(&c, "{cycles,instructions},task-clock");
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(fake_sys_nr_open_fds(), 6);
	assert_int_equal(s.model.nr_metrics, 1);
	assert_string_equal(s.model.metrics[0].name, "IPC");
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);

	uint64_t a[] = {1000, 1500}, b[] = {3000, 5500}, tc[] = {10}, tc2[] = {20};
	queue(0, 2, 1000, 1000, a);
	queue(2, 1, 1000, 1000, tc);
	assert_int_equal(session_tick(&s, false), 0);
	/* Second interval: the hardware group ran half the time. */
	queue(0, 2, 3000, 2000, b);
	queue(2, 1, 3000, 3000, tc2);
	assert_int_equal(session_tick(&s, false), 0);
	struct model *m = &s.model;
	const struct counter_value *cyc = &m->cpus[0].cells[0], *ins = &m->cpus[0].cells[1];
	assert_int_equal(cyc->state, COUNTER_MULTIPLEXED);
	assert_true(fabs(cyc->coverage - 0.5) < 1e-9);
	assert_true(cyc->value == 4000.0);  /* (3000-1000) * 2000/1000 */
	assert_true(ins->value == 8000.0);  /* (5500-1500) * 2 */
	assert_true(fabs(m->cpus[0].metrics[0] - 2.0) < 1e-9);
	assert_true(fabs(m->total.metrics[0] - 2.0) < 1e-9);
	assert_true(m->total.cells[0].value == 8000.0);
	assert_int_equal(m->events[0].state, COUNTER_MULTIPLEXED);
	assert_true(fabs(m->events[0].coverage - 0.5) < 1e-9);
	assert_int_equal(m->events[2].state, COUNTER_OK);
}

static void test_unknown_event_is_an_error(void **state)
{
	struct session_config c;
	char err[256];

	config(&c, "task-clock,no_such_event_xyz");
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no_such_event_xyz"));
}

static void test_no_such_pid(void **state)
{
	struct session_config c;
	char err[256];

	config(&c, "task-clock");
	c.mode = MODEL_TASKS;
	c.nr_cpus = 0;
	c.nr_pids = 1;
	c.pids[0] = 999999999;
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), -ESRCH);
	assert_non_null(strstr(err, "999999999"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_hardware_pmu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_groups_metrics_multiplexing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_event_is_an_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_such_pid, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
