/* The retired rows: the keys of processes that left the hotspot table keep
 * their figures and names, grouped with the rows of the table as if they
 * had never left, and within a bound whatever leaves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "procfs.h"
#include "profile_fixture.h"
#include "profile_priv.h"
#include "testutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fixture_open(struct fixture *f, const char *keys, int rows)
{
	fixture_open_rows(f, keys, rows);
}

/* Kernel samples (the fixture's kernel symbols) of processes 10..15. */
static const uint64_t ips[] = {0xffffffff81001010ull, 0xffffffff81001015ull, 0xffffffff81002010ull,
                               0xffffffffc0001404ull};

static void add_samples(struct hotspots *h)
{
	for (uint32_t pid = 10; pid < 16; pid++)
		for (size_t i = 0; i < sizeof(ips) / sizeof(ips[0]); i++)
			assert_int_equal(hotspots_add(h, pid, pid, ips[i], RECORDS_CPUMODE_KERNEL,
			                              (int)(pid + i) % 2, 100 * (i + 1) + pid),
			                 0);
}

/* The since-start rows as profile_tick() ranks them: the table's and the
 * retired ones, grouped. */
static int query(struct fixture *f)
{
	const struct hotspots_filter all = HOTSPOTS_FILTER_ALL;
	struct hotspots_totals tot;
	int n = hotspots_top(&f->p.hot, HOTSPOTS_TOTAL, &all, f->p.rows, f->p.cap_rows, &tot);

	assert_true(n >= 0);
	n += profile_retired_rows(&f->p, &all, f->p.rows + n, f->p.cap_rows - n);
	return profile_group_rows(&f->p, f->p.rows, n, false);
}

struct row_fig {
	uint64_t weight, samples;
	uint32_t pid;
};

static void figures(struct fixture *f, int n, struct row_fig *out)
{
	for (int i = 0; i < n; i++)
		out[i] = (struct row_fig){
		    f->p.rows[i].weight, f->p.rows[i].samples,
		    f->p.rows[i].mixed & HOTSPOTS_MIXED_PID ? 0 : f->p.rows[i].pid};
}

/* Grouped by symbol or by process and symbol, the rows are the same before
 * and after some processes' keys left the table. */
static void check_same_rows(const char *keys)
{
	struct fixture f;
	struct row_fig before[64], after[64];
	const uint32_t gone[] = {11, 13};
	int n, m;

	fixture_open(&f, keys, 64);
	add_samples(&f.p.hot);
	n = query(&f);
	assert_true(n > 0);
	figures(&f, n, before);
	assert_int_equal(hotspots_take_pids(&f.p.hot, gone, 2, profile_retire, &f.p), 8);
	assert_int_equal(profile_retired_count(&f.p), 8);
	m = query(&f);
	figures(&f, m, after);
	assert_int_equal(m, n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(after[i].weight, before[i].weight);
		assert_int_equal(after[i].samples, before[i].samples);
		assert_int_equal(after[i].pid, before[i].pid);
	}
	fixture_close(&f);
}

static void test_retired_same_rows_sym(void **state)
{
	(void)state;
	check_same_rows("sym");
}

static void test_retired_same_rows_pid_sym(void **state)
{
	(void)state;
	check_same_rows("pid,sym");
}

/* A recycled pid is another process: its serial differs, and grouped by
 * pid its retired rows stay apart from the new process's. */
static void test_retired_recycled_pid(void **state)
{
	struct fixture f;
	const uint32_t pid = 20;
	uint32_t s1, s2;
	int n, rows = 0;

	(void)state;
	fixture_open(&f, "pid,sym", 64);
	assert_int_equal(hotspots_add(&f.p.hot, pid, pid, ips[0], RECORDS_CPUMODE_KERNEL, 0, 7), 0);
	s1 = profile_serial_of(&f.p, (pid_t)pid);
	assert_int_equal(hotspots_take_pids(&f.p.hot, &pid, 1, profile_retire, &f.p), 1);
	/* a new process in the slot: what a FORK of a recycled pid does */
	profile_comm_forget(&f.p, (pid_t)pid);
	s2 = profile_serial_of(&f.p, (pid_t)pid);
	assert_int_not_equal(s1, s2);
	assert_int_equal(hotspots_add(&f.p.hot, pid, pid, ips[0], RECORDS_CPUMODE_KERNEL, 0, 5), 0);
	n = query(&f);
	for (int i = 0; i < n; i++)
		rows += f.p.rows[i].pid == pid;
	assert_int_equal(rows, 2);
	fixture_close(&f);
}

/* Names are kept per process, exactly: two processes whose pids are equal
 * modulo any table size keep their own (a direct-mapped table lost the
 * older one's, and its exited rows read "?"). Past 3/4 of the table, the
 * entries of processes that are gone go; a name waiting for its exit to be
 * retired stays. */
