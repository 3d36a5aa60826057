/* test_runwatch: which tasks ran, from switch records written into fake rings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fake_sys.h"
#include "records.h"
#include "runwatch.h"
#include "testutil.h"

#include <errno.h>
#include <string.h>

static struct runwatch w;
static const int cpus[2] = {0, 3};

static int setup(void **state)
{
	fake_sys_install();
	assert_int_equal(runwatch_open(&w, cpus, 2, 1000000), 0);
	return 0;
}

static int teardown(void **state)
{
	runwatch_close(&w);
	fake_sys_reset();
	sys_set_ops(NULL);
	return 0;
}

static struct ring *ring_of(int i)
{
	return &w.cpus[i].ring;
}

/* One CPU-wide dummy event per CPU, asking for switch records only. */
static void test_open(void **state)
{
	assert_int_equal(w.nr, 2);
	for (int i = 0; i < 2; i++) {
		struct fake_event *e = fake_sys_event(w.cpus[i].fd);
		assert_non_null(e);
		assert_int_equal(e->pid, -1);
		assert_int_equal(e->cpu, cpus[i]);
		assert_int_equal(e->attr.type, PERF_TYPE_SOFTWARE);
		assert_int_equal(e->attr.config, PERF_COUNT_SW_DUMMY);
		assert_true(e->attr.context_switch);
		assert_true(e->attr.sample_id_all);
		assert_int_equal(e->attr.sample_type, PERF_SAMPLE_TID);
		assert_false(e->attr.task || e->attr.comm || e->attr.mmap);
		assert_non_null(e->ring);
		assert_int_equal(e->ring_len, (1 + 64) * 4096); /* the most */
		assert_int_equal(e->attr.wakeup_watermark, 64 * 4096);
	}
	runwatch_close(&w);
	assert_int_equal(fake_sys_nr_open_fds(), 0);
	assert_int_equal(w.nr, 0);
}

/* Rings for twice the records expected a CPU and an interval. */
static void test_ring_size(void **state)
{
	static const struct {
		uint64_t records;
		size_t pages;
	} cases[] = {{0, 4}, {100, 4}, {1365, 16}, {2000, 32}, {2730, 32}, {2731, 64}, {1u << 30, 64}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		runwatch_close(&w);
		assert_int_equal(runwatch_open(&w, cpus, 2, cases[i].records), 0);
		assert_int_equal(fake_sys_event(w.cpus[1].fd)->ring_len, (1 + cases[i].pages) * 4096);
	}
}

/* A CPU open fails: nothing stays open. */
static int fail_second(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	return cpu == 3 ? EACCES : 0;
}

static void test_open_fails_clean(void **state)
{
	runwatch_close(&w);
	fake_sys_set_open_rule(fail_second);
	assert_int_equal(runwatch_open(&w, cpus, 2, 0), -EACCES);
	assert_int_equal(fake_sys_nr_open_fds(), 0);
	fake_sys_set_open_rule(NULL);
}

/* Who ran: every task a record names, and each CPU's current one. */
static void test_evidence(void **state)
{
	runwatch_drain(&w);
	assert_false(runwatch_whole(&w)); /* no CPU's task known yet */

	testutil_put_switch(ring_of(0), true, 100, 200); /* 100 out, 200 in */
	testutil_put_switch(ring_of(0), false, 200, 100);
	runwatch_drain(&w);
	assert_false(runwatch_whole(&w));               /* CPU 3 still unknown */
	testutil_put_switch(ring_of(1), false, 300, 0); /* in from idle */
	runwatch_drain(&w);
	assert_true(runwatch_whole(&w));
	assert_int_equal(w.records, 3);
	assert_true(runwatch_ran(&w, 100));
	assert_true(runwatch_ran(&w, 200));
	assert_true(runwatch_ran(&w, 300));
	assert_false(runwatch_ran(&w, 400));
	assert_int_equal(w.nr_seen, 3); /* the idle task is not kept */

	/* Next interval, no switch: only the tasks on the CPUs ran. */
	runwatch_next(&w);
	runwatch_drain(&w);
	assert_true(runwatch_whole(&w));
	assert_false(runwatch_ran(&w, 100));
	assert_true(runwatch_ran(&w, 200));
	assert_true(runwatch_ran(&w, 300));

	/* 200 goes idle (the out record alone says so), 300 gives way to 400. */
	testutil_put_switch(ring_of(0), true, 200, 0);
	testutil_put_switch(ring_of(1), true, 300, 400);
	runwatch_drain(&w);
	runwatch_next(&w);
	runwatch_drain(&w);
	assert_false(runwatch_ran(&w, 200));
	assert_false(runwatch_ran(&w, 300));
	assert_true(runwatch_ran(&w, 400));
}

