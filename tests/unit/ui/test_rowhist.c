/* test_rowhist: the per-row rings of the view's history: wrap, one entry
 * per interval, eviction of gone rows, pins, reused ids, many rows (and
 * what they cost). */
#include "rowhist.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <cmocka.h>

/* One interval in which each of ids[0..n) gets value base + id in series 0
 * and 2 * (base + id) in series 1. */
static void interval(struct rowhist *h, const int64_t *ids, int n, float base)
{
	rowhist_begin(h);
	for (int i = 0; i < n; i++) {
		float *e = rowhist_push(h, ids[i], 7);
		assert_non_null(e);
		e[0] = base + (float)ids[i];
		e[1] = 2 * (base + (float)ids[i]);
	}
	rowhist_end(h);
}

static void test_wrap(void **state)
{
	struct rowhist *h = rowhist_new(2, 4, 10);
	const int64_t id = 42;
	float out[8];
	bool fresh;

	assert_int_equal(rowhist_get(h, id, 0, out, 8, &fresh), 0);
	assert_false(fresh);
	for (int k = 0; k < 6; k++)
		interval(h, &id, 1, (float)k * 100);
	/* the last four, oldest first */
	assert_int_equal(rowhist_get(h, id, 0, out, 8, &fresh), 4);
	assert_true(fresh);
	assert_true(out[0] == 242 && out[1] == 342 && out[2] == 442 && out[3] == 542);
	assert_int_equal(rowhist_get(h, id, 1, out, 8, NULL), 4);
	assert_true(out[3] == 1084);
	/* fewer asked: the newest */
	assert_int_equal(rowhist_get(h, id, 0, out, 2, NULL), 2);
	assert_true(out[0] == 442 && out[1] == 542);
	/* no such series */
	assert_int_equal(rowhist_get(h, id, 2, out, 8, NULL), 0);
	rowhist_free(h);
}

static void test_one_entry_per_interval(void **state)
{
	struct rowhist *h = rowhist_new(1, 8, 10);
	float out[8], *a, *b;

	rowhist_begin(h);
	a = rowhist_push(h, 1, 0);
	assert_true(isnan(a[0])); /* not filled: not counted */
	a[0] = 5;
	b = rowhist_push(h, 1, 0);
	assert_ptr_equal(a, b); /* the same entry again */
	rowhist_end(h);
	assert_int_equal(rowhist_get(h, 1, 0, out, 8, NULL), 1);
	assert_true(out[0] == 5);
	/* an interval without it: the row stays, its ring does not move */
	rowhist_begin(h);
	rowhist_end(h);
	bool fresh = true;
	assert_int_equal(rowhist_get(h, 1, 0, out, 8, &fresh), 1);
	assert_false(fresh);
	rowhist_free(h);
}

static void test_eviction(void **state)
{
	struct rowhist *h = rowhist_new(2, 8, 3);
	const int64_t ab[] = {1, 2}, b[] = {2};
	float out[8];

	interval(h, ab, 2, 0);
	interval(h, ab, 2, 10);
	assert_int_equal(rowhist_rows(h), 2);
	/* 1 goes; 2, moved into its place, keeps its figures */
	interval(h, b, 1, 20);
	interval(h, b, 1, 30);
	assert_int_equal(rowhist_rows(h), 2);
	interval(h, b, 1, 40);
	assert_int_equal(rowhist_rows(h), 1);
	assert_int_equal(rowhist_get(h, 1, 0, out, 8, NULL), 0);
	assert_int_equal(rowhist_get(h, 2, 0, out, 8, NULL), 5);
	for (int k = 0; k < 5; k++)
		assert_true(out[k] == (float)(k * 10 + 2));
	/* pinned (the detail pane's task): kept however long it is gone */
	rowhist_pin(h, true, 2);
	for (int k = 0; k < 10; k++)
		interval(h, NULL, 0, 0);
	assert_int_equal(rowhist_get(h, 2, 0, out, 8, NULL), 5);
	rowhist_pin(h, false, 0);
	interval(h, NULL, 0, 0);
	assert_int_equal(rowhist_rows(h), 0);
	rowhist_free(h);
}

static void test_ids_reused(void **state)
{
	struct rowhist *h = rowhist_new(1, 8, 2);
	float out[8], *e;

	for (int k = 0; k < 3; k++) {
		rowhist_begin(h);
		rowhist_push(h, 100, 1111)[0] = (float)k;
		rowhist_end(h);
	}
	assert_int_equal(rowhist_get(h, 100, 0, out, 8, NULL), 3);
	/* the same PID, another process (another start time): a new ring */
	rowhist_begin(h);
	e = rowhist_push(h, 100, 2222);
	e[0] = 9;
	rowhist_end(h);
	assert_int_equal(rowhist_get(h, 100, 0, out, 8, NULL), 1);
	assert_true(out[0] == 9);
	/* forgotten, then back with the same start: a new ring too */
	interval(h, NULL, 0, 0);
	interval(h, NULL, 0, 0);
	assert_int_equal(rowhist_rows(h), 0);
	rowhist_begin(h);
	rowhist_push(h, 100, 2222)[0] = 1;
	rowhist_end(h);
	assert_int_equal(rowhist_get(h, 100, 0, out, 8, NULL), 1);
	/* reset: another number of series, nothing kept */
	rowhist_reset(h, 3);
	assert_int_equal(rowhist_nseries(h), 3);
	assert_int_equal(rowhist_rows(h), 0);
	assert_int_equal(rowhist_get(h, 100, 0, out, 8, NULL), 0);
	rowhist_free(h);
}

/* Rows arriving over several intervals: the rings move to larger arrays
 * (and back, as rows go) with every entry written so far, and the first
 * interval of many rows touches about the pages it writes, not one per
 * ring entry of every row (each first touch is a page fault). */
