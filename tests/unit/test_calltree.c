/* calltree: children and self shares and the top call paths over synthetic chains. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "calltree.h"

#include <stdlib.h>
#include <string.h>

enum { ROOT = 1, MAIN, A, B, LEAF, REC, OTHER, QSORT, CMP, NFUNCS };

static void add(struct calltree *t, uint64_t cls, uint64_t n, int nr, ...)
{
	uint32_t f[32];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < nr; i++)
		f[i] = (uint32_t)va_arg(ap, int);
	va_end(ap);
	assert_int_equal(calltree_add(t, f, (uint32_t)nr, cls, n), 0);
}

/* leaf called 60/40 from a and b; a also works itself; main calls all. */
static void test_children_self_paths(void **state)
{
	struct calltree t = {0};
	const uint32_t func[4] = {LEAF, A, MAIN, ROOT};
	const uint64_t cls[4] = {0, 0, 0, 0};
	struct calltree_result r[4];

	assert_int_equal(calltree_begin(&t, NFUNCS, func, cls, 4), 0);
	add(&t, 0, 60, 4, LEAF, A, MAIN, ROOT);
	add(&t, 0, 40, 4, LEAF, B, MAIN, ROOT);
	add(&t, 0, 20, 3, A, MAIN, ROOT);
	add(&t, 0, 5, 2, OTHER, ROOT);
	add(&t, 0, 3, 0); /* an empty chain counts in the whole only */
	calltree_finish(&t, r);
	assert_int_equal(t.total, 128);
	/* leaf */
	assert_int_equal(r[0].children, 100);
	assert_int_equal(r[0].self, 100);
	assert_int_equal(r[0].nr_callers, 2);
	assert_int_equal(r[0].callers[0].samples, 60);
	assert_int_equal(r[0].callers[0].nr, 4);
	assert_int_equal(r[0].callers[0].func[0], LEAF);
	assert_int_equal(r[0].callers[0].func[1], A);
	assert_int_equal(r[0].callers[1].samples, 40);
	assert_int_equal(r[0].callers[1].func[1], B);
	assert_int_equal(r[0].nr_callees, 1); /* a leaf calls nothing */
	assert_int_equal(r[0].callees[0].nr, 1);
	assert_int_equal(r[0].callees[0].samples, 100);
	/* a: children 60 + 20, self 20; its callees: itself 20, leaf 60 */
	assert_int_equal(r[1].children, 80);
	assert_int_equal(r[1].self, 20);
	assert_int_equal(r[1].nr_callees, 2);
	assert_int_equal(r[1].callees[0].samples, 60);
	assert_int_equal(r[1].callees[0].nr, 2);
	assert_int_equal(r[1].callees[0].func[1], LEAF);
	assert_int_equal(r[1].callees[1].samples, 20);
	/* main: never a leaf; root: everything with a frame */
	assert_int_equal(r[2].children, 120);
	assert_int_equal(r[2].self, 0);
	assert_int_equal(r[3].children, 125);
	/* children >= self, and the callers of each add up to its children */
	for (int i = 0; i < 4; i++) {
		uint64_t s = 0;
		assert_true(r[i].children >= r[i].self);
		for (int k = 0; k < r[i].nr_callers; k++)
			s += r[i].callers[k].samples;
		assert_true(s <= r[i].children);
		if (r[i].nr_callers < CALLTREE_PATHS)
			assert_int_equal(s, r[i].children);
	}
	calltree_fini(&t);
}

/* Recursion counts once per chain; classes keep processes apart; more
 * paths than kept: the heaviest ones. */
static void test_recursion_classes_top(void **state)
{
	struct calltree t = {0};
	const uint32_t func[3] = {REC, REC, LEAF};
	const uint64_t cls[3] = {7, 8, 7};
	struct calltree_result r[3];

	assert_int_equal(calltree_begin(&t, NFUNCS, func, cls, 3), 0);
	add(&t, 7, 10, 5, REC, REC, REC, MAIN, ROOT);
	add(&t, 8, 4, 3, LEAF, REC, ROOT);
	/* leaf of class 7 from 8 different callers, weights 1..8 */
	for (int i = 1; i <= 8; i++)
		add(&t, 7, (uint64_t)i, 3, LEAF, 100 + i, ROOT); /* ids past the space */
	calltree_finish(&t, r);
	assert_int_equal(r[0].children, 10); /* not 30 */
	assert_int_equal(r[0].self, 10);
	assert_int_equal(r[0].callers[0].func[1], REC); /* from its first place */
	assert_int_equal(r[1].children, 4);             /* class 8: only its own chain */
	assert_int_equal(r[1].self, 0);
	assert_int_equal(r[2].children, 36);
	assert_int_equal(r[2].nr_callers, CALLTREE_PATHS);
	for (int k = 0; k < CALLTREE_PATHS; k++)
		assert_int_equal(r[2].callers[k].samples, 8 - k);
	/* begin again: nothing of the last span is left */
	assert_int_equal(calltree_begin(&t, NFUNCS, func, cls, 1), 0);
	calltree_finish(&t, r);
	assert_int_equal(r[0].children, 0);
	assert_int_equal(r[0].nr_callers, 0);
	calltree_fini(&t);
}

/* Long chains: paths are cut at CALLTREE_DEPTH, and paths equal up to the
 * cut are one. */
