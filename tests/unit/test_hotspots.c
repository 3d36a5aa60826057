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

	assert_int_equal(hotspots_init(&h, 0, 0, 0), 0);
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
	assert_int_equal(hotspots_init(&h, 0, 0, 0), 0);
	hotspots_add(&h, 5, 5, 0x1000, RECORDS_CPUMODE_GUEST_KERNEL, 0, 10);
	hotspots_add(&h, 5, 5, 0x1000, RECORDS_CPUMODE_USER, 0, 20);
	assert_int_equal(hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 8, NULL), 2);
	assert_int_equal(r[0].cpumode, RECORDS_CPUMODE_USER);
	assert_false(r[0].kernel);
	assert_int_equal(r[1].cpumode, RECORDS_CPUMODE_GUEST_KERNEL);
	assert_true(r[1].kernel);
	/* CPU numbers the slot cannot hold go to the overflow figures. */
	assert_int_equal(hotspots_add(&h, 5, 5, 0x1000, U, HOTSPOTS_MAX_CPU + 1, 10), -ENOSPC);
	assert_int_equal(hotspots_add(&h, 5, 5, 0x1000, U, -2, 10), -ENOSPC);
	assert_int_equal(hotspots_add(&h, 5, 5, 0x1000, U, HOTSPOTS_MAX_CPU, 10), 0);
	assert_int_equal(hotspots_add(&h, 5, 5, 0x1000, U, -1, 10), 0);
	assert_null(hotspots_find(&h, 5, 5, 0x1000, U, HOTSPOTS_MAX_CPU + 1));
	assert_non_null(hotspots_find(&h, 5, 5, 0x1000, U, HOTSPOTS_MAX_CPU));
	assert_int_equal(h.total.overflow_samples, 2);
	hotspots_fini(&h);
}

static void test_filters_and_cpu_folding(void **state)
{
	struct hotspots h;
	struct hotspots_row r[8];
	struct hotspots_totals t;
	struct hotspots_filter f = HOTSPOTS_FILTER_ALL;

	assert_int_equal(hotspots_init(&h, 0, 0, 0), 0);
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

	assert_int_equal(hotspots_init(&h, HOTSPOTS_BY_THREAD, 0, 0), 0);
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

	assert_int_equal(hotspots_init(&h, 0, 0, 0), 0);
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
	assert_int_equal(hotspots_init(&h, 0, 0, 0), 0);
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

	assert_int_equal(hotspots_init(&h, 0, 10, 0), 0);
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
	assert_int_equal(hotspots_init(&a, 0, 0, 0), 0);
	assert_int_equal(hotspots_init(&b, 0, 0, 0), 0);
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

	assert_int_equal(hotspots_init(&h, 0, 0, 0), 0);
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

/* ---- bounded tables: symbol cache, trimming ---- */

/*
 * A toy resolver: user ips in [0x10000, 0x80000) belong to 0x100-byte
 * symbols (start = ip & ~0xff); user ips from 0x100000 have no symbol yet
 * (UNKNOWN); kernel ips have 0x1000-byte symbols, those of pid 99 none
 * (NONE). Counts its calls; base moves every symbol of pid rebased (an
 * exec: the same ips, other symbols).
 */
struct toy {
	int calls;
	uint32_t rebased;
	uint64_t base;
	uint32_t unknown_pid; /* every user ip of this pid is UNKNOWN (0: none) */
};

static enum hotspots_sym toy_sym(const struct hotspots_row *r, uint64_t *start, void *arg)
{
	struct toy *t = arg;
	uint64_t ip = r->ip;

	t->calls++;
	if (r->kernel) {
		if (r->pid == 99)
			return HOTSPOTS_SYM_NONE;
		*start = ip & ~0xfffull;
		return HOTSPOTS_SYM_FOUND;
	}
	if (ip >= 0x100000 || (t->unknown_pid && r->pid == t->unknown_pid))
		return HOTSPOTS_SYM_UNKNOWN;
	if (ip < 0x10000)
		return HOTSPOTS_SYM_NONE;
	if (t->rebased && r->pid == t->rebased)
		ip -= t->base; /* other symbols over the same range */
	*start = (ip & ~0xffull) + (t->rebased && r->pid == t->rebased ? t->base : 0);
	return HOTSPOTS_SYM_FOUND;
}

/* The merge key like the viewer's: cached symbol start | 1. */
struct keyctx {
	struct hotspots *h;
	struct toy *toy;
};

static uint64_t cached_key(const struct hotspots_row *r, void *arg)
{
	struct keyctx *k = arg;
	uint64_t start;

	if (hotspots_symbol(k->h, r, toy_sym, k->toy, &start) != HOTSPOTS_SYM_FOUND)
		return 0;
	return start | 1;
}

/* The same key without a cache. */
static uint64_t plain_key(const struct hotspots_row *r, void *arg)
{
	uint64_t start;

	if (toy_sym(r, &start, arg) != HOTSPOTS_SYM_FOUND)
		return 0;
	return start | 1;
}

/* Every key is found where it is (reachable from its home slot, not
 * shadowed by a copy earlier on its probe), and used counts them. */
/* Every key findable where it is, and the per-pid indexes exact. */
static void assert_table_sound(const struct hotspots *h)
{
	static uint32_t nkeys[HOTSPOTS_SYM_EPOCHS];
	uint32_t n = 0;

	memset(nkeys, 0, sizeof(nkeys));
	assert_true(h->cap >= HOTSPOTS_INITIAL_SLOTS && (h->cap & (h->cap - 1)) == 0);
	assert_true((uint64_t)h->used * 4 <= (uint64_t)h->cap * 3);
	for (uint32_t i = 0; i < h->cap; i++) {
		const struct hotspots_slot *s = &h->slots[i];

		assert_int_equal(h->slot_pid1[i], s->used ? s->pid + 1 : 0);
		if (!s->used)
			continue;
		n++;
		nkeys[s->pid % HOTSPOTS_SYM_EPOCHS]++;
		if (hotspots_find(h, s->pid, s->tid, s->ip, (enum records_cpumode)s->cpumode,
		                  s->cpu) != s)
			fail_msg("key ip %#llx pid %u cpu %d in slot %u not found there",
			         (unsigned long long)s->ip, s->pid, s->cpu, i);
	}
	assert_int_equal(n, h->used);
	assert_memory_equal(nkeys, h->pid_nkeys, sizeof(nkeys));
}

/* Rows of a query merged by (pid, symbol), sorted by key then pid. */
static int row_cmp_keypid(const void *pa, const void *pb)
{
	const struct hotspots_row *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->key == 0 && a->ip != b->ip) /* unmerged rows: by ip */
		return a->ip < b->ip ? -1 : 1;
	return 0;
}

