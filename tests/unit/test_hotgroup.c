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
	    cmocka_unit_test(test_stacks_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