static void test_depth_cut(void **state)
{
	struct calltree t = {0};
	const uint32_t func[1] = {LEAF};
	const uint64_t cls[1] = {0};
	struct calltree_result r[1];
	uint32_t f[40];

	assert_int_equal(calltree_begin(&t, 64, func, cls, 1), 0);
	for (int i = 0; i < 40; i++)
		f[i] = i == 0 ? LEAF : 10 + (uint32_t)(i % 20);
	assert_int_equal(calltree_add(&t, f, 40, 0, 3), 0);
	f[39] = 63; /* differs only past the cut */
	assert_int_equal(calltree_add(&t, f, 40, 0, 2), 0);
	calltree_finish(&t, r);
	assert_int_equal(r[0].nr_callers, 1);
	assert_int_equal(r[0].callers[0].nr, CALLTREE_DEPTH);
	assert_int_equal(r[0].callers[0].samples, 5);
	calltree_fini(&t);
}

static void count(struct calltree *t, uint64_t cls, uint32_t pid, bool leaf, uint64_t n, int nr,
                  ...)
{
	uint32_t f[32];
	uint64_t w[32];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < nr; i++) {
		f[i] = (uint32_t)va_arg(ap, int);
		w[i] = 0x1000u * pid + f[i]; /* a frame's address, as it were */
	}
	va_end(ap);
	assert_int_equal(calltree_count(t, f, w, (uint32_t)nr, leaf, cls, pid, n), 0);
}

static const struct calltree_func *counted(const struct calltree *t, uint32_t func, uint64_t cls)
{
	const struct calltree_func *f = calltree_counted(t, func, cls);

	assert_non_null(f);
	return f;
}

/* Every function of the chains, those never sampled themselves too:
 * main -> caller_a -> qsort -> cmp and main -> caller_b -> leaf, qsort
 * also sampled itself and recursing, as perf report --children counts. */
static void test_count_every_function(void **state)
{
	struct calltree t = {0};
	uint64_t sum_self = 0;

	(void)state;
	calltree_count_begin(&t);
	count(&t, 0, 10, true, 60, 4, CMP, QSORT, A, MAIN);
	count(&t, 0, 10, true, 20, 3, QSORT, A, MAIN);
	count(&t, 0, 10, true, 10, 5, CMP, QSORT, QSORT, A, MAIN); /* recursion */
	count(&t, 0, 11, true, 40, 3, LEAF, B, MAIN);
	count(&t, 0, 11, false, 5, 1, MAIN); /* its leaf left out (-K) */
	assert_int_equal(t.fn_total, 135);
	assert_int_equal(t.nr_fn, 6);
	assert_int_equal(counted(&t, MAIN, 0)->children, 135); /* on every chain */
	assert_int_equal(counted(&t, MAIN, 0)->self, 0);
	assert_int_equal(counted(&t, A, 0)->children, 90);
	assert_int_equal(counted(&t, A, 0)->self, 0);
	assert_int_equal(counted(&t, B, 0)->children, 40);
	assert_int_equal(counted(&t, B, 0)->self, 0);
	assert_int_equal(counted(&t, QSORT, 0)->children, 90); /* once per chain */
	assert_int_equal(counted(&t, QSORT, 0)->self, 20);
	assert_int_equal(counted(&t, CMP, 0)->children, 70);
	assert_int_equal(counted(&t, CMP, 0)->self, 70);
	assert_int_equal(counted(&t, LEAF, 0)->children, 40);
	assert_int_equal(counted(&t, LEAF, 0)->self, 40);
	for (uint32_t i = 0; i < t.nr_fn; i++) {
		assert_true(t.fn[i].children >= t.fn[i].self);
		sum_self += t.fn[i].self;
	}
	assert_int_equal(sum_self, 130); /* every chain with its leaf, once */
	/* the first frame met, and the processes */
	assert_int_equal(t.fn[0].func, CMP); /* in the order first met */
	assert_true(counted(&t, MAIN, 0)->word == 0x1000u * 10 + MAIN);
	assert_true(counted(&t, MAIN, 0)->pids);
	assert_false(counted(&t, A, 0)->pids);
	assert_int_equal(counted(&t, B, 0)->pid, 11);
	assert_null(calltree_counted(&t, REC, 0));
	assert_null(calltree_counted(&t, MAIN, 1));
	/* classes apart; begin again: nothing of the last span is left */
	calltree_count_begin(&t);
	assert_null(calltree_counted(&t, MAIN, 0));
	for (int i = 0; i < 3000; i++) /* past the first tables */
		count(&t, (uint64_t)i % 3, (uint32_t)i, true, 1, 2, 1000 + i % 1000, MAIN);
	assert_int_equal(t.nr_fn, 3 + 3000);
	for (uint64_t c = 0; c < 3; c++)
		assert_int_equal(counted(&t, MAIN, c)->children, 1000);
	assert_int_equal(counted(&t, 1000 + 7, 7 % 3)->self, 1);
	/* the targets' counts and paths are apart from these */
	const uint32_t func[1] = {MAIN};
	const uint64_t cls[1] = {0};
	struct calltree_result r[1];
	assert_int_equal(calltree_begin(&t, NFUNCS, func, cls, 1), 0);
	add(&t, 0, 4, 2, A, MAIN);
	calltree_finish(&t, r);
	assert_int_equal(r[0].children, 4);
	assert_int_equal(counted(&t, MAIN, 0)->children, 1000);
	calltree_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_children_self_paths),
	    cmocka_unit_test(test_recursion_classes_top),
	    cmocka_unit_test(test_depth_cut),
	    cmocka_unit_test(test_count_every_function),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
