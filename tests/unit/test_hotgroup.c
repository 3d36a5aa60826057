/* Hotspot grouping: perf's --sort keys parsed, rows merged by any keys with
 * exact shares, and the interval stacks walk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "hotkeys.h"
#include "hotspots.h"
#include "stacks.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_keys_parse(void **state)
{
	struct hotkeys k;
	char err[160], buf[HOTKEYS_TEXT_MAX];

	assert_int_equal(hotkeys_parse("dso,sym", &k, err, sizeof(err)), 0);
	assert_int_equal(k.nr, 2);
	assert_int_equal(k.key[0], HOTKEYS_DSO);
	assert_int_equal(k.key[1], HOTKEYS_SYM);
	assert_int_equal(hotkeys_parse("symbol,dso,comm,pid,tid,cpu", &k, err, sizeof(err)), 0);
	hotkeys_format(&k, buf, sizeof(buf));
	assert_string_equal(buf, "sym,dso,comm,pid,tid,cpu");
	assert_true(hotkeys_has(&k, HOTKEYS_CPU));
	/* refused, k unchanged */
	assert_int_equal(hotkeys_parse("sym,sym", &k, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "twice"));
	assert_int_equal(hotkeys_parse("sym,", &k, err, sizeof(err)), -EINVAL);
	assert_int_equal(hotkeys_parse("", &k, err, sizeof(err)), -EINVAL);
	assert_int_equal(hotkeys_parse("overhead", &k, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'overhead' is not a grouping key"));
	assert_int_equal(k.nr, 6);
	/* the viewer's cycle comes back to where it started */
	const char *c = HOTKEYS_DEFAULT;
	int steps = 0;
	do {
		c = hotkeys_next(c);
		assert_int_equal(hotkeys_parse(c, &k, err, sizeof(err)), 0);
		steps++;
	} while (strcmp(c, HOTKEYS_DEFAULT) && steps < 20);
	assert_true(steps > 3 && steps < 20);
	assert_string_equal(hotkeys_next("nonsense"), HOTKEYS_DEFAULT);
}

/* group by the symbol only (given as the row's ip >> 8), or with the pid */
static bool with_pid;
static void by_sym(struct hotspots_row *row, uint64_t *g, void *arg)
{
	g[0] = row->ip >> 8;
	if (with_pid)
		g[1] = row->pid;
	row->attr = row->pid % 2; /* e.g. a command name shared by odd pids */
}

/* Many short-lived processes running one kernel function, and a few
 * others: rows per (pid, ip) in a real table, merged by symbol. */
static void test_merge_over_pids(void **state)
{
	struct hotspots h;
	struct hotspots_row rows[256];
	struct hotspots_totals tot;
	uint64_t w_sym1 = 0, all = 0;
	int n;

	assert_int_equal(hotspots_init(&h, 0, 0, 0), 0);
	for (uint32_t pid = 100; pid < 140; pid++) {
		/* two addresses of symbol 0x1000 (ip >> 8 == 0x10), on two CPUs */
		hotspots_add(&h, pid, pid, 0xffffffff81001010ull, RECORDS_CPUMODE_KERNEL, 0, 1000 + pid);
		hotspots_add(&h, pid, pid, 0xffffffff81001020ull, RECORDS_CPUMODE_KERNEL, 1, 7);
		w_sym1 += 1000 + pid + 7;
		/* and something else, heavier for a few */
		hotspots_add(&h, pid, pid, 0x401000 + pid * 0x100, RECORDS_CPUMODE_USER, 0,
		             pid < 103 ? 100000 : 10);
		all += 1000 + pid + 7 + (pid < 103 ? 100000 : 10);
	}
	n = hotspots_top(&h, HOTSPOTS_INTERVAL, NULL, rows, 256, &tot);
	assert_int_equal(n, 120); /* per (pid, ip), folded over the CPUs */
	assert_int_equal(tot.weight, all);
	with_pid = false;
	n = hotspots_group(rows, n, by_sym, NULL);
	/* one row for the kernel function, one per user address */
	assert_int_equal(n, 41);
	double sum = 0;
	int k = -1;
	for (int i = 0; i < n; i++) {
		sum += rows[i].share;
		if (i && rows[i].weight > rows[i - 1].weight)
			fail_msg("not heaviest first at %d", i);
		if ((rows[i].ip >> 8) == 0xffffffff810010ull)
			k = i;
	}
	assert_true(fabs(sum - 100.0) < 1e-9);
	assert_true(k >= 0);
	assert_int_equal(rows[k].weight, w_sym1);
	assert_int_equal(rows[k].samples, 80);
	assert_int_equal(rows[k].pids, 40);
	assert_int_equal(rows[k].merged, 80);
	assert_true(fabs(rows[k].share - 100.0 * (double)w_sym1 / (double)all) < 1e-9);
	assert_true(rows[k].mixed & HOTSPOTS_MIXED_PID);
	assert_true(rows[k].mixed & HOTSPOTS_MIXED_ATTR);
	assert_true(rows[k].kernel);
	assert_false(rows[k].mixed & HOTSPOTS_MIXED_KERNEL);
	assert_int_equal(rows[k].pid, 139); /* the heaviest names it */
	assert_int_equal(rows[k].cpu, -1);
	/* grouped again with the pid: back to one row per process, same sums */
	n = hotspots_top(&h, HOTSPOTS_TOTAL, NULL, rows, 256, &tot);
	with_pid = true;
	n = hotspots_group(rows, n, by_sym, NULL);
	assert_int_equal(n, 80);
	sum = 0;
	for (int i = 0; i < n; i++) {
		sum += rows[i].share;
		assert_int_equal(rows[i].pids, 1);
		assert_false(rows[i].mixed & HOTSPOTS_MIXED_PID);
	}
	assert_true(fabs(sum - 100.0) < 1e-9);
	/* per CPU: the two addresses of each kernel row stay apart */
	struct hotspots_filter f = HOTSPOTS_FILTER_ALL;
	f.by_cpu = true;
	n = hotspots_top(&h, HOTSPOTS_TOTAL, &f, rows, 256, &tot);
	assert_int_equal(n, 120);
	for (int i = 0; i < n; i++)
		assert_true(rows[i].cpu == 0 || rows[i].cpu == 1);
	hotspots_fini(&h);
}

/* A group of user and kernel rows says it is mixed, and is not kernel. */
static void test_merge_mixed(void **state)
{
	struct hotspots_row rows[3] = {
	    {.pid = 1, .ip = 0x100, .kernel = true, .weight = 5, .samples = 1, .share = 50, .cpu = 2},
	    {.pid = 1, .ip = 0x180, .kernel = false, .weight = 3, .samples = 1, .share = 30, .cpu = 2},
	    {.pid = 2, .ip = 0x900, .kernel = false, .weight = 2, .samples = 1, .share = 20, .cpu = 3},
	};
	int n;

	with_pid = false;
	n = hotspots_group(rows, 3, by_sym, NULL);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].weight, 8);
	assert_true(fabs(rows[0].share - 80) < 1e-12);
	assert_false(rows[0].kernel);
	assert_true(rows[0].mixed & HOTSPOTS_MIXED_KERNEL);
	assert_false(rows[0].mixed & HOTSPOTS_MIXED_PID);
	assert_int_equal(rows[0].cpu, 2);
	assert_int_equal(rows[0].pids, 1);
	assert_int_equal(rows[1].cpu, 3);
}