static int merged_by_symbol(struct hotspots *h, enum hotspots_mode mode, hotspots_key_fn key,
                            void *arg, struct hotspots_row *r, int cap, struct hotspots_totals *t)
{
	int n = hotspots_top(h, mode, NULL, r, cap, t);

	assert_true(n >= 0);
	n = hotspots_merge(r, n, key, arg, HOTSPOTS_MERGE_PID);
	qsort(r, (size_t)n, sizeof(*r), row_cmp_keypid);
	return n;
}

static void assert_same_symbols(const struct hotspots_row *a, int na, const struct hotspots_row *b,
                                int nb)
{
	assert_int_equal(na, nb);
	for (int i = 0; i < na; i++) {
		assert_int_equal(a[i].key, b[i].key);
		assert_int_equal(a[i].pid, b[i].pid);
		assert_int_equal(a[i].weight, b[i].weight);
		assert_int_equal(a[i].samples, b[i].samples);
		assert_share(a[i].share, b[i].share);
	}
}

static void assert_same_rows(const struct hotspots_row *a, int na, const struct hotspots_row *b,
                             int nb)
{
	assert_int_equal(na, nb);
	for (int i = 0; i < na; i++) {
		assert_int_equal(a[i].pid, b[i].pid);
		assert_int_equal(a[i].ip, b[i].ip);
		assert_int_equal(a[i].cpumode, b[i].cpumode);
		assert_int_equal(a[i].cpu, b[i].cpu);
		assert_int_equal(a[i].weight, b[i].weight);
		assert_int_equal(a[i].samples, b[i].samples);
		assert_int_equal(a[i].key, b[i].key);
		assert_int_equal(a[i].merged, b[i].merged);
		assert_share(a[i].share, b[i].share);
	}
}

/* Idle keys fold into their symbol's: the table stays at the cap, the
 * interval and the since-start figures per symbol do not change. */
/* hotspots_top_all(): the addresses of one function fold into one row per
 * (pid, tid, cpumode) and CPU choice; what has no symbol stays per address;
 * nothing is lost; the rows array grows to hold them and the reserve. */
static void test_top_all(void **state)
{
	struct hotspots h;
	struct hotspots_row *rows = NULL;
	struct hotspots_totals t;
	struct hotspots_filter f = HOTSPOTS_FILTER_ALL;
	struct toy toy = {0};
	uint64_t sum = 0;
	int cap = 0, n;

	(void)state;
	assert_int_equal(hotspots_init(&h, 0, 0, 0), 0);
	for (uint32_t pid = 1; pid <= 2; pid++)
		for (uint64_t ip = 0x20000; ip < 0x20100; ip += 8)
			for (int cpu = 0; cpu < 2; cpu++)
				assert_int_equal(hotspots_add(&h, pid, pid, ip, U, cpu, 10), 0);
	assert_int_equal(hotspots_add(&h, 1, 1, 0x5000, U, 0, 7), 0);   /* no symbol */
	assert_int_equal(hotspots_add(&h, 1, 1, 0x5008, U, 0, 7), 0);   /* no symbol */
	assert_int_equal(hotspots_add(&h, 1, 1, 0x200000, U, 0, 5), 0); /* unknown */
	n = hotspots_top_all(&h, HOTSPOTS_TOTAL, &f, toy_sym, &toy, &rows, &cap, 10, &t);
	assert_int_equal(n, 5);
	assert_true(cap >= n + 10);
	assert_int_equal(t.rows, 5);
	for (int i = 0; i < n; i++)
		sum += rows[i].weight;
	assert_int_equal(sum, t.weight);
	assert_int_equal(t.weight, 2 * 32 * 2 * 10 + 7 + 7 + 5);
	assert_int_equal(rows[0].weight, 640); /* a function of 32 addresses on 2 CPUs */
	assert_int_equal(rows[0].cpu, -1);
	assert_int_equal(rows[0].pid, 1); /* ties: by pid */
	assert_int_equal(rows[1].pid, 2);
	assert_share(rows[0].share, 100.0 * 640 / (double)t.weight);
	/* a row per CPU when asked */
	f.by_cpu = true;
	n = hotspots_top_all(&h, HOTSPOTS_TOTAL, &f, toy_sym, &toy, &rows, &cap, 0, &t);
	assert_int_equal(n, 7);
	assert_int_equal(rows[0].weight, 320);
	assert_true(rows[0].cpu == 0 || rows[0].cpu == 1);
	/* without symbols: a row per address (its CPUs folded) */
	f.by_cpu = false;
	n = hotspots_top_all(&h, HOTSPOTS_TOTAL, &f, NULL, NULL, &rows, &cap, 0, &t);
	assert_int_equal(n, 2 * 32 + 3);
	assert_int_equal(rows[0].weight, 20);
	/* one pid */
	f.pid = 2;
	n = hotspots_top_all(&h, HOTSPOTS_TOTAL, &f, toy_sym, &toy, &rows, &cap, 0, &t);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].weight, 640);
	free(rows);
	hotspots_fini(&h);
}

