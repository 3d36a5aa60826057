/* The profile's hotspot grouping over a fixture's kernel symbols: symbol
 * starts from the frame cache equal those resolved afresh, and rows grouped
 * with warm caches equal rows grouped by a profile that knows nothing yet;
 * children mode's rows: every function of the chains; the tables of names
 * stay within their bounds under a stream of new names, and name frames
 * right after starting over. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "procfs.h"
#include "profile_fixture.h"
#include "profile_priv.h"
#include "testutil.h"

#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ROWS 64

static void fixture_open(struct fixture *f, const char *keys)
{
	fixture_open_rows(f, keys, ROWS);
}

/* Kernel samples of a few processes on two CPUs: do_thing (at +0 and +5),
 * schedule (+0x10), ext4_sync_fs (+4) and an address below every symbol. */
static void add_samples(struct hotspots *h)
{
	static const uint64_t ips[] = {0xffffffff81001010ull, 0xffffffff81001015ull,
	                               0xffffffff81002010ull, 0xffffffffc0001404ull,
	                               0xffffffff80000000ull};

	for (uint32_t pid = 10; pid < 16; pid++)
		for (size_t i = 0; i < sizeof(ips) / sizeof(ips[0]); i++)
			assert_int_equal(hotspots_add(h, pid, pid, ips[i], RECORDS_CPUMODE_KERNEL,
			                              (int)(pid + i) % 2, 100 * (i + 1) + pid),
			                 0);
}

/* The start a fresh resolve gives: ip less its offset. */
static enum hotspots_sym resolved_start(struct profile *p, const struct hotspots_row *row,
                                        uint64_t *start)
{
	struct symbols_result r;

	assert_int_equal(symbols_resolve(p->sym, (pid_t)row->pid, row->ip, row->kernel, &r), 0);
	if (r.status != SYMBOLS_FOUND)
		return HOTSPOTS_SYM_NONE;
	*start = row->ip - r.offset;
	return HOTSPOTS_SYM_FOUND;
}

static void test_frame_symbol(void **state)
{
	struct fixture *f = malloc(sizeof(*f));
	struct hotspots_totals tot;
	int n;

	(void)state;
	assert_non_null(f);
	fixture_open(f, "dso,sym");
	add_samples(&f->p.hot);
	n = hotspots_top(&f->p.hot, HOTSPOTS_TOTAL, NULL, f->p.rows, ROWS, &tot);
	assert_int_equal(n, 30);               /* 6 processes, 5 addresses each */
	for (int pass = 0; pass < 2; pass++) { /* cold, then from the cache */
		for (int i = 0; i < n; i++) {
			uint64_t want = 0, got = 0;
			enum hotspots_sym st = resolved_start(&f->p, &f->p.rows[i], &want);

			assert_int_equal(profile_frame_symbol(&f->p, &f->p.rows[i], &got), st);
			if (st == HOTSPOTS_SYM_FOUND)
				assert_true(got == want);
			else
				assert_true(f->p.rows[i].ip == 0xffffffff80000000ull);
		}
	}
	/* every process's do_thing+5 starts where do_thing does */
	struct hotspots_row row = {.pid = 99, .ip = 0xffffffff81001015ull, .kernel = true};
	uint64_t start = 0;
	assert_int_equal(profile_frame_symbol(&f->p, &row, &start), HOTSPOTS_SYM_FOUND);
	assert_true(start == 0xffffffff81001010ull);
	fixture_close(f);
	free(f);
}

/* The rows a profile groups on its tick n (its caches as warm as n ticks
 * make them) into out. */
static int grouped(struct fixture *f, int ticks, struct hotspots_row *out)
{
	struct hotspots_totals tot;
	int n = 0;

	for (int t = 0; t < ticks; t++) {
		f->p.ticks++;
		n = hotspots_top(&f->p.hot, HOTSPOTS_TOTAL, NULL, f->p.rows, ROWS, &tot);
		n = profile_group_rows(&f->p, f->p.rows, n, false);
	}
	memcpy(out, f->p.rows, (size_t)n * sizeof(*out));
	return n;
}

