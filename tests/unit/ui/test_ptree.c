/* test_ptree: rows in tree order by parent, with glyphs: missing parents, cycles, folding. */
#include "ptree.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static char pfx[64][PTREE_PFX];
static int order[64], kids[64];

/* The tree as lines "glyphs+id" joined by ';'. */
static const char *tree(const int *id, const int *par, int n, const int *folded, int nf)
{
	static char out[1024];
	int m = ptree_order(id, par, n, folded, nf, order, pfx, kids);

	out[0] = '\0';
	for (int i = 0; i < m; i++)
		sprintf(out + strlen(out), "%s%s%d", i ? ";" : "", pfx[order[i]], id[order[i]]);
	return out;
}

static void test_simple(void **state)
{
	/* sorted by something else: siblings keep this order */
	const int id[] = {30, 1, 20, 21, 10, 22};
	const int par[] = {1, 0, 1, 20, 1, 20};

	assert_string_equal(tree(id, par, 6, NULL, 0), "1;|- 30;|- 20;|  |- 21;|  `- 22;`- 10");
	assert_int_equal(kids[1], 3);
	assert_int_equal(kids[2], 2);
	assert_int_equal(kids[0], 0);
}

static void test_missing_parents(void **state)
{
	/* 5's parent is not shown, 6 is its own parent, 7's is 0: all roots */
	const int id[] = {5, 6, 7, 8};
	const int par[] = {99, 6, 0, 5};

	assert_string_equal(tree(id, par, 4, NULL, 0), "5;`- 8;6;7");
}

static void test_cycles(void **state)
{
	/* 2 -> 3 -> 4 -> 2 is a cycle, 5 hangs on 3; 1 is a plain root */
	const int id[] = {3, 1, 2, 4, 5};
	const int par[] = {2, 0, 4, 3, 3};
	int m = ptree_order(id, par, 5, NULL, 0, order, pfx, kids);

	assert_int_equal(m, 5); /* every row once */
	assert_string_equal(tree(id, par, 5, NULL, 0), "1;3;|- 4;|  `- 2;`- 5");
	/* two rows naming each other */
	const int id2[] = {7, 8};
	const int par2[] = {8, 7};
	assert_string_equal(tree(id2, par2, 2, NULL, 0), "7;`- 8");
}

static void test_fold(void **state)
{
	const int id[] = {1, 2, 3, 4, 5};
	const int par[] = {0, 1, 2, 2, 1};
	const int folded[] = {2, 4}; /* 4 has no children: no mark */

	assert_string_equal(tree(id, par, 5, folded, 2), "1;|+ 2;`- 5");
	const int root[] = {1};
	assert_string_equal(tree(id, par, 5, root, 1), "+ 1");
	/* a cycle under a folded row stays hidden */
	const int id2[] = {1, 2, 3};
	const int par2[] = {0, 1, 2};
	assert_string_equal(tree(id2, par2, 3, root, 1), "+ 1");
}

static void test_deep(void **state)
{
	int id[40], par[40];
	char want[PTREE_PFX];

	for (int i = 0; i < 40; i++) {
		id[i] = i + 1;
		par[i] = i;
	}
	int m = ptree_order(id, par, 40, NULL, 0, order, pfx, kids);
	assert_int_equal(m, 40);
	for (int i = 0; i < 40; i++) {
		assert_int_equal(order[i], i);
		assert_true(strlen(pfx[i]) < PTREE_PFX);
	}
	/* the glyphs stop growing, and still end in the branch */
	assert_string_equal(pfx[39], pfx[30]);
	snprintf(want, sizeof(want), "%s", pfx[39] + strlen(pfx[39]) - 3);
	assert_string_equal(want, "`- ");
}

static void test_empty(void **state)
{
	assert_int_equal(ptree_order(NULL, NULL, 0, NULL, 0, order, NULL, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_simple), cmocka_unit_test(test_missing_parents),
	    cmocka_unit_test(test_cycles), cmocka_unit_test(test_fold),
	    cmocka_unit_test(test_deep),   cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
