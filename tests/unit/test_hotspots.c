/* test_hotspots: (pid, ip) aggregation: weights, shares, filters, intervals, growth, merging. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "hotspots.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define U RECORDS_CPUMODE_USER
#define K RECORDS_CPUMODE_KERNEL

static void assert_share(double got, double want)
{
	if (fabs(got - want) > 1e-9)
		fail_msg("share %.12f, want %.12f", got, want);
}

static void test_weights_and_shares(void **state)
{
	struct hotspots h;
	struct hotspots_row r[8];
	struct hotspots_totals t;

	assert_int_equal(hotspots_init(&h, 0, 0), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(hotspots_add(&h, 1, 11, 0x4000, U, 0, 100), 0);
	assert_int_equal(hotspots_add(&h, 1, 12, 0x5000, U, 0, 300), 0);
	assert_int_equal(hotspots_add(&h, 2, 2, 0x4000, U, 0, 200), 0);
	assert_int_equal(hotspots_add(&h, 0, 0, 0xffffffff81000000ull, K, 0, 0), 0);

	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 8, &t), 4);
	assert_int_equal(t.rows, 4);
	assert_int_equal(t.weight, 801); /* period 0 weighs 1 */
	assert_int_equal(t.samples, 6);
	assert_int_equal(t.all.weight, 801);
	assert_int_equal(t.all.overflow_samples, 0);
	/* 300 and 300 tie: pid, then ip, decide. */
	assert_int_equal(r[0].pid, 1);
	assert_int_equal(r[0].ip, 0x4000);
	assert_int_equal(r[0].weight, 300);
	assert_int_equal(r[0].samples, 3);
	assert_int_equal(r[0].tid, 0); /* per process: no tid */
	assert_false(r[0].kernel);
	assert_int_equal(r[0].cpu, -1);
	assert_int_equal(r[0].merged, 1);
	assert_share(r[0].share, 100.0 * 300 / 801);
	assert_int_equal(r[1].ip, 0x5000);
	assert_int_equal(r[1].samples, 1);
	assert_int_equal(r[2].pid, 2);
	assert_share(r[2].share, 100.0 * 200 / 801);
	assert_int_equal(r[3].pid, 0);
	assert_true(r[3].kernel);
	assert_int_equal(r[3].cpumode, K);
	assert_int_equal(r[3].weight, 1);

	/* Fewer rows than there are: the heaviest, totals still over all. */
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 2, &t), 2);
	assert_int_equal(t.rows, 4);
	assert_int_equal(t.weight, 801);
	assert_int_equal(r[1].ip, 0x5000);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 0, NULL), 0);
	hotspots_fini(&h);
	hotspots_fini(&h);
}

static void test_cpumodes(void **state)
{
	struct hotspots h;
	struct hotspots_row r[8];

	assert_true(hotspots_kernel_mode(RECORDS_CPUMODE_KERNEL));
	assert_true(hotspots_kernel_mode(RECORDS_CPUMODE_GUEST_KERNEL));
	assert_false(hotspots_kernel_mode(RECORDS_CPUMODE_USER));
	assert_false(hotspots_kernel_mode(RECORDS_CPUMODE_GUEST_USER));
	assert_false(hotspots_kernel_mode(RECORDS_CPUMODE_HYPERVISOR));
	assert_false(hotspots_kernel_mode(RECORDS_CPUMODE_UNKNOWN));

	/* One address in two modes is two rows (a guest's and the host's). */
	assert_int_equal(hotspots_init(&h, 0, 0), 0);
	hotspots_add(&h, 5, 5, 0x1000, RECORDS_CPUMODE_GUEST_KERNEL, 0, 10);
	hotspots_add(&h, 5, 5, 0x1000, RECORDS_CPUMODE_USER, 0, 20);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 8, NULL), 2);
	assert_int_equal(r[0].cpumode, RECORDS_CPUMODE_USER);
	assert_false(r[0].kernel);
	assert_int_equal(r[1].cpumode, RECORDS_CPUMODE_GUEST_KERNEL);
	assert_true(r[1].kernel);
	hotspots_fini(&h);
}