static void test_trim_folds_idle(void **state)
{
	enum { CAP = 96, ROWS = 4096 };
	struct hotspots h, ref;
	struct toy toy = {0}, rtoy = {0};
	struct keyctx kc = {&h, &toy};
	struct hotspots_row *a = calloc(ROWS, sizeof(*a)), *b = calloc(ROWS, sizeof(*b));
	struct hotspots_totals ta, tb;
	uint64_t seed = 0xfeed;
	int na, nb;

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(hotspots_init(&h, 0, 0, CAP), 0);
	assert_int_equal(hotspots_init(&ref, 0, 0, 0), 0);
	assert_int_equal(h.soft_cap, CAP);
	/* Twelve intervals; each touches 40 new ips (in four user symbols,
	 * or one kernel one) of 4 pids on 2 CPUs, plus one ip that stays
	 * busy throughout. Folded, that is at most 40 keys. */
	for (int tick = 0; tick < 12; tick++) {
		for (int i = 0; i < 40; i++) {
			uint64_t x = xorshift(&seed);
			uint32_t pid = 1 + (uint32_t)(x % 4);
			uint64_t ip =
			    0x10000 + (uint64_t)(i % 4) * 0x100 + 1 + (uint64_t)(tick * 10 + i / 4);
			bool kern = (x >> 8) % 5 == 0;
			int cpu = (int)((x >> 16) % 2);
			uint64_t period = 1 + (x >> 24) % 100;

			if (kern)
				ip |= 0xffffffff81000000ull;
			hotspots_add(&h, pid, pid, ip, kern ? K : U, cpu, period);
			hotspots_add(&ref, pid, pid, ip, kern ? K : U, cpu, period);
		}
		hotspots_add(&h, 7, 7, 0x12345, U, 0, 10);
		hotspots_add(&ref, 7, 7, 0x12345, U, 0, 10);

		/* The interval: rows and merge exactly as without a cap. */
		na = hotspots_top(&h, HOTSPOTS_INTERVAL, NULL, a, ROWS, &ta);
		nb = hotspots_top(&ref, HOTSPOTS_INTERVAL, NULL, b, ROWS, &tb);
		assert_int_equal(ta.weight, tb.weight);
		assert_int_equal(ta.all.weight, tb.all.weight);
		na = hotspots_merge(a, na, cached_key, &kc, HOTSPOTS_MERGE_PID);
		nb = hotspots_merge(b, nb, plain_key, &rtoy, HOTSPOTS_MERGE_PID);
		assert_same_rows(a, na, b, nb);

		hotspots_trim(&h, toy_sym, &toy);
		hotspots_trim(&ref, toy_sym, &toy); /* no cap: nothing */
		assert_table_sound(&h);
		/* Trimming leaves the interval alone. */
		na = hotspots_top(&h, HOTSPOTS_INTERVAL, NULL, a, ROWS, &ta);
		na = hotspots_merge(a, na, cached_key, &kc, HOTSPOTS_MERGE_PID);
		assert_same_rows(a, na, b, nb);
		/* Since the start, per symbol: the same. */
		na = merged_by_symbol(&h, HOTSPOTS_TOTAL, cached_key, &kc, a, ROWS, &ta);
		nb = merged_by_symbol(&ref, HOTSPOTS_TOTAL, plain_key, &rtoy, b, ROWS, &tb);
		assert_same_symbols(a, na, b, nb);
		assert_int_equal(ta.weight, tb.weight);
		assert_int_equal(ta.samples, tb.samples);
		assert_int_equal(ta.all.weight, tb.all.weight);
		assert_int_equal(ta.all.samples, tb.all.samples);
		if (tick >= 4) /* from then on there is something idle enough */
			assert_true(h.used <= CAP);
		hotspots_interval_reset(&h);
		hotspots_interval_reset(&ref);
	}
	assert_int_equal(ref.used, 12 * 40 + 1);
	assert_true(h.folded > 0);
	/* Folding was enough: nothing went to overflow. */
	assert_int_equal(h.dropped, 0);
	assert_int_equal(h.total.overflow_samples, 0);
	assert_int_equal(h.total.overflow_weight, 0);
	assert_int_equal(h.total.weight, ref.total.weight);
	assert_int_equal(h.total.samples, ref.total.samples);
	assert_int_equal(h.interval.weight, ref.interval.weight);
	/* A new sample after all that: a key of its own in the interval. */
	hotspots_add(&h, 1, 1, 0x10008, U, 0, 5);
	hotspots_add(&ref, 1, 1, 0x10008, U, 0, 5);
	na = merged_by_symbol(&h, HOTSPOTS_TOTAL, cached_key, &kc, a, ROWS, &ta);
	nb = merged_by_symbol(&ref, HOTSPOTS_TOTAL, plain_key, &rtoy, b, ROWS, &tb);
	assert_same_symbols(a, na, b, nb);
	na = hotspots_top(&h, HOTSPOTS_INTERVAL, NULL, a, ROWS, &ta);
	assert_int_equal(na, 1);
	assert_int_equal(a[0].ip, 0x10008);
	assert_int_equal(a[0].weight, 5);
	hotspots_fini(&h);
	hotspots_fini(&ref);
	free(a);
	free(b);
}

/* Under the cap nothing happens; keys busy this interval never fold, and
 * with nothing idle the table may stay over the cap. */
