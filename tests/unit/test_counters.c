/* Unit tests for counters: scaling, read layouts, group open/read on the fake sys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "counters.h"
#include "fake_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>

static void test_scale_full(void **state)
{
	struct counter_value v = counters_scale(1000, 500, 500);

	assert_int_equal(v.state, COUNTER_OK);
	assert_true(v.value == 1000.0);
	assert_true(v.coverage == 1.0);
}

static void test_scale_multiplexed(void **state)
{
	/* Ran a quarter of the time: scaled up four times. */
	struct counter_value v = counters_scale(1000, 400, 100);

	assert_int_equal(v.state, COUNTER_MULTIPLEXED);
	assert_true(v.value == 4000.0);
	assert_true(fabs(v.coverage - 0.25) < 1e-12);
}

static void test_scale_not_counted(void **state)
{
	struct counter_value v = counters_scale(0, 1000, 0);

	assert_int_equal(v.state, COUNTER_NOT_COUNTED);
	assert_true(isnan(v.value));
	/* Not enabled at all in the interval: a task that did not run, whose
	 * times only pass while it runs. That is zero, not a gap. */
	v = counters_scale(0, 0, 0);
	assert_int_equal(v.state, COUNTER_OK);
	assert_true(v.value == 0.0);
}

static void test_read_size(void **state)
{
	/* {nr, enabled, running, {value, id}[3]} */
	assert_int_equal(counters_read_size(COUNTERS_READ_FORMAT, 3), 8 * (3 + 2 * 3));
	/* {value, enabled, running, id} */
	assert_int_equal(counters_read_size(COUNTERS_READ_FORMAT & ~PERF_FORMAT_GROUP, 1), 32);
	/* {value} alone */
	assert_int_equal(counters_read_size(0, 1), 8);
	assert_int_equal(counters_read_size(PERF_FORMAT_GROUP | PERF_FORMAT_ID, 2), 8 * 5);
	assert_int_equal(counters_read_size(COUNTERS_READ_FORMAT | PERF_FORMAT_LOST, 2),
			 8 * (3 + 3 * 2));
}

static void test_parse_group(void **state)
{
	uint64_t buf[] = {2, 1000, 750, 11, 101, 22, 102};
	struct counters_read r;

	assert_int_equal(counters_parse_read(buf, sizeof(buf), COUNTERS_READ_FORMAT, &r), 0);
	assert_int_equal(r.nr, 2);
	assert_int_equal(r.enabled, 1000);
	assert_int_equal(r.running, 750);
	assert_int_equal(r.v[0].value, 11);
	assert_int_equal(r.v[0].id, 101);
	assert_int_equal(r.v[1].value, 22);
	assert_int_equal(r.v[1].id, 102);
	/* A length that does not match nr is rejected, not misread. */
	assert_int_equal(counters_parse_read(buf, sizeof(buf) - 8, COUNTERS_READ_FORMAT, &r),
			 -EINVAL);
	assert_int_equal(counters_parse_read(buf, 7, COUNTERS_READ_FORMAT, &r), -EINVAL);
}

static void test_parse_single(void **state)
{
	/* Without GROUP the id comes after the times. */
	uint64_t buf[] = {77, 1000, 500, 42};
	struct counters_read r;
	uint64_t fmt = COUNTERS_READ_FORMAT & ~PERF_FORMAT_GROUP;

	assert_int_equal(counters_parse_read(buf, sizeof(buf), fmt, &r), 0);
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.v[0].value, 77);
	assert_int_equal(r.enabled, 1000);
	assert_int_equal(r.running, 500);
	assert_int_equal(r.v[0].id, 42);
}

static const struct counters_event three[] = {
	{.attr = {.type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES}, .group = 0},
	{.attr = {.type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_INSTRUCTIONS}, .group = 0},
	{.attr = {.type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CACHE_MISSES}, .group = 0},
	{.attr = {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK}, .group = 1},
};
static const struct counters_config cfg3 = {.ev = three, .nr = 4};

static int setup(void **state)
{
	fake_sys_install();
	return 0;
}

static int teardown(void **state)
{
	fake_sys_reset();
	sys_set_ops(NULL);
	return 0;
}