static void test_filters_and_cpu_folding(void **state)
{
	struct hotspots h;
	struct hotspots_row r[8];
	struct hotspots_totals t;
	struct hotspots_filter f = HOTSPOTS_FILTER_ALL;

	assert_int_equal(hotspots_init(&h, 0, 0), 0);
	hotspots_add(&h, 10, 10, 0xa0, U, 0, 100);
	hotspots_add(&h, 10, 10, 0xa0, U, 1, 50);
	hotspots_add(&h, 10, 10, 0xb0, U, 1, 120);
	hotspots_add(&h, 20, 20, 0xa0, U, 1, 30);
	hotspots_add(&h, 20, 20, 0xc0, K, 0, 200);

	/* All CPUs: (10, 0xa0) folded over CPUs 0 and 1. */
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, &f, r, 8, &t), 4);
	assert_int_equal(t.rows, 4);
	assert_int_equal(t.weight, 500);
	assert_int_equal(r[0].pid, 20);
	assert_int_equal(r[0].weight, 200);
	assert_int_equal(r[1].pid, 10);
	assert_int_equal(r[1].ip, 0xa0);
	assert_int_equal(r[1].weight, 150);
	assert_int_equal(r[1].samples, 2);
	assert_int_equal(r[1].cpu, -1);
	assert_share(r[1].share, 30.0);

	/* CPU 1 only: shares of CPU 1's weight. */
	f.cpu = 1;
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, &f, r, 8, &t), 3);
	assert_int_equal(t.weight, 200);
	assert_int_equal(t.samples, 3);
	assert_int_equal(t.all.weight, 500);
	assert_int_equal(r[0].ip, 0xb0);
	assert_int_equal(r[0].cpu, 1);
	assert_share(r[0].share, 60.0);
	assert_int_equal(r[1].pid, 10);
	assert_int_equal(r[1].weight, 50);
	assert_share(r[1].share, 25.0);
	assert_int_equal(r[2].pid, 20);
	assert_share(r[2].share, 15.0);

	/* pid 10 on all CPUs. */
	f.cpu = -1;
	f.pid = 10;
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, &f, r, 8, &t), 2);
	assert_int_equal(t.weight, 270);
	assert_int_equal(r[0].weight, 150);
	assert_share(r[0].share, 100.0 * 150 / 270);

	/* pid 20 on CPU 0. */
	f.cpu = 0;
	f.pid = 20;
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, &f, r, 8, &t), 1);
	assert_true(r[0].kernel);
	assert_share(r[0].share, 100.0);

	/* Nothing matches: no rows, no division by zero. */
	f.pid = 99;
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, &f, r, 8, &t), 0);
	assert_int_equal(t.rows, 0);
	assert_int_equal(t.weight, 0);
	hotspots_fini(&h);
}

static void test_by_thread(void **state)
{
	struct hotspots h;
	struct hotspots_row r[8];
	struct hotspots_filter f = HOTSPOTS_FILTER_ALL;

	assert_int_equal(hotspots_init(&h, HOTSPOTS_BY_THREAD, 0), 0);
	hotspots_add(&h, 7, 7, 0x10, U, 0, 5);
	hotspots_add(&h, 7, 8, 0x10, U, 0, 6);
	hotspots_add(&h, 7, 8, 0x10, U, 0, 6);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 8, NULL), 2);
	assert_int_equal(r[0].tid, 8);
	assert_int_equal(r[0].weight, 12);
	assert_int_equal(r[1].tid, 7);
	f.tid = 7;
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, &f, r, 8, NULL), 1);
	assert_int_equal(r[0].weight, 5);
	hotspots_fini(&h);
}