static void test_trim_spares_busy_keys(void **state)
{
	struct hotspots h;
	struct toy toy = {0};

	assert_int_equal(hotspots_init(&h, 0, 0, 8), 0);
	for (uint64_t i = 0; i < 8; i++)
		hotspots_add(&h, 1, 1, 0x10010 + i, U, 0, 1);
	assert_int_equal(hotspots_trim(&h, toy_sym, &toy), 0);
	assert_int_equal(toy.calls, 0); /* not over the cap: nothing asked */
	for (uint64_t i = 8; i < 20; i++)
		hotspots_add(&h, 1, 1, 0x10010 + i, U, 0, 1);
	assert_int_equal(h.used, 20);
	assert_int_equal(hotspots_trim(&h, toy_sym, &toy), 0); /* all busy */
	assert_int_equal(h.used, 20);
	/* One interval later they are idle: folded (all into 0x10000), the
	 * cap reached without dropping anything. */
	hotspots_interval_reset(&h);
	assert_int_equal(hotspots_trim(&h, toy_sym, &toy), 12);
	assert_int_equal(h.used, 8);
	assert_int_equal(h.folded, 13); /* the first made the key 0x10000 */
	assert_int_equal(h.dropped, 0);
	assert_table_sound(&h);
	/* A cap at or above max_entries is no cap. */
	hotspots_fini(&h);
	assert_int_equal(hotspots_init(&h, 0, 10, 10), 0);
	assert_int_equal(h.soft_cap, 0);
	hotspots_fini(&h);
	/* A zeroed table trims nothing and does not crash. */
	assert_int_equal(hotspots_trim(&h, toy_sym, &toy), 0);
}

/* Keys without a symbol cannot fold: the coldest idle ones go to the
 * overflow figures, only as many as needed to leave the cap's worth of
 * idle keys, never a busy one. */
static void test_trim_overflow(void **state)
{
	enum { CAP = 50, ROWS = 1024 };
	struct hotspots h, ref;
	struct toy toy = {0};
	struct hotspots_row *a = calloc(ROWS, sizeof(*a)), *b = calloc(ROWS, sizeof(*b));
	struct hotspots_totals ta, tb;
	uint64_t dropped_w = 0, kept_min = UINT64_MAX, dropped_max = 0;
	int na, nb;

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(hotspots_init(&h, 0, 0, CAP), 0);
	assert_int_equal(hotspots_init(&ref, 0, 0, 0), 0);
	/* 30 keys with symbols (ten per symbol), 60 without, distinct weights. */
	for (uint64_t i = 0; i < 90; i++) {
		uint64_t ip = i < 30 ? 0x20000 + (i / 10) * 0x100 + i % 10 : 0x100000 + i;

		hotspots_add(&h, 3, 3, ip, U, 0, 1000 + i * 7 % 90);
		hotspots_add(&ref, 3, 3, ip, U, 0, 1000 + i * 7 % 90);
	}
	hotspots_interval_reset(&h);
	hotspots_interval_reset(&ref);
	/* This interval's keys: busy, never dropped. */
	for (uint64_t i = 0; i < 5; i++) {
		hotspots_add(&h, 4, 4, 0x100000 + i, U, 1, 1);
		hotspots_add(&ref, 4, 4, 0x100000 + i, U, 1, 1);
	}
	nb = hotspots_top(&ref, HOTSPOTS_INTERVAL, NULL, b, ROWS, &tb);
	/* 95 keys: folding makes 30 into 3 (68 left: 63 idle), then 13 of
	 * the 60 without a symbol are dropped: 50 idle and 5 busy left. */
	assert_int_equal(hotspots_trim(&h, toy_sym, &toy), 40);
	assert_int_equal(h.used, CAP + 5);
	assert_int_equal(h.folded, 27);
	assert_int_equal(h.dropped, 13);
	assert_table_sound(&h);
	na = hotspots_top(&h, HOTSPOTS_INTERVAL, NULL, a, ROWS, &ta);
	assert_same_rows(a, na, b, nb);
	assert_int_equal(ta.all.overflow_samples, 0); /* not this interval's */
	/* Totals keep every sample; the dropped ones are overflow. */
	na = hotspots_top(&h, HOTSPOTS_TOTAL, NULL, a, ROWS, &ta);
	nb = hotspots_top(&ref, HOTSPOTS_TOTAL, NULL, b, ROWS, &tb);
	assert_int_equal(ta.all.weight, tb.all.weight);
	assert_int_equal(ta.all.samples, tb.all.samples);
	assert_int_equal(ta.all.overflow_samples, 13);
	assert_int_equal(ta.weight + ta.all.overflow_weight, tb.weight);
	/* The dropped ones were the lightest of those without a symbol. */
	for (int i = 0; i < nb; i++) {
		bool kept = false;

		if (b[i].ip < 0x100000 || b[i].pid != 3)
			continue;
		for (int j = 0; j < na; j++)
			kept |= a[j].ip == b[i].ip && a[j].pid == b[i].pid;
		if (kept) {
			kept_min = b[i].weight < kept_min ? b[i].weight : kept_min;
		} else {
			dropped_w += b[i].weight;
			dropped_max = b[i].weight > dropped_max ? b[i].weight : dropped_max;
		}
	}
	assert_int_equal(dropped_w, ta.all.overflow_weight);
	assert_true(dropped_max <= kept_min);
	/* The symbols' figures are exact still. */
	struct keyctx kc = {&h, &toy};
	na = merged_by_symbol(&h, HOTSPOTS_TOTAL, cached_key, &kc, a, ROWS, &ta);
	nb = merged_by_symbol(&ref, HOTSPOTS_TOTAL, plain_key, &toy, b, ROWS, &tb);
	for (int i = 0, j = 0; i < nb; i++) {
		if (!b[i].key)
			continue;
		while (j < na && !a[j].key)
			j++;
		assert_true(j < na);
		assert_int_equal(a[j].key, b[i].key);
		assert_int_equal(a[j].weight, b[i].weight);
		assert_int_equal(a[j].merged, 1); /* one key per symbol now */
		j++;
	}
	/* Once those 5 are idle too, the table is brought down to the cap:
	 * the 5 are the lightest now. */
	hotspots_interval_reset(&h);
	assert_int_equal(hotspots_trim(&h, toy_sym, &toy), 5);
	assert_int_equal(h.used, CAP);
	assert_int_equal(h.dropped, 18);
	assert_null(hotspots_find(&h, 4, 4, 0x100000, U, 1));
	assert_int_equal(h.total.overflow_samples, 18);
	assert_int_equal(h.total.weight, ref.total.weight);
	hotspots_fini(&h);
	hotspots_fini(&ref);
	free(a);
	free(b);
}