static void test_open_groups(void **state)
{
	struct counter_set s;

	assert_int_equal(counters_open(&s, &cfg3, 1234, -1), 0);
	assert_int_equal(s.nr_open, 4);
	struct fake_event *l = fake_sys_event_at(0), *m1 = fake_sys_event_at(1),
			  *m2 = fake_sys_event_at(2), *tc = fake_sys_event_at(3);
	/* Leaders open disabled, members follow them. */
	assert_int_equal(l->group_fd, -1);
	assert_int_equal(l->attr.disabled, 1);
	assert_int_equal(m1->group_fd, l->fd);
	assert_int_equal(m1->attr.disabled, 0);
	assert_int_equal(m2->group_fd, l->fd);
	assert_int_equal(tc->group_fd, -1);
	assert_int_equal(tc->attr.disabled, 1);
	for (int i = 0; i < 4; i++) {
		struct fake_event *e = fake_sys_event_at(i);
		assert_int_equal(e->attr.read_format, COUNTERS_READ_FORMAT);
		assert_int_equal(e->attr.size, sizeof(struct perf_event_attr));
		assert_int_equal(e->pid, 1234);
		assert_int_equal(e->cpu, -1);
		assert_true(e->flags & PERF_FLAG_FD_CLOEXEC);
		assert_int_equal(s.c[i].id, e->id);
	}
	/* Enabling touches leaders only. */
	assert_int_equal(counters_enable(&s), 0);
	assert_int_equal(l->nr_enable, 1);
	assert_int_equal(m1->nr_enable, 0);
	assert_int_equal(tc->nr_enable, 1);
	counters_close(&s);
	assert_int_equal(fake_sys_nr_open_fds(), 0);
}

static int fail_instructions(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	return a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_INSTRUCTIONS ? ENOENT
											   : 0;
}

static void test_member_fails_rest_counts(void **state)
{
	struct counter_set s;

	fake_sys_set_open_rule(fail_instructions);
	assert_int_equal(counters_open(&s, &cfg3, 0, -1), 0);
	assert_int_equal(s.nr_open, 3);
	assert_int_equal(s.c[1].fd, -1);
	assert_int_equal(s.c[1].err, ENOENT);
	/* cache-misses still joins the cycles group. */
	assert_int_equal(fake_sys_event(s.c[2].fd)->group_fd, s.c[0].fd);

	/* The group read carries only the two that opened; the read buffer is
	 * sized for exactly them. */
	uint64_t vals[] = {500, 100}, ids[] = {s.c[2].id, s.c[0].id};
	fake_sys_queue_group_read(s.c[0].fd, 1000, 1000, 2, vals, ids);
	uint64_t tv[] = {7}, tid[] = {s.c[3].id};
	fake_sys_queue_group_read(s.c[3].fd, 1000, 1000, 1, tv, tid);
	assert_int_equal(counters_read(&s), 0);
	assert_int_equal(fake_sys_event(s.c[0].fd)->last_read_len, 8 * (3 + 2 * 2));
	/* Matched by id, not by order. */
	assert_int_equal(s.c[0].cur.value, 100);
	assert_int_equal(s.c[2].cur.value, 500);
	assert_int_equal(counters_total(&s, 1).state, COUNTER_UNSUPPORTED);
	assert_true(counters_total(&s, 2).value == 500.0);
	counters_close(&s);
}

static int fail_cycles(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	return a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES ? EOPNOTSUPP
										      : 0;
}

static void test_leader_fails_next_leads(void **state)
{
	struct counter_set s;

	fake_sys_set_open_rule(fail_cycles);
	assert_int_equal(counters_open(&s, &cfg3, 0, -1), 0);
	struct fake_event *l = fake_sys_event(s.c[1].fd);
	assert_int_equal(l->group_fd, -1);
	assert_int_equal(l->attr.disabled, 1);
	assert_int_equal(fake_sys_event(s.c[2].fd)->group_fd, s.c[1].fd);
	assert_int_equal(counters_leader_fd(&s, 2), s.c[1].fd);
	assert_int_equal(counters_leader_fd(&s, 0), s.c[1].fd);
	counters_close(&s);
}