static void test_interval_vs_total(void **state)
{
	struct hotspots h;
	struct hotspots_row r[8];
	struct hotspots_totals t;

	assert_int_equal(hotspots_init(&h, 0, 0), 0);
	hotspots_add(&h, 1, 1, 0x100, U, 0, 10);
	hotspots_add(&h, 1, 1, 0x200, U, 0, 20);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_INTERVAL, NULL, r, 8, &t), 2);
	assert_int_equal(t.weight, 30);
	assert_int_equal(t.all.weight, 30);

	hotspots_interval_reset(&h);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_INTERVAL, NULL, r, 8, &t), 0);
	assert_int_equal(t.weight, 0);
	assert_int_equal(t.all.samples, 0);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 8, &t), 2);
	assert_int_equal(t.weight, 30);

	/* Second interval: 0x100 again and a new 0x300. */
	hotspots_add(&h, 1, 1, 0x100, U, 0, 5);
	hotspots_add(&h, 1, 1, 0x300, U, 0, 15);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_INTERVAL, NULL, r, 8, &t), 2);
	assert_int_equal(t.weight, 20);
	assert_int_equal(r[0].ip, 0x300);
	assert_share(r[0].share, 75.0);
	assert_int_equal(r[1].ip, 0x100);
	assert_int_equal(r[1].weight, 5); /* not 15: the first interval is gone */
	assert_int_equal(r[1].samples, 1);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 8, &t), 3);
	assert_int_equal(t.weight, 50);
	assert_int_equal(r[0].ip, 0x200);
	assert_int_equal(r[1].ip, 0x100);
	assert_int_equal(r[1].weight, 15);
	assert_int_equal(r[1].samples, 2);

	/* Clear: nothing anywhere, and the table keeps working. */
	hotspots_clear(&h);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 8, &t), 0);
	assert_int_equal(t.all.weight, 0);
	assert_int_equal(h.used, 0);
	hotspots_add(&h, 1, 1, 0x100, U, 0, 5);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_INTERVAL, NULL, r, 8, &t), 1);
	assert_int_equal(r[0].weight, 5);
	hotspots_fini(&h);
}

/* Deterministic pseudo-random keys. */
static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_growth(void **state)
{
	enum { N = 20000 };
	struct hotspots h;
	struct hotspots_totals t;
	struct hotspots_row *r = calloc(N, sizeof(*r));
	uint64_t want = 0;

	assert_non_null(r);
	assert_int_equal(hotspots_init(&h, 0, 0), 0);
	assert_int_equal(h.cap, HOTSPOTS_INITIAL_SLOTS);
	/* Key i gets two samples, on CPU 0 then on CPU 1, of periods 1 and
	 * i + 1: every key is revisited after the table has grown, and the
	 * query folds the CPUs. */
	for (int round = 0; round < 2; round++)
		for (uint32_t i = 0; i < N; i++)
			assert_int_equal(hotspots_add(&h, i % 97, 0, 0x400000 + 16 * (uint64_t)i, U,
						      round, round ? i + 1 : 1),
					 0);
	for (uint32_t i = 0; i < N; i++)
		want += i + 2;
	assert_true(h.cap > HOTSPOTS_INITIAL_SLOTS);
	assert_true((uint64_t)h.used * 4 <= (uint64_t)h.cap * 3);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, N, &t), N);
	assert_int_equal(t.rows, N);
	assert_int_equal(t.weight, want);
	assert_int_equal(t.all.weight, want);
	for (int i = 0; i < N; i++) {
		/* Heaviest first: key N-1-i with weight N+1-i. */
		assert_int_equal(r[i].weight, (uint64_t)(N + 1 - i));
		assert_int_equal(r[i].ip, 0x400000 + 16 * (uint64_t)(N - 1 - i));
		assert_int_equal(r[i].pid, (uint32_t)(N - 1 - i) % 97);
		assert_int_equal(r[i].samples, 2);
		assert_int_equal(r[i].cpu, -1);
	}
	hotspots_fini(&h);
	free(r);
}