/* ---- the grouping against a plain reference: every row sorted by its
 * values, then merged in that order ---- */

static int ref_cmp_weight(const struct hotspots_row *a, const struct hotspots_row *b)
{
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->ip != b->ip)
		return a->ip < b->ip ? -1 : 1;
	if (a->cpumode != b->cpumode)
		return a->cpumode < b->cpumode ? -1 : 1;
	return a->cpu == b->cpu ? 0 : (a->cpu < b->cpu ? -1 : 1);
}

static int ref_by_weight(const void *pa, const void *pb)
{
	return ref_cmp_weight(pa, pb);
}

static int ref_by_values(const void *pa, const void *pb)
{
	const struct hotspots_row *a = pa, *b = pb;
	int c = memcmp(a->group, b->group, sizeof(a->group));

	if (c)
		return c;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return ref_cmp_weight(a, b);
}

static int ref_group(struct hotspots_row *rows, int n, hotspots_group_fn fn)
{
	uint64_t best = 0;
	uint32_t prev_pid = 0;
	int k = 0;

	for (int i = 0; i < n; i++) {
		memset(rows[i].group, 0, sizeof(rows[i].group));
		rows[i].attr = 0;
		fn(&rows[i], rows[i].group, NULL);
		rows[i].pids = rows[i].pids ? rows[i].pids : 1;
		rows[i].merged = rows[i].merged ? rows[i].merged : 1;
	}
	qsort(rows, (size_t)n, sizeof(*rows), ref_by_values);
	for (int i = 0; i < n; i++) {
		struct hotspots_row *g = k ? &rows[k - 1] : NULL;
		const struct hotspots_row r = rows[i];

		if (!g || memcmp(g->group, r.group, sizeof(r.group))) {
			rows[k++] = r;
			best = r.weight;
			prev_pid = r.pid;
			continue;
		}
		g->pids += r.pid != prev_pid ? r.pids : r.pids - 1;
		prev_pid = r.pid;
		g->mixed |= r.mixed;
		g->mixed |= r.pid != g->pid ? HOTSPOTS_MIXED_PID : 0;
		g->mixed |= r.tid != g->tid || r.pid != g->pid ? HOTSPOTS_MIXED_TID : 0;
		g->mixed |= r.attr != g->attr ? HOTSPOTS_MIXED_ATTR : 0;
		g->mixed |= r.kernel != g->kernel ? HOTSPOTS_MIXED_KERNEL : 0;
		if (g->cpu != r.cpu)
			g->cpu = -1;
		if (r.weight > best) {
			best = r.weight;
			g->ip = r.ip;
			g->cpumode = r.cpumode;
			g->slot = r.slot;
			g->pid = r.pid;
			g->tid = r.tid;
			g->attr = r.attr;
		}
		g->kernel = g->kernel && r.kernel;
		g->weight += r.weight;
		g->samples += r.samples;
		g->share += r.share;
		g->merged += r.merged;
	}
	qsort(rows, (size_t)k, sizeof(*rows), ref_by_weight);
	return k;
}