static int fail_emfile_third(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	return a->config == PERF_COUNT_HW_CACHE_MISSES ? EMFILE : 0;
}

static void test_fd_limit_leaves_nothing_open(void **state)
{
	struct counter_set s;

	fake_sys_set_open_rule(fail_emfile_third);
	assert_int_equal(counters_open(&s, &cfg3, 0, -1), -EMFILE);
	assert_int_equal(fake_sys_nr_open_fds(), 0);
	counters_close(&s);
}

static int fail_esrch_second(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	return a->config == PERF_COUNT_HW_INSTRUCTIONS ? ESRCH : 0;
}

/* A task that vanishes part-way through the open: what was opened is
 * closed, and nothing else (fd 0 once went with it). */
static void test_task_gone_midway_closes_only_its_fds(void **state)
{
	struct counter_set s;
	int before = fcntl(0, F_GETFD);

	fake_sys_set_open_rule(fail_esrch_second);
	assert_int_equal(counters_open(&s, &cfg3, 77, -1), -ESRCH);
	assert_int_equal(fake_sys_nr_open_fds(), 0);
	counters_close(&s);
	assert_int_equal(fcntl(0, F_GETFD), before);
	if (before >= 0)
		assert_true(fcntl(0, F_GETFD) >= 0);
}

/* An event marked skip is never handed to the kernel (a made-up type may
 * well be accepted by some PMU), and reports the errno it was given. */
static void test_skipped_event_never_opens(void **state)
{
	struct counters_event ev[] = {
		{.attr = {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK}, .group = 0},
		{.attr = {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CONTEXT_SWITCHES},
		 .group = 1,
		 .skip_err = EACCES},
	};
	struct counters_config cfg = {.ev = ev, .nr = 2};
	struct counter_set s;

	assert_int_equal(counters_open(&s, &cfg, 0, -1), 0);
	assert_int_equal(fake_sys_nr_opened(), 1);
	assert_int_equal(s.c[1].fd, -1);
	assert_int_equal(s.c[1].err, EACCES);
	assert_int_equal(counters_total(&s, 1).state, COUNTER_UNSUPPORTED);
	counters_close(&s);
}

/* Members of a group need not be adjacent (software events asked for alone
 * are read together): the later one joins the first, and one read serves
 * both. */
static void test_group_members_apart(void **state)
{
	static const struct counters_event ev[] = {
		{.attr = {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK}, .group = 0},
		{.attr = {.type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES}, .group = 1},
		{.attr = {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS}, .group = 0},
	};
	static const struct counters_config cfg = {.ev = ev, .nr = 3};
	struct counter_set s;

	assert_int_equal(counters_open(&s, &cfg, 0, -1), 0);
	assert_int_equal(fake_sys_event(s.c[2].fd)->group_fd, s.c[0].fd);
	assert_int_equal(fake_sys_event(s.c[1].fd)->group_fd, -1);
	uint64_t vals[] = {500, 7}, ids[] = {s.c[2].id, s.c[0].id};
	fake_sys_queue_group_read(s.c[0].fd, 100, 100, 2, vals, ids);
	uint64_t cv[] = {9}, cid[] = {s.c[1].id};
	fake_sys_queue_group_read(s.c[1].fd, 100, 100, 1, cv, cid);
	assert_int_equal(counters_read(&s), 0);
	assert_int_equal(fake_sys_event(s.c[0].fd)->last_read_len, 8 * (3 + 2 * 2));
	assert_int_equal(s.c[0].cur.value, 7);
	assert_int_equal(s.c[2].cur.value, 500);
	assert_int_equal(s.c[1].cur.value, 9);
	counters_close(&s);
}