static void test_overflow(void **state)
{
	struct hotspots h;
	struct hotspots_row r[32];
	struct hotspots_totals t;

	assert_int_equal(hotspots_init(&h, 0, 10), 0);
	for (uint64_t i = 0; i < 20; i++)
		assert_int_equal(hotspots_add(&h, 1, 1, 0x1000 + i, U, 0, 10),
				 i < 10 ? 0 : -ENOSPC);
	/* Keys already in the table still count. */
	assert_int_equal(hotspots_add(&h, 1, 1, 0x1000, U, 0, 10), 0);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 32, &t), 10);
	assert_int_equal(t.weight, 110);
	assert_int_equal(t.all.weight, 210);
	assert_int_equal(t.all.samples, 21);
	assert_int_equal(t.all.overflow_samples, 10);
	assert_int_equal(t.all.overflow_weight, 100);
	assert_int_equal(r[0].ip, 0x1000);
	assert_int_equal(r[0].weight, 20);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_INTERVAL, NULL, r, 32, &t), 10);
	assert_int_equal(t.all.overflow_samples, 10);
	hotspots_interval_reset(&h);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_INTERVAL, NULL, r, 32, &t), 0);
	assert_int_equal(t.all.overflow_samples, 0);
	hotspots_fini(&h);

	/* A zeroed (or finished) table takes samples as overflow, never crashes. */
	memset(&h, 0, sizeof(h));
	assert_int_equal(hotspots_add(&h, 1, 1, 0x1000, U, 0, 10), -ENOSPC);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 32, &t), 0);
	assert_int_equal(t.all.overflow_samples, 1);
	hotspots_fini(&h);
}

/* Same samples, different insertion orders and table sizes: same rows. */
static void test_stable_order(void **state)
{
	enum { KEYS = 3000, SAMPLES = 30000 };
	struct hotspots a, b;
	struct hotspots_row *ra = calloc(KEYS, sizeof(*ra)), *rb = calloc(KEYS, sizeof(*rb));
	uint64_t(*smp)[3] = calloc(SAMPLES, sizeof(*smp));
	uint64_t seed = 0x12345678;
	int na, nb;

	assert_non_null(ra);
	assert_non_null(rb);
	assert_non_null(smp);
	/* Weights from a small set, so that many rows tie. */
	for (int i = 0; i < SAMPLES; i++) {
		uint64_t x = xorshift(&seed);

		smp[i][0] = x % KEYS;          /* key */
		smp[i][1] = 1 + (x >> 20) % 3; /* period */
		smp[i][2] = (x >> 30) % 4;     /* cpu */
	}
	assert_int_equal(hotspots_init(&a, 0, 0), 0);
	assert_int_equal(hotspots_init(&b, 0, 0), 0);
	for (int i = 0; i < SAMPLES; i++)
		hotspots_add(&a, (uint32_t)(smp[i][0] % 13), 0, 0x1000 + smp[i][0], U,
			     (int)smp[i][2], smp[i][1]);
	/* b: reversed, with a clear in between to change the table's history. */
	hotspots_add(&b, 999, 0, 0xdead, U, 0, 1);
	for (int i = 0; i < 5000; i++)
		hotspots_add(&b, 1000 + (uint32_t)i, 0, (uint64_t)i, K, 0, 1);
	hotspots_clear(&b);
	for (int i = SAMPLES - 1; i >= 0; i--)
		hotspots_add(&b, (uint32_t)(smp[i][0] % 13), 0, 0x1000 + smp[i][0], U,
			     (int)smp[i][2], smp[i][1]);
	na = hotspots_top(&a, HOTSPOTS_TOTAL, NULL, ra, KEYS, NULL);
	nb = hotspots_top(&b, HOTSPOTS_TOTAL, NULL, rb, KEYS, NULL);
	assert_true(na > 2500);
	assert_int_equal(na, nb);
	for (int i = 0; i < na; i++) {
		assert_int_equal(ra[i].ip, rb[i].ip);
		assert_int_equal(ra[i].pid, rb[i].pid);
		assert_int_equal(ra[i].weight, rb[i].weight);
		assert_int_equal(ra[i].samples, rb[i].samples);
		if (i) {
			/* Weight descending, then pid, then ip ascending. */
			assert_true(ra[i - 1].weight > ra[i].weight ||
				    (ra[i - 1].weight == ra[i].weight &&
				     (ra[i - 1].pid < ra[i].pid ||
				      (ra[i - 1].pid == ra[i].pid && ra[i - 1].ip < ra[i].ip))));
		}
	}
	/* The top 10 are the first 10 of the full list. */
	assert_int_equal(hotspots_top(&a, HOTSPOTS_TOTAL, NULL, rb, 10, NULL), 10);
	for (int i = 0; i < 10; i++)
		assert_int_equal(ra[i].ip, rb[i].ip);
	hotspots_fini(&a);
	hotspots_fini(&b);
	free(ra);
	free(rb);
	free(smp);
}