static void expect_same_rows(const struct hotspots_row *a, int na, const struct hotspots_row *b,
                             int nb)
{
	assert_int_equal(na, nb);
	for (int i = 0; i < na; i++) {
		assert_true(a[i].ip == b[i].ip);
		assert_int_equal(a[i].pid, b[i].pid);
		assert_true(a[i].weight == b[i].weight);
		assert_true(a[i].samples == b[i].samples);
		assert_true(a[i].share == b[i].share);
		assert_int_equal(a[i].merged, b[i].merged);
		assert_int_equal(a[i].pids, b[i].pids);
		assert_int_equal(a[i].mixed, b[i].mixed);
		assert_int_equal(a[i].cpu, b[i].cpu);
	}
}

static void test_grouping_cached(void **state)
{
	static const char *keys[] = {"dso,sym", "sym", "pid,sym", "comm,dso", "sym,cpu"};
	struct fixture *cold = malloc(sizeof(*cold)), *warm = malloc(sizeof(*warm));
	struct hotspots_row *a = calloc(ROWS, sizeof(*a)), *b = calloc(ROWS, sizeof(*b));

	(void)state;
	assert_non_null(cold);
	assert_non_null(warm);
	assert_non_null(a);
	assert_non_null(b);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		int na, nb;

		fixture_open(cold, keys[k]);
		fixture_open(warm, keys[k]);
		add_samples(&cold->p.hot);
		add_samples(&warm->p.hot);
		na = grouped(cold, 1, a);
		nb = grouped(warm, 3, b);
		expect_same_rows(a, na, b, nb);
		if (!strcmp(keys[k], "dso,sym")) {
			/* do_thing, schedule, ext4_sync_fs, and the unknown address */
			assert_int_equal(na, 4);
			assert_true(a[0].ip == 0xffffffff80000000ull); /* the heaviest */
			assert_int_equal(a[0].pids, 6);
		}
		fixture_close(cold);
		fixture_close(warm);
	}
	free(cold);
	free(warm);
	free(a);
	free(b);
}

/* Children mode over kernel chains standing for a program's: main (xfs_foo)
 * calls caller_a (do_thing), which sorts (weak_fn) with a comparison (schedule),
 * and caller_b (ext4_fill_super), which calls a leaf (ext4_sync_fs). */
enum { F_MAIN, F_A, F_QSORT, F_CMP, F_B, F_LEAF, NR_F };
static const uint64_t chain_ip[NR_F] = {0xffffffffc0003010ull, 0xffffffff81001020ull,
                                        0xffffffff81001110ull, 0xffffffff81002010ull,
                                        0xffffffffc0001010ull, 0xffffffffc0001404ull};
static const char *const chain_name[NR_F] = {"xfs_foo",  "do_thing",        "weak_fn",
                                             "schedule", "ext4_fill_super", "ext4_sync_fs"};

/* n samples of pid with the chain of functions fn[0..nr), leaf first. */
static void sample(struct fixture *f, uint32_t pid, int n, int nr, const int *fn)
{
	uint64_t ips[16] = {PERF_CONTEXT_KERNEL};

	for (int i = 0; i < nr; i++)
		ips[1 + i] = chain_ip[fn[i]];
	for (int k = 0; k < n; k++) {
		stacks_add(&f->p.stacks, pid, ips, (uint64_t)nr + 1);
		assert_int_equal(
		    hotspots_add(&f->p.hot, pid, pid, ips[1], RECORDS_CPUMODE_KERNEL, 0, 1000), 0);
	}
}

static const struct model_hotspot *row_named(const struct model *m, const char *sym, pid_t pid)
{
	for (int i = 0; i < m->nr_hot; i++)
		if (!strcmp(m->hot[i].symbol, sym) && (pid < 0 || m->hot[i].pid == pid))
			return &m->hot[i];
	fail_msg("no row for %s", sym);
	return NULL;
}

static void expect_row(const struct model *m, int fn, pid_t pid, double children, double self)
{
	const struct model_hotspot *h = row_named(m, chain_name[fn], pid);

	if (fabs(h->children - children) > 0.01 || fabs(h->self - self) > 0.01)
		fail_msg("%s: children %.2f%%, self %.2f%%, want %.2f%%, %.2f%%", chain_name[fn],
		         h->children, h->self, children, self);
	assert_true((h->samples > 0) == (self > 0));
}