/* Which keys are dropped: the lightest, exactly as many as needed, ties
 * and all, for many sizes and weights. */
static void test_trim_drops_coldest(void **state)
{
	uint64_t seed = 0x5eed;

	for (int round = 0; round < 40; round++) {
		const uint32_t cap = 1 + (uint32_t)(xorshift(&seed) % 300);
		const uint32_t n = cap + 1 + (uint32_t)(xorshift(&seed) % 600);
		const uint64_t spread = 1 + xorshift(&seed) % (round % 2 ? 5 : 100000);
		struct hotspots h;
		struct toy toy = {0};
		uint64_t *w = calloc(n, sizeof(*w)), kept_min = UINT64_MAX, dropped_max = 0;
		uint64_t dropped_w = 0;
		uint32_t dropped = 0;

		assert_non_null(w);
		assert_int_equal(hotspots_init(&h, 0, 0, cap), 0);
		for (uint32_t i = 0; i < n; i++) {
			w[i] = 1 + xorshift(&seed) % spread;
			hotspots_add(&h, 1, 1, 0x100000 + i, U, 0, w[i]); /* no symbol */
		}
		hotspots_interval_reset(&h);
		assert_int_equal(hotspots_trim(&h, toy_sym, &toy), n - cap);
		assert_int_equal(h.used, cap);
		assert_table_sound(&h);
		for (uint32_t i = 0; i < n; i++) {
			if (hotspots_find(&h, 1, 1, 0x100000 + i, U, 0)) {
				kept_min = w[i] < kept_min ? w[i] : kept_min;
			} else {
				dropped++;
				dropped_w += w[i];
				dropped_max = w[i] > dropped_max ? w[i] : dropped_max;
			}
		}
		assert_int_equal(dropped, n - cap);
		assert_true(dropped_max <= kept_min);
		assert_int_equal(h.total.overflow_weight, dropped_w);
		assert_int_equal(h.total.overflow_samples, dropped);
		hotspots_fini(&h);
		free(w);
	}
}

/* Symbols are asked once per key, until the pid's symbols change. */
static void test_symbol_cache(void **state)
{
	struct hotspots h;
	struct toy toy = {0};
	struct keyctx kc = {&h, &toy};
	struct hotspots_row r[16], fake;
	uint64_t start = 0;
	int n;

	assert_int_equal(hotspots_init(&h, 0, 0, 0), 0);
	hotspots_add(&h, 5, 5, 0x10020, U, 0, 10);
	hotspots_add(&h, 5, 5, 0x10030, U, 1, 10); /* same symbol, two CPUs */
	hotspots_add(&h, 5, 5, 0x10030, U, 0, 10);
	hotspots_add(&h, 6, 6, 0x10020, U, 0, 10);
	hotspots_add(&h, 99, 99, 0xffffffff81000010ull, K, 0, 10); /* NONE */
	hotspots_add(&h, 6, 6, 0x100040, U, 0, 10);                /* UNKNOWN */
	n = hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 16, NULL);
	assert_int_equal(n, 5);
	n = hotspots_merge(r, n, cached_key, &kc, HOTSPOTS_MERGE_PID);
	assert_int_equal(toy.calls, 5);
	assert_int_equal(n, 4);
	assert_int_equal(r[0].pid, 5);
	assert_int_equal(r[0].key, 0x10001);
	assert_int_equal(r[0].weight, 30);
	/* Again: nothing asked, the same result. */
	n = hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 16, NULL);
	n = hotspots_merge(r, n, cached_key, &kc, HOTSPOTS_MERGE_PID);
	assert_int_equal(toy.calls, 5);
	assert_int_equal(n, 4);
	assert_int_equal(r[0].weight, 30);

	/* pid 5 execs: the same ips are other symbols now, asked again;
	 * pid 6's stay cached. */
	toy.rebased = 5;
	toy.base = 0x28;
	hotspots_symbols_changed(&h, 5);
	n = hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 16, NULL);
	n = hotspots_merge(r, n, cached_key, &kc, HOTSPOTS_MERGE_PID);
	assert_int_equal(toy.calls, 7);
	assert_int_equal(n, 5); /* 0x10020 is in 0xff28 now, 0x10030 in 0x10028 */
	for (int i = 0; i < n; i++) {
		if (r[i].pid == 5)
			assert_int_equal(r[i].key, r[i].ip == 0x10030 ? 0x10029 : 0xff29);
	}
	/* A recycled pid in the same epoch bucket is asked again too: harmless. */
	hotspots_symbols_changed(&h, 6 + HOTSPOTS_SYM_EPOCHS);
	n = hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 16, NULL);
	n = hotspots_merge(r, n, cached_key, &kc, HOTSPOTS_MERGE_PID);
	assert_int_equal(toy.calls, 9); /* pid 6's two rows */

	/* UNKNOWN is asked again after HOTSPOTS_RETRY_INTERVALS intervals,
	 * NONE never. */
	for (uint32_t i = 1; i <= HOTSPOTS_RETRY_INTERVALS; i++) {
		int before = toy.calls;

		hotspots_interval_reset(&h);
		n = hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 16, NULL);
		n = hotspots_merge(r, n, cached_key, &kc, HOTSPOTS_MERGE_PID);
		assert_int_equal(toy.calls - before, i == HOTSPOTS_RETRY_INTERVALS ? 1 : 0);
	}

	/* A row that is not the table's (or no longer matches its slot) is
	 * asked every time, and nothing is cached. */
	fake = r[0];
	fake.ip = 0x10099;
	assert_int_equal(hotspots_symbol(&h, &fake, toy_sym, &toy, &start), HOTSPOTS_SYM_FOUND);
	assert_int_equal(hotspots_symbol(&h, &fake, toy_sym, &toy, &start), HOTSPOTS_SYM_FOUND);
	assert_int_equal(r[0].pid, 5);
	assert_int_equal(start, 0x10028);
	fake.slot = UINT32_MAX;
	assert_int_equal(hotspots_symbol(&h, &fake, NULL, NULL, &start), HOTSPOTS_SYM_UNKNOWN);

	/* Clearing forgets cached symbols with the keys. */
	hotspots_clear(&h);
	hotspots_add(&h, 6, 6, 0x10020, U, 0, 10);
	n = hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 16, NULL);
	toy.calls = 0;
	n = hotspots_merge(r, n, cached_key, &kc, HOTSPOTS_MERGE_PID);
	assert_int_equal(toy.calls, 1);
	hotspots_fini(&h);
}