/* A toy symbol table: [0x1000, 0x1100) is symbol 1, [0x1100, 0x1200) symbol 2. */
static uint64_t key_of(const struct hotspots_row *r, void *arg)
{
	int *calls = arg;

	(*calls)++;
	if (r->ip >= 0x1000 && r->ip < 0x1100)
		return 1;
	if (r->ip >= 0x1100 && r->ip < 0x1200)
		return 2;
	return 0; /* unresolved: stays alone */
}

static void test_merge(void **state)
{
	struct hotspots h;
	struct hotspots_row r[16];
	struct hotspots_totals t;
	int n, calls = 0;

	assert_int_equal(hotspots_init(&h, 0, 0), 0);
	hotspots_add(&h, 1, 1, 0x1010, U, 0, 40); /* sym 1, pid 1 */
	hotspots_add(&h, 1, 1, 0x1020, U, 1, 30); /* sym 1, pid 1 */
	hotspots_add(&h, 2, 2, 0x1030, U, 0, 25); /* sym 1, pid 2 */
	hotspots_add(&h, 1, 1, 0x1110, U, 0, 50); /* sym 2, pid 1 */
	hotspots_add(&h, 1, 1, 0x9000, U, 0, 20); /* unresolved */
	hotspots_add(&h, 1, 1, 0x9008, U, 0, 20); /* unresolved */
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 16, &t), 6);
	assert_int_equal(t.weight, 185);

	/* Group by (pid, symbol). */
	n = hotspots_merge(r, 6, key_of, &calls, HOTSPOTS_MERGE_PID);
	assert_int_equal(calls, 6);
	assert_int_equal(n, 5);
	assert_int_equal(r[0].key, 1);
	assert_int_equal(r[0].pid, 1);
	assert_int_equal(r[0].weight, 70);
	assert_int_equal(r[0].samples, 2);
	assert_int_equal(r[0].merged, 2);
	assert_int_equal(r[0].ip, 0x1010); /* the heaviest member */
	assert_share(r[0].share, 100.0 * 70 / 185);
	assert_int_equal(r[1].key, 2);
	assert_int_equal(r[1].weight, 50);
	assert_int_equal(r[2].pid, 2);
	assert_int_equal(r[2].weight, 25);
	assert_int_equal(r[3].ip, 0x9000);
	assert_int_equal(r[3].merged, 1);
	assert_int_equal(r[4].ip, 0x9008);

	/* Group by symbol across processes. */
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 16, NULL), 6);
	n = hotspots_merge(r, 6, key_of, &calls, 0);
	assert_int_equal(n, 4);
	assert_int_equal(r[0].key, 1);
	assert_int_equal(r[0].weight, 95);
	assert_int_equal(r[0].merged, 3);
	assert_int_equal(r[0].pid, 1);
	assert_share(r[0].share, 100.0 * 95 / 185);
	assert_int_equal(r[1].weight, 50);
	assert_int_equal(r[2].weight, 20);
	assert_int_equal(r[3].weight, 20);

	/* Per CPU rows: cpu survives only when the group agrees. */
	struct hotspots_filter f = HOTSPOTS_FILTER_ALL;

	f.cpu = 0;
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, &f, r, 16, NULL), 5);
	n = hotspots_merge(r, 5, key_of, &calls, 0);
	assert_int_equal(n, 4);
	assert_int_equal(r[0].cpu, 0);
	assert_int_equal(hotspots_merge(r, 0, key_of, &calls, 0), 0);
	hotspots_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights_and_shares),
		cmocka_unit_test(test_cpumodes),
		cmocka_unit_test(test_filters_and_cpu_folding),
		cmocka_unit_test(test_by_thread),
		cmocka_unit_test(test_interval_vs_total),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_stable_order),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