/* Lost records: no evidence for the interval, and the CPU's task is
 * unknown until its next switch. A corrupt ring is the same. */
static void test_lost(void **state)
{
	testutil_put_switch(ring_of(0), false, 10, 0);
	testutil_put_switch(ring_of(1), false, 11, 0);
	runwatch_drain(&w);
	assert_true(runwatch_whole(&w));
	testutil_put_lost(ring_of(1), 5);
	runwatch_drain(&w);
	assert_false(runwatch_whole(&w));
	runwatch_next(&w);
	runwatch_drain(&w);
	assert_false(runwatch_whole(&w)); /* CPU 3's task: not known */
	testutil_put_switch(ring_of(1), true, 12, 13);
	runwatch_drain(&w);
	assert_true(runwatch_whole(&w));
	assert_true(runwatch_ran(&w, 13));

	/* A switch record too short for the task it names: no evidence. */
	runwatch_next(&w);
	testutil_put_switch(ring_of(1), false, 14, 0);
	runwatch_drain(&w);
	assert_true(runwatch_whole(&w));
	struct ring *r1 = ring_of(1);
	struct perf_event_header sh = {.type = PERF_RECORD_SWITCH_CPU_WIDE, .size = 8};
	memcpy(r1->data + (r1->ctl->data_head & r1->mask), &sh, sizeof(sh));
	r1->ctl->data_head += 8;
	runwatch_drain(&w);
	assert_false(runwatch_whole(&w));
	assert_int_equal(r1->stats.corrupt, 0); /* a whole record, not a torn ring */
	testutil_put_switch(ring_of(1), false, 15, 0);
	runwatch_next(&w);
	runwatch_drain(&w);
	assert_true(runwatch_whole(&w));

	/* A record of size 0: everything to the head is dropped. */
	runwatch_next(&w);
	struct ring *r = ring_of(0);
	memset(r->data + (r->ctl->data_head & r->mask), 0, 8);
	r->ctl->data_head += 8;
	runwatch_drain(&w);
	assert_false(runwatch_whole(&w));
	assert_true(r->stats.corrupt > 0);
	runwatch_next(&w);
	runwatch_drain(&w);
	assert_false(runwatch_whole(&w));
}

/* Thousands of tasks in one interval: the set grows, and says no to the
 * others. Over the ring's size: the records lost say so. */
static void test_many(void **state)
{
	testutil_put_switch(ring_of(1), false, 1, 0);
	for (pid_t t = 1000; t < 5000; t += 2)
		testutil_put_switch(ring_of(0), true, t, t + 1);
	runwatch_drain(&w);
	assert_true(runwatch_whole(&w));
	assert_int_equal(w.nr_seen, 4001);
	for (pid_t t = 1000; t < 5000; t++)
		assert_true(runwatch_ran(&w, t));
	for (pid_t t = 5001; t < 9000; t++)
		assert_false(runwatch_ran(&w, t));
	assert_false(runwatch_ran(&w, 999));
	runwatch_next(&w);
	assert_int_equal(w.nr_seen, 0);
	assert_false(runwatch_ran(&w, 1000));
	assert_true(runwatch_ran(&w, 4999)); /* CPU 0's task */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_open, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ring_size, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_open_fails_clean, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_evidence, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lost, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_many, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