/* Keys of chosen pids resolved ahead (a process that exits): then they fold
 * even when their symbols can no longer be asked. */
/* The processes user keys still name: sorted, once each, kernel keys not. */
static void test_user_pids(void **state)
{
	struct hotspots h;
	uint32_t pids[256];

	assert_int_equal(hotspots_init(&h, 0, 0, 0), 0);
	assert_int_equal(hotspots_user_pids(&h, pids, 16), 0);
	hotspots_add(&h, 30, 30, 0x10, U, 0, 1);
	hotspots_add(&h, 7, 7, 0x10, U, 1, 1);
	hotspots_add(&h, 30, 31, 0x20, U, 0, 1);
	hotspots_add(&h, 9, 9, 0xffffffff81000000ull, RECORDS_CPUMODE_KERNEL, 0, 1);
	hotspots_add(&h, 7, 7, 0x30, U, 0, 1);
	assert_int_equal(hotspots_user_pids(&h, pids, 16), 2);
	assert_int_equal(pids[0], 7);
	assert_int_equal(pids[1], 30);
	/* pids that share a place in the filter of pids seen (7, 263, 519:
	 * equal modulo 256), their keys interleaved: still once each */
	for (uint64_t ip = 0x100; ip < 0x400; ip += 0x10) {
		hotspots_add(&h, 263, 263, ip, U, 0, 1);
		hotspots_add(&h, 7, 7, ip, U, 0, 1);
		hotspots_add(&h, 519, 519, ip, U, 1, 1);
	}
	assert_true(h.used <= 256);
	assert_int_equal(hotspots_user_pids(&h, pids, 256), 4);
	assert_int_equal(pids[0], 7);
	assert_int_equal(pids[1], 30);
	assert_int_equal(pids[2], 263);
	assert_int_equal(pids[3], 519);
	hotspots_fini(&h);
}

/* What a take function was handed. */
struct taken {
	uint64_t weight, samples;
	uint32_t keys, pids_seen[8];
};

static void take_count(const struct hotspots_slot *s, void *arg)
{
	struct taken *t = arg;

	t->weight += s->weight;
	t->samples += s->samples;
	t->pids_seen[s->pid % 8]++;
	t->keys++;
}

static void test_take_pids(void **state)
{
	struct hotspots h;
	struct taken t = {0};
	uint32_t pids[] = {2, 5};

	assert_int_equal(hotspots_init(&h, 0, 0, 0), 0);
	for (uint32_t pid = 1; pid <= 3; pid++)
		for (uint64_t i = 0; i < 40; i++)
			hotspots_add(&h, pid, pid, 0x10010 + i, i % 2 ? U : K, (int)(i % 3), 10);
	assert_true(hotspots_may_have_pid(&h, 2));
	assert_false(hotspots_may_have_pid(&h, 5));
	assert_false(hotspots_may_have_pid(&h, 4));
	/* Every key of pid 2, user and kernel, on every CPU, and nothing else. */
	assert_int_equal(hotspots_take_pids(&h, pids, 2, take_count, &t), 40);
	assert_false(hotspots_may_have_pid(&h, 2));
	assert_true(hotspots_may_have_pid(&h, 3));
	assert_int_equal(t.keys, 40);
	assert_int_equal(t.pids_seen[2], 40);
	assert_int_equal(t.weight, 400);
	assert_int_equal(t.samples, 40);
	assert_int_equal(h.used, 80);
	assert_null(hotspots_find(&h, 2, 2, 0x10011, U, 1));
	assert_non_null(hotspots_find(&h, 1, 1, 0x10011, U, 1));
	assert_non_null(hotspots_find(&h, 3, 3, 0x10010, K, 0));
	assert_table_sound(&h);
	/* The totals keep the figures: the caller holds the keys' rows now. */
	assert_int_equal(h.total.weight, 1200);
	assert_int_equal(hotspots_take_pids(&h, pids, 2, take_count, &t), 0);
	/* A pid with the same residue as another: only its own keys go, and
	 * both pids' keys are counted until the scan has seen them all. */
	for (uint64_t i = 0; i < 5; i++)
		hotspots_add(&h, 3 + HOTSPOTS_SYM_EPOCHS, 9, 0x20000 + i, U, 0, 1);
	assert_table_sound(&h);
	memset(&t, 0, sizeof(t));
	pids[0] = 3 + HOTSPOTS_SYM_EPOCHS;
	assert_int_equal(hotspots_take_pids(&h, pids, 1, take_count, &t), 5);
	assert_int_equal(t.weight, 5);
	assert_int_equal(h.used, 80);
	assert_true(hotspots_may_have_pid(&h, 3 + HOTSPOTS_SYM_EPOCHS)); /* pid 3's */
	pids[0] = 3;
	assert_int_equal(hotspots_take_pids(&h, pids, 1, take_count, &t), 40);
	assert_false(hotspots_may_have_pid(&h, 3));
	assert_table_sound(&h);
	hotspots_fini(&h);
}

/* A table with a drop hook hands the keys it drops to it, the overflow
 * figures untouched: nothing a query can rank is lost. */