static void test_comm_table(void **state)
{
	struct fixture f;
	char comm[16];
	const pid_t gone = 4194304 + 10; /* above PID_MAX_LIMIT: never a process */

	(void)state;
	fixture_open(&f, "pid,comm,sym", 64);
	for (pid_t pid = 100; pid < 100 + 8 * (pid_t)PROFILE_COMMS; pid += (pid_t)PROFILE_COMMS)
		profile_comm_of(&f.p, pid, comm, sizeof(comm));
	assert_int_equal(f.p.nr_comms, 8);
	for (pid_t pid = 100; pid < 100 + 8 * (pid_t)PROFILE_COMMS; pid += (pid_t)PROFILE_COMMS)
		assert_int_not_equal(profile_serial_of(&f.p, pid), 0);
	assert_int_not_equal(profile_serial_of(&f.p, 100),
	                     profile_serial_of(&f.p, 100 + (pid_t)PROFILE_COMMS));
	profile_comm_forget(&f.p, 100);
	assert_int_equal(f.p.nr_comms, 7);
	for (pid_t pid = 100 + (pid_t)PROFILE_COMMS; pid < 100 + 8 * (pid_t)PROFILE_COMMS;
	     pid += (pid_t)PROFILE_COMMS)
		assert_int_not_equal(profile_serial_of(&f.p, pid), 0);
	assert_int_equal(f.p.nr_comms, 7);
	/* one exit waiting for the tick, then more gone processes than fit */
	profile_comm_of(&f.p, gone, comm, sizeof(comm));
	const uint32_t waiting = profile_serial_of(&f.p, gone);
	f.p.exited[f.p.nr_exited++] = (uint32_t)gone;
	for (pid_t i = 1; i <= (pid_t)PROFILE_COMMS; i++)
		profile_comm_of(&f.p, gone + i, comm, sizeof(comm));
	assert_true(f.p.nr_comms * 4 <= PROFILE_COMMS * 3);
	assert_int_equal(profile_serial_of(&f.p, gone), waiting);
	fixture_close(&f);
}

/* Past its bound the table merges its lighter half, never losing figures:
 * the rows grouped without pid keep every sample. */
static void test_retired_bounded(void **state)
{
	struct fixture f;
	const uint32_t nr = PROFILE_RETIRED_MAX + PROFILE_RETIRED_MAX / 2;
	uint64_t weight = 0, samples = 0, got_w = 0, got_s = 0;
	int n;

	(void)state;
	fixture_open(&f, "sym", 64);
	for (uint32_t pid = 1000; pid < 1000 + nr; pid++) {
		const struct hotspots_slot s = {.ip = ips[pid % 3],
		                                .pid = pid,
		                                .cpu = 0,
		                                .cpumode = RECORDS_CPUMODE_KERNEL,
		                                .used = 1,
		                                .weight = 10 + pid % 7,
		                                .samples = 1 + pid % 3};

		profile_retire(&s, &f.p);
		weight += s.weight;
		samples += s.samples;
	}
	assert_true(profile_retired_count(&f.p) <= PROFILE_RETIRED_MAX);
	assert_true(profile_retired_coarsened(&f.p) > 0);
	assert_int_equal(f.p.retired_lost_samples, 0);
	free(f.p.rows);
	f.p.cap_rows = (int)profile_retired_count(&f.p) + 16;
	f.p.rows = calloc((size_t)f.p.cap_rows, sizeof(*f.p.rows));
	assert_non_null(f.p.rows);
	n = query(&f);
	assert_true(n >= 1 && n <= 4); /* three functions (and other, if it came to that) */
	for (int i = 0; i < n; i++) {
		got_w += f.p.rows[i].weight;
		got_s += f.p.rows[i].samples;
	}
	assert_int_equal(got_w, weight);
	assert_int_equal(got_s, samples);
	/* Entries that lost their process belong to no pid: a drill-down into
	 * pid 0 (the idle task) or any other pid finds none of them. */
	for (int pid = 0; pid < 2; pid++) {
		struct hotspots_filter one = HOTSPOTS_FILTER_ALL;

		one.pid = pid ? 1000 : 0;
		n = profile_retired_rows(&f.p, &one, f.p.rows, f.p.cap_rows);
		for (int i = 0; i < n; i++)
			assert_int_equal(f.p.rows[i].pid, one.pid);
		if (!pid)
			assert_int_equal(n, 0);
	}
	fixture_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_retired_same_rows_sym),
	    cmocka_unit_test(test_retired_same_rows_pid_sym),
	    cmocka_unit_test(test_retired_recycled_pid),
	    cmocka_unit_test(test_comm_table),
	    cmocka_unit_test(test_retired_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