static void test_intervals_and_multiplexing(void **state)
{
	static const struct counters_event two[] = {
		{.attr = {.type = PERF_TYPE_HARDWARE, .config = 0}, .group = 0},
		{.attr = {.type = PERF_TYPE_HARDWARE, .config = 1}, .group = 0},
	};
	static const struct counters_config cfg = {.ev = two, .nr = 2};
	struct counter_set s;

	assert_int_equal(counters_open(&s, &cfg, -1, 0), 0);
	uint64_t ids[] = {s.c[0].id, s.c[1].id};
	uint64_t v1[] = {1000, 2000}, v2[] = {1600, 3500};
	fake_sys_queue_group_read(s.c[0].fd, 1000, 1000, 2, v1, ids);
	fake_sys_queue_group_read(s.c[0].fd, 2000, 1500, 2, v2, ids);
	assert_int_equal(counters_read(&s), 0);
	struct counter_value a = counters_interval(&s, 0);
	assert_int_equal(a.state, COUNTER_OK);
	assert_true(a.value == 1000.0);
	assert_int_equal(counters_read(&s), 0);
	/* Second interval: Δenabled 1000, Δrunning 500 -> half coverage, x2. */
	a = counters_interval(&s, 0);
	struct counter_value b = counters_interval(&s, 1);
	assert_int_equal(a.state, COUNTER_MULTIPLEXED);
	assert_true(fabs(a.coverage - 0.5) < 1e-12);
	assert_true(a.value == 1200.0);
	assert_true(b.value == 3000.0);
	/* Since the open: 1500 of 2000 ran. */
	struct counter_value t = counters_total(&s, 1);
	assert_true(fabs(t.coverage - 0.75) < 1e-12);
	assert_true(fabs(t.value - 3500.0 * 2000.0 / 1500.0) < 1e-6);
	counters_close(&s);
}

static void test_pinned_error_state(void **state)
{
	struct counter_set s;

	assert_int_equal(counters_open(&s, &cfg3, 0, -1), 0);
	fake_sys_queue_read(s.c[0].fd, "", 0); /* read() returns 0: group in error state */
	uint64_t tv[] = {7}, tid[] = {s.c[3].id};
	fake_sys_queue_group_read(s.c[3].fd, 1000, 1000, 1, tv, tid);
	assert_int_equal(counters_read(&s), 0);
	assert_int_equal(counters_interval(&s, 0).state, COUNTER_ERROR);
	assert_int_equal(counters_interval(&s, 2).state, COUNTER_ERROR);
	assert_int_equal(counters_interval(&s, 3).state, COUNTER_OK);
	counters_close(&s);
}

static void test_enable_on_exec_inherit(void **state)
{
	struct counters_config cfg = cfg3;
	struct counter_set s;

	cfg.inherit = true;
	cfg.enable_on_exec = true;
	assert_int_equal(counters_open(&s, &cfg, 99, -1), 0);
	assert_int_equal(fake_sys_event_at(0)->attr.enable_on_exec, 1);
	assert_int_equal(fake_sys_event_at(1)->attr.enable_on_exec, 0);
	assert_int_equal(fake_sys_event_at(0)->attr.inherit, 1);
	assert_int_equal(fake_sys_event_at(1)->attr.inherit, 1);
	/* The kernel enables them at exec: no ioctl. */
	assert_int_equal(counters_enable(&s), 0);
	assert_int_equal(fake_sys_event_at(0)->nr_enable, 0);
	counters_close(&s);
}

static void test_read_error_reported(void **state)
{
	struct counter_set s;

	assert_int_equal(counters_open(&s, &cfg3, 0, -1), 0);
	fake_sys_queue_read_error(s.c[0].fd, ENOSPC);
	uint64_t tv[] = {7}, tid[] = {s.c[3].id};
	fake_sys_queue_group_read(s.c[3].fd, 1000, 1000, 1, tv, tid);
	assert_int_equal(counters_read(&s), -ENOSPC);
	/* The other group was still read. */
	assert_int_equal(s.c[3].cur.value, 7);
	counters_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale_full),
		cmocka_unit_test(test_scale_multiplexed),
		cmocka_unit_test(test_scale_not_counted),
		cmocka_unit_test(test_read_size),
		cmocka_unit_test(test_parse_group),
		cmocka_unit_test(test_parse_single),
		cmocka_unit_test_setup_teardown(test_open_groups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_member_fails_rest_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leader_fails_next_leads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_limit_leaves_nothing_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_gone_midway_closes_only_its_fds, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_skipped_event_never_opens, setup, teardown),
		cmocka_unit_test_setup_teardown(test_group_members_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_intervals_and_multiplexing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pinned_error_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enable_on_exec_inherit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_error_reported, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