static void test_trim_drop_hook(void **state)
{
	struct hotspots h;
	struct taken t = {0};
	struct hotspots_row rows[64];
	struct hotspots_totals tot;
	uint64_t shown = 0;
	int n;

	assert_int_equal(hotspots_init(&h, 0, 0, 8), 0);
	h.drop = take_count;
	h.drop_arg = &t;
	for (uint64_t i = 0; i < 40; i++)
		hotspots_add(&h, 7, 7, 0x900000 + 64 * i, U, 0, 1 + i);
	hotspots_interval_reset(&h);
	assert_int_equal(hotspots_trim(&h, NULL, NULL), 32); /* no symbols: dropped */
	assert_int_equal(h.used, 8);
	assert_int_equal(t.keys, 32);
	assert_int_equal(h.total.overflow_weight, 0);
	n = hotspots_top(&h, HOTSPOTS_TOTAL, NULL, rows, 64, &tot);
	for (int i = 0; i < n; i++)
		shown += rows[i].weight;
	/* The heaviest stay; what left plus what stayed is everything. */
	assert_int_equal(shown + t.weight, 40 * 41 / 2);
	assert_int_equal(rows[n - 1].weight, 33);
	hotspots_fini(&h);
}

/* After an exec, idle keys fold by the new symbols, not by the cached old ones. */
static void test_exec_then_trim(void **state)
{
	struct hotspots h;
	struct toy toy = {0};
	struct hotspots_row r[64];
	struct keyctx kc = {&h, &toy};
	int n;

	assert_int_equal(hotspots_init(&h, 0, 0, 4), 0);
	for (uint64_t i = 0; i < 8; i++)
		hotspots_add(&h, 8, 8, 0x30080 + i * 4, U, 0, 1);
	/* Resolved (and cached) by a query, before the exec. */
	n = hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 64, NULL);
	n = hotspots_merge(r, n, cached_key, &kc, HOTSPOTS_MERGE_PID);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].key, 0x30001);
	/* exec: the ips from 0x30080 are now in a symbol at 0x30080. */
	toy.rebased = 8;
	toy.base = 0x80;
	hotspots_symbols_changed(&h, 8);
	hotspots_interval_reset(&h);
	hotspots_interval_reset(&h);
	hotspots_interval_reset(&h);
	hotspots_trim(&h, toy_sym, &toy);
	assert_table_sound(&h);
	n = hotspots_top(&h, HOTSPOTS_TOTAL, NULL, r, 64, NULL);
	assert_int_equal(n, 1); /* folded into the new symbol's start */
	assert_int_equal(r[0].ip, 0x30080);
	assert_int_equal(r[0].weight, 8);
	n = hotspots_merge(r, n, cached_key, &kc, HOTSPOTS_MERGE_PID);
	assert_int_equal(r[0].key, 0x30081);
	hotspots_fini(&h);
}

/*
 * Random samples, intervals, trims (with folds, drops, growth and
 * shrinking) against a plain array of every key: the table stays sound,
 * finds every key it holds, the interval figures are exact, and the
 * since-start figures are exact per symbol (per pid, tid, cpumode and CPU)
 * when nothing was dropped, else short by exactly the overflow.
 */
struct refkey {
	uint64_t ip;
	uint32_t pid;
	int cpu;
	enum records_cpumode mode;
	uint64_t weight, samples, iweight, isamples;
};

#define P_PIDS 3
#define P_IPS  1024
#define P_KEYS (P_PIDS * 2 * 2 * P_IPS)

/* Reference index of a key: pid, CPU, cpumode, ip (16 bytes apart). */
static uint32_t p_index(uint32_t pid, int cpu, enum records_cpumode mode, uint64_t ip)
{
	return (pid - 1) * 4 * P_IPS + (uint32_t)cpu * 2 * P_IPS + (mode == K ? P_IPS : 0) +
	       (uint32_t)((ip & 0xffffff) - (mode == K ? 0 : 0x10000)) / 16;
}

/* The reference index of the first key of k's symbol (toy_sym: user
 * symbols span 16 keys, kernel ones 256). */
static uint32_t p_symbol(uint32_t k)
{
	uint32_t j = k % P_IPS;

	return k - j + (k / P_IPS % 2 ? j & ~255u : j & ~15u);
}

static uint32_t slots_for_test(uint32_t keys)
{
	uint32_t cap = HOTSPOTS_INITIAL_SLOTS;

	while ((uint64_t)keys * 4 > (uint64_t)cap * 3)
		cap <<= 1;
	return cap;
}