static unsigned nr_groups;
static void by_few(struct hotspots_row *row, uint64_t *g, void *arg)
{
	(void)arg;
	g[0] = (row->ip >> 4) % nr_groups;
	g[3] = row->cpu & 1;
	row->attr = row->pid % 3;
}

/* Stage two's keys: fewer groups, over stage one's rows. */
static void by_group0(struct hotspots_row *row, uint64_t *g, void *arg)
{
	(void)arg;
	g[1] = (row->ip >> 4) % nr_groups % 5;
	row->attr = row->pid % 2;
}

static void expect_rows(const struct hotspots_row *a, const struct hotspots_row *b, int n)
{
	for (int i = 0; i < n; i++) {
		assert_true(a[i].ip == b[i].ip);
		assert_int_equal(a[i].pid, b[i].pid);
		assert_int_equal(a[i].tid, b[i].tid);
		assert_int_equal(a[i].cpu, b[i].cpu);
		assert_true(a[i].weight == b[i].weight);
		assert_true(a[i].samples == b[i].samples);
		assert_memory_equal(&a[i].share, &b[i].share, sizeof(double)); /* same sums */
		assert_int_equal(a[i].merged, b[i].merged);
		assert_int_equal(a[i].pids, b[i].pids);
		assert_int_equal(a[i].mixed, b[i].mixed);
		assert_int_equal(a[i].kernel, b[i].kernel);
		assert_true(a[i].attr == b[i].attr);
		assert_int_equal(a[i].slot, b[i].slot);
	}
}

/* Rows in a random order, with ties, grouped into one group, a few, or
 * each its own: the same rows, shares summed in the same order, as the
 * reference gives; and twice (any order, then sorted) like one pass by
 * the second keys. */