/* The span's rows as profile_tick() ranks them in children mode. */
static int children_rows(struct fixture *f, struct model *m)
{
	struct hotspots_totals tot;
	int n;

	f->p.ticks++;
	n = hotspots_top(&f->p.hot, HOTSPOTS_TOTAL, NULL, f->p.rows, ROWS, &tot);
	n = profile_group_rows(&f->p, f->p.rows, n, false);
	m->nr_hot = 0;
	assert_true(profile_call_trees(&f->p, f->p.rows, n, m, true));
	return n;
}

static void test_children_rows(void **state)
{
	struct fixture *f = malloc(sizeof(*f));
	struct model m;

	(void)state;
	assert_non_null(f);
	fixture_open(f, "dso,sym");
	f->cfg.callchain = true;
	assert_int_equal(stacks_init(&f->p.stacks, 0), 0);
	assert_int_equal(model_init(&m, 0), 0);
	sample(f, 10, 60, 4, (const int[]){F_CMP, F_QSORT, F_A, F_MAIN});
	sample(f, 10, 20, 3, (const int[]){F_QSORT, F_A, F_MAIN});
	sample(f, 10, 10, 5, (const int[]){F_CMP, F_QSORT, F_QSORT, F_A, F_MAIN}); /* recursion */
	sample(f, 10, 40, 3, (const int[]){F_LEAF, F_B, F_MAIN});
	/* three functions were sampled; six are on the chains */
	assert_int_equal(children_rows(f, &m), 3);
	assert_int_equal(m.hot_total, 6);
	assert_int_equal(m.nr_hot, 6);
	assert_int_equal(m.sampling.chain_samples, 130);
	expect_row(&m, F_MAIN, -1, 100.0, 0.0);
	expect_row(&m, F_A, -1, 100.0 * 90 / 130, 0.0);
	expect_row(&m, F_QSORT, -1, 100.0 * 90 / 130, 100.0 * 20 / 130);
	expect_row(&m, F_CMP, -1, 100.0 * 70 / 130, 100.0 * 70 / 130);
	expect_row(&m, F_B, -1, 100.0 * 40 / 130, 0.0);
	expect_row(&m, F_LEAF, -1, 100.0 * 40 / 130, 100.0 * 40 / 130);
	/* heaviest children first: main at the top */
	assert_string_equal(m.hot[0].symbol, "xfs_foo");
	assert_string_equal(m.hot[0].module, "[xfs]");
	assert_true(m.hot[0].kernel);
	assert_int_equal(m.hot[0].pid, 10);
	assert_true(m.hot[0].share == 0.0);
	for (int i = 1; i < m.nr_hot; i++)
		assert_true(m.hot[i - 1].children >= m.hot[i].children);
	/* a row of no samples of its own has its call paths too */
	bool main_callees = false;
	for (int i = 0; i < m.nr_paths; i++)
		main_callees |= m.paths[i].hot == 0 && m.paths[i].callee && m.paths[i].nr == 4;
	assert_true(main_callees);
	/* the cut keeps the heaviest children; rows_total counts them all */
	f->cfg.top = 2;
	children_rows(f, &m);
	assert_int_equal(m.nr_hot, 2);
	assert_int_equal(m.hot_total, 6);
	assert_string_equal(m.hot[0].symbol, "xfs_foo");
	f->cfg.top = ROWS;
	/* per process: main of each, with its own share */
	sample(f, 11, 30, 3, (const int[]){F_LEAF, F_B, F_MAIN});
	char err[160];
	snprintf(f->cfg.hot_keys, sizeof(f->cfg.hot_keys), "pid,sym");
	assert_int_equal(hotkeys_parse("pid,sym", &f->p.keys, err, sizeof(err)), 0);
	children_rows(f, &m);
	assert_int_equal(m.sampling.chain_samples, 160);
	expect_row(&m, F_MAIN, 10, 100.0 * 130 / 160, 0.0);
	expect_row(&m, F_MAIN, 11, 100.0 * 30 / 160, 0.0);
	expect_row(&m, F_B, 11, 100.0 * 30 / 160, 0.0);
	expect_row(&m, F_LEAF, 11, 100.0 * 30 / 160, 100.0 * 30 / 160);
	assert_int_equal(m.hot_total, 6 + 3);
	model_fini(&m);
	stacks_fini(&f->p.stacks);
	fixture_close(f);
	free(f);
}