static void property_run(uint32_t soft_cap, uint32_t unknown_pid, uint64_t seed, bool want_drops)
{
	enum { ROWS = 8192 };
	struct hotspots h;
	struct toy toy = {.unknown_pid = unknown_pid};
	struct refkey *ref = calloc(P_KEYS, sizeof(*ref));
	struct hotspots_row *rows = calloc(ROWS, sizeof(*rows));
	uint64_t *symw = calloc(P_KEYS, sizeof(*symw)), *tabw = calloc(P_KEYS, sizeof(*tabw));
	bool *held = calloc(P_KEYS, sizeof(*held));
	uint32_t max_cap = 0, shrinks = 0;

	assert_non_null(ref);
	assert_non_null(rows);
	assert_non_null(symw);
	assert_non_null(tabw);
	assert_non_null(held);
	for (uint32_t k = 0; k < P_KEYS; k++) {
		ref[k].pid = 1 + k / (4 * P_IPS);
		ref[k].cpu = (int)(k / (2 * P_IPS) % 2);
		ref[k].mode = k / P_IPS % 2 ? K : U;
		ref[k].ip = (ref[k].mode == K ? 0xffffffff81000000ull : 0x10000) +
		            16 * (uint64_t)(k % P_IPS);
		assert_int_equal(p_index(ref[k].pid, ref[k].cpu, ref[k].mode, ref[k].ip), k);
	}
	assert_int_equal(hotspots_init(&h, 0, 0, soft_cap), 0);
	for (int tick = 0; tick < 60; tick++) {
		/* Mostly a few hundred samples on a narrow set of ips; now and
		 * then a burst all over. */
		const bool burst = tick % 15 == 7;
		const int nsamples = burst ? 6000 : 300;
		const uint32_t span = burst ? P_IPS : 48 + (uint32_t)(tick % 5) * 8;

		for (int i = 0; i < nsamples; i++) {
			uint64_t x = xorshift(&seed);
			uint32_t group = (uint32_t)(x % (P_PIDS * 4));
			uint32_t k = group * P_IPS + (uint32_t)((x >> 8) % span);
			uint64_t period = 1 + (x >> 32) % 50;
			struct refkey *e = &ref[k];
			bool had = hotspots_find(&h, e->pid, 0, e->ip, e->mode, e->cpu) != NULL;
			uint32_t used = h.used;

			assert_int_equal(
			    hotspots_add(&h, e->pid, e->pid, e->ip, e->mode, e->cpu, period), 0);
			/* The add found the key where find did, or made it. */
			assert_int_equal(h.used, used + (had ? 0 : 1));
			e->weight += period;
			e->samples++;
			e->iweight += period;
			e->isamples++;
		}
		if (h.cap > max_cap)
			max_cap = h.cap;
		/* The interval: every key of it, exact, per CPU. */
		for (int cpu = 0; cpu < 2; cpu++) {
			struct hotspots_filter f = HOTSPOTS_FILTER_ALL;
			struct hotspots_totals t;
			uint64_t w = 0;
			int n;

			f.cpu = cpu;
			n = hotspots_top(&h, HOTSPOTS_INTERVAL, &f, rows, ROWS, &t);
			assert_true(n >= 0 && (size_t)n == t.rows);
			for (int i = 0; i < n; i++) {
				uint32_t k = p_index(rows[i].pid, cpu, rows[i].cpumode, rows[i].ip);

				assert_true(k < P_KEYS);
				assert_int_equal(ref[k].iweight, rows[i].weight);
				assert_int_equal(ref[k].isamples, rows[i].samples);
				w += rows[i].weight;
			}
			for (uint32_t k = 0; k < P_KEYS; k++)
				if (ref[k].cpu == cpu)
					w -= ref[k].iweight;
			assert_int_equal(w, 0);
		}
		uint32_t cap_before = h.cap;

		hotspots_trim(&h, toy_sym, &toy);
		assert_table_sound(&h);
		if (h.cap < cap_before)
			shrinks++;
		/* Since the start, per (pid, CPU, cpumode, symbol); and every
		 * key held is found, every other one is not. */
		memset(symw, 0, P_KEYS * sizeof(*symw));
		memset(tabw, 0, P_KEYS * sizeof(*tabw));
		memset(held, 0, P_KEYS * sizeof(*held));
		uint64_t tab_total = 0, ref_total = 0;

		for (uint32_t k = 0; k < P_KEYS; k++) {
			symw[p_symbol(k)] += ref[k].weight;
			ref_total += ref[k].weight;
		}
		for (uint32_t i = 0; i < h.cap; i++) {
			const struct hotspots_slot *s = &h.slots[i];
			uint32_t k;

			if (!s->used)
				continue;
			k = p_index(s->pid, s->cpu, (enum records_cpumode)s->cpumode, s->ip);
			assert_true(k < P_KEYS);
			held[k] = true;
			tabw[p_symbol(k)] += s->weight;
			tab_total += s->weight;
		}
		for (uint32_t k = 0; k < P_KEYS; k++)
			assert_int_equal(hotspots_find(&h, ref[k].pid, 0, ref[k].ip, ref[k].mode,
			                               ref[k].cpu) != NULL,
			                 held[k]);
		assert_int_equal(h.total.weight, ref_total);
		assert_int_equal(tab_total + h.total.overflow_weight, ref_total);
		if (!h.dropped) {
			assert_int_equal(h.total.overflow_weight, 0);
			for (uint32_t k = 0; k < P_KEYS; k++)
				assert_int_equal(tabw[k], symw[k]);
		}
		/* At most the cap plus this interval's keys; at the cap
		 * when all idle keys could fold, but in a burst. */
		uint32_t busy = 0;

		for (uint32_t k = 0; k < P_KEYS; k++)
			busy += ref[k].isamples > 0;
		assert_true(h.used <= soft_cap + busy);
		if (tick >= 4 && !burst && !unknown_pid)
			assert_true(h.used <= soft_cap);
		hotspots_interval_reset(&h);
		for (uint32_t k = 0; k < P_KEYS; k++)
			ref[k].iweight = ref[k].isamples = 0;
	}
	assert_true(max_cap > slots_for_test(soft_cap) * 2);
	assert_true(shrinks > 0);
	assert_true(h.cap <= slots_for_test(soft_cap) * 2);
	assert_true(h.folded > 0);
	if (want_drops)
		assert_true(h.dropped > 0);
	else
		assert_int_equal(h.dropped, 0);
	hotspots_fini(&h);
	free(ref);
	free(rows);
	free(symw);
	free(tabw);
	free(held);
}

static void test_trim_property(void **state)
{
	/* Every key has a symbol and the cap holds them all folded: exact. */
	property_run(1200, 0, 0x1234567, false);
	/* pid 2's user keys have none: some must be dropped. */
	property_run(700, 2, 0x7654321, true);
	property_run(700, 2, 0xabcdef, true);
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
	    cmocka_unit_test(test_top_all),
	    cmocka_unit_test(test_trim_folds_idle),
	    cmocka_unit_test(test_trim_spares_busy_keys),
	    cmocka_unit_test(test_trim_overflow),
	    cmocka_unit_test(test_trim_drops_coldest),
	    cmocka_unit_test(test_symbol_cache),
	    cmocka_unit_test(test_exec_then_trim),
	    cmocka_unit_test(test_take_pids),
	    cmocka_unit_test(test_trim_drop_hook),
	    cmocka_unit_test(test_user_pids),
	    cmocka_unit_test(test_trim_property),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