static void test_group_matches_reference(void **state)
{
	enum { N = 300 };
	struct hotspots_row *in = calloc(N, sizeof(*in)), *a = calloc(N, sizeof(*a)),
	                    *b = calloc(N, sizeof(*b));
	static const unsigned groups[] = {1, 2, 7, 40, 1000};
	uint64_t seed = 12345;

	(void)state;
	assert_non_null(in);
	assert_non_null(a);
	assert_non_null(b);
	for (size_t gi = 0; gi < sizeof(groups) / sizeof(groups[0]); gi++) {
		for (int round = 0; round < 4; round++) {
			const int n = round == 0 ? 1 : round == 1 ? 17 : N;
			int na, nb;

			nr_groups = groups[gi];
			for (int i = 0; i < n; i++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				in[i] = (struct hotspots_row){
				    .pid = (uint32_t)(seed >> 60),
				    .tid = (uint32_t)(seed >> 58) & 1,
				    .ip = 0x1000 + (uint64_t)i * 0x10,
				    .kernel = (seed >> 20) & 1,
				    .cpu = (int)(seed >> 40) % 3 - 1,
				    .weight = 1 + (seed >> 33) % 8, /* many ties */
				    .samples = 1 + (seed >> 50) % 4,
				    .share = (double)((seed >> 30) % 1000) / 7.0,
				    .slot = (uint32_t)i,
				};
			}
			memcpy(a, in, n * sizeof(*a));
			memcpy(b, in, n * sizeof(*b));
			na = hotspots_group(a, n, by_few, NULL);
			nb = ref_group(b, n, by_few);
			assert_int_equal(na, nb);
			expect_rows(a, b, na);
			/* two stages */
			memcpy(a, in, n * sizeof(*a));
			memcpy(b, in, n * sizeof(*b));
			na = hotspots_group_any_order(a, n, by_few, NULL);
			na = hotspots_group(a, na, by_group0, NULL);
			nb = ref_group(b, n, by_few);
			nb = ref_group(b, nb, by_group0);
			assert_int_equal(na, nb);
			expect_rows(a, b, na);
		}
	}
	free(in);
	free(a);
	free(b);
}

static uint64_t walked;
static void walk(uint32_t pid, const uint64_t *ips, uint32_t nr, uint64_t samples,
                 uint64_t *user, void *arg)
{
	walked += samples;
	if (!*user)
		*user = 42; /* kept with the key */
	else
		assert_int_equal(*user, 42);
}

static void test_stacks_interval(void **state)
{
	struct stacks t;
	uint64_t a[3] = {PERF_CONTEXT_USER, 0x401000, 0x402000};
	uint64_t b[3] = {PERF_CONTEXT_USER, 0x401000, 0x403000};

	assert_int_equal(stacks_init(&t, 0), 0);
	for (int i = 0; i < 5; i++)
		stacks_add(&t, 1, a, 3);
	stacks_add(&t, 1, b, 3);
	walked = 0;
	stacks_walk(&t, true, walk, NULL);
	assert_int_equal(walked, 6);
	stacks_interval_reset(&t);
	walked = 0;
	stacks_walk(&t, true, walk, NULL);
	assert_int_equal(walked, 0);
	/* grow the table past its first size: words and bases move along */
	for (uint64_t i = 0; i < 3000; i++) {
		uint64_t c[2] = {PERF_CONTEXT_USER, 0x500000 + i};
		stacks_add(&t, 2, c, 2);
	}
	stacks_add(&t, 1, a, 3);
	walked = 0;
	stacks_walk(&t, true, walk, NULL);
	assert_int_equal(walked, 3001);
	walked = 0;
	stacks_walk(&t, false, walk, NULL);
	assert_int_equal(walked, 3007);
	stacks_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keys_parse),
	    cmocka_unit_test(test_merge_over_pids),
	    cmocka_unit_test(test_merge_mixed),
	    cmocka_unit_test(test_group_matches_reference),
	    cmocka_unit_test(test_stacks_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