#define JIT_BASE  0x7f1000000000ull
#define NAMES     48 /* new functions a tick */
#define STABLE    999
#define TREE_MAX  ((size_t)24 << 20) /* profile_hot.c's tables, with room for the arrays */
#define NAME_TAIL 480

/* Process pid of the fake root: anonymous code at JIT_BASE, and a perf map
 * naming n functions of 16 bytes there "fn_PID_I_xxx...". */
static void fake_jit(const char *root, uint32_t pid, int n)
{
	char path[PATH_MAX], tail[NAME_TAIL + 1];
	FILE *f;

	memset(tail, 'x', NAME_TAIL);
	tail[NAME_TAIL] = '\0';
	snprintf(path, sizeof(path), "%s/proc/%u", root, pid);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/%u/maps", root, pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "7f1000000000-7f1000100000 r-xp 00000000 00:00 0 \n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/tmp/perf-%u.map", root, pid);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%llx 10 fn_%u_%d_%s\n", JIT_BASE + 16ull * (unsigned)i, pid, i, tail);
	fclose(f);
}

static void expect_name(struct profile *p, uint32_t pid, int i)
{
	char name[SYMBOLS_NAME_MAX], module[SYMBOLS_MODULE_MAX], want[SYMBOLS_NAME_MAX];

	assert_int_equal(profile_frame_name(p, (pid_t)pid, JIT_BASE + 16ull * (unsigned)i + 4,
	                                    false, name, module),
	                 0);
	snprintf(want, sizeof(want), "fn_%u_%d_", pid, i);
	assert_true(!strncmp(name, want, strlen(want)));
	assert_int_equal(strlen(name), strlen(want) + NAME_TAIL);
	assert_string_equal(module, "[jit]");
}

/* A new process with NAMES new 500-byte names every tick, and one that
 * stays: the tables start over within their bounds, and the names they
 * give after it are right. */
static void test_names_bounded(void **state)
{
	struct fixture *f = malloc(sizeof(*f));
	char root[] = "/tmp/test_profile_hot.XXXXXX", path[PATH_MAX + 32];
	struct profile_memory pm;
	struct hotspots_totals tot;
	const int ticks = 800;
	uint64_t folds = 0;

	(void)state;
	assert_non_null(f);
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/tmp", root);
	assert_int_equal(mkdir(path, 0755), 0);
	fixture_open(f, "dso,sym");
	assert_int_equal(symbols_set_root(f->p.sym, root), 0);
	fake_jit(root, STABLE, 4);
	for (int t = 0; t < ticks; t++) {
		const uint32_t pid = 1000 + (uint32_t)t;
		int n;

		fake_jit(root, pid, NAMES);
		f->p.ticks++;
		for (int i = 0; i < NAMES; i++)
			assert_int_equal(hotspots_add(&f->p.hot, pid, pid,
			                              JIT_BASE + 16ull * (unsigned)i,
			                              RECORDS_CPUMODE_USER, 0, 1),
			                 0);
		assert_int_equal(hotspots_add(&f->p.hot, STABLE, STABLE, JIT_BASE + 16 * (t % 4),
		                              RECORDS_CPUMODE_USER, 0, 1),
		                 0);
		n = hotspots_top(&f->p.hot, HOTSPOTS_INTERVAL, NULL, f->p.rows, ROWS, &tot);
		assert_true(n > 0);
		n = profile_group_rows(&f->p, f->p.rows, n, false);
		/* every function its own row: the names tell them apart */
		assert_int_equal(n, NAMES + 1);
		hotspots_interval_reset(&f->p.hot);
		profile_hot_memory(&f->p, &pm);
		assert_true(pm.bytes <= TREE_MAX);
		if (pm.folds != folds) { /* started over: what comes next is named right */
			folds = pm.folds;
			expect_name(&f->p, pid, 0);
			expect_name(&f->p, STABLE, t % 4);
		}
	}
	assert_true(folds >= 2);
	for (int i = 0; i < NAMES; i++)
		expect_name(&f->p, 1000 + ticks - 1, i);
	for (int i = 0; i < 4; i++)
		expect_name(&f->p, STABLE, i);
	fixture_close(f);
	free(f);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_frame_symbol),
	    cmocka_unit_test(test_grouping_cached),
	    cmocka_unit_test(test_children_rows),
	    cmocka_unit_test(test_names_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