static void test_growth(void **state)
{
	enum { N = 1000, NS = 10 };
	struct rowhist *h = rowhist_new(NS, ROWHIST_LEN, 3);
	static int64_t ids[N];
	float out[ROWHIST_LEN];
	struct rusage r0, r1;

	for (int i = 0; i < N; i++)
		ids[i] = 5000 + i;
	getrusage(RUSAGE_SELF, &r0);
	interval(h, ids, N, 0);
	getrusage(RUSAGE_SELF, &r1);
	/* 1000 rows x 10 floats: 10 pages; the arrays of 64 to 1024 rows
	 * and copies: a few dozen more. Every ring entry copied: hundreds.
	 * (Not under AddressSanitizer: its allocator and shadow memory fault
	 * pages of their own.) */
#ifndef __SANITIZE_ADDRESS__
	assert_true(r1.ru_minflt - r0.ru_minflt < 120);
#else
	(void)r0, (void)r1;
#endif
	rowhist_free(h);

	/* 16 new rows each interval: ring entry k of row i holds k - i / 16 */
	h = rowhist_new(NS, ROWHIST_LEN, 3);
	for (int k = 0; k < 40; k++) {
		rowhist_begin(h);
		for (int i = 0; i < 16 * (k + 1) && i < N; i++) {
			float *e = rowhist_push(h, ids[i], 1);
			assert_non_null(e);
			e[0] = (float)(k - i / 16);
			e[NS - 1] = (float)i;
		}
		rowhist_end(h);
	}
	assert_int_equal(rowhist_rows(h), 640);
	for (int i = 0; i < 640; i++) {
		int n = 40 - i / 16;

		assert_int_equal(rowhist_get(h, ids[i], 0, out, ROWHIST_LEN, NULL), n);
		for (int k = 0; k < n; k++)
			assert_true(out[k] == (float)k);
		assert_int_equal(rowhist_get(h, ids[i], NS - 1, out, ROWHIST_LEN, NULL), n);
		assert_true(out[0] == (float)i && out[n - 1] == (float)i);
	}
	/* all but the last 16 go: the rest move down and into a smaller array */
	for (int k = 0; k < 3; k++) {
		rowhist_begin(h);
		for (int i = 624; i < 640; i++)
			rowhist_push(h, ids[i], 1)[0] = (float)(100 + k);
		rowhist_end(h);
	}
	assert_int_equal(rowhist_rows(h), 16);
	for (int i = 624; i < 640; i++) {
		assert_int_equal(rowhist_get(h, ids[i], 0, out, ROWHIST_LEN, NULL), 4);
		assert_true(out[0] == 0 && out[1] == 100 && out[3] == 102);
	}
	rowhist_free(h);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Thousands of rows (a busy machine's threads), ids as the Tasks view
 * makes them (pid << 32 | tid), churning: every row found again, gone
 * ones forgotten, memory given back. Prints what an interval costs. */
static void test_many_rows(void **state)
{
	enum { N = 5000, NS = 10 };
	static int64_t ids[N];
	struct rowhist *h = rowhist_new(NS, ROWHIST_LEN, ROWHIST_FORGET);
	float out[ROWHIST_LEN];
	double t0, per;
	size_t full;

	for (int i = 0; i < N; i++)
		ids[i] = (int64_t)(1000 + i / 4) << 32 | (uint32_t)(1000 + i);
	t0 = now_ms();
	for (int k = 0; k < 2 * ROWHIST_LEN; k++) {
		rowhist_begin(h);
		for (int i = 0; i < N; i++) {
			float *e = rowhist_push(h, ids[i], 1);
			assert_non_null(e);
			for (int s = 0; s < NS; s++)
				e[s] = (float)(k + s);
		}
		rowhist_end(h);
	}
	per = (now_ms() - t0) / (2 * ROWHIST_LEN);
	assert_int_equal(rowhist_rows(h), N);
	full = rowhist_bytes(h);
	print_message("rowhist: %d rows x %d series x %d intervals: %.3f ms per interval, "
	              "%.1f MiB\n",
	              N, NS, ROWHIST_LEN, per, (double)full / (1 << 20));
	/* bounded: the rings and a hash of at most twice the rows */
	assert_true(full <= (size_t)2 * N * (ROWHIST_LEN * NS * sizeof(float) + 64) + (1 << 20));
	for (int i = 0; i < N; i += 97) {
		assert_int_equal(rowhist_get(h, ids[i], 3, out, ROWHIST_LEN, NULL), ROWHIST_LEN);
		assert_true(out[ROWHIST_LEN - 1] == (float)(2 * ROWHIST_LEN - 1 + 3));
		assert_true(out[0] == (float)(ROWHIST_LEN + 3));
	}
	/* a tenth stays; the rest go after ROWHIST_FORGET intervals */
	for (int k = 0; k < ROWHIST_FORGET; k++) {
		rowhist_begin(h);
		for (int i = 0; i < N; i += 10)
			rowhist_push(h, ids[i], 1)[0] = 1;
		rowhist_end(h);
	}
	assert_int_equal(rowhist_rows(h), N / 10);
	assert_true(rowhist_bytes(h) < full / 2);
	for (int i = 0; i < N; i++)
		assert_int_equal(rowhist_get(h, ids[i], 0, out, 1, NULL), i % 10 == 0);
	rowhist_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_wrap),      cmocka_unit_test(test_one_entry_per_interval),
	    cmocka_unit_test(test_eviction),  cmocka_unit_test(test_ids_reused),
	    cmocka_unit_test(test_many_rows), cmocka_unit_test(test_growth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
