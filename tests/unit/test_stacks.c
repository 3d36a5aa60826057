/* stacks: call chains counted per (pid, chain), bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "stacks.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

struct seen {
	int keys;
	uint64_t samples;
	uint64_t of_pid[4];
	uint32_t longest;
};

static void count(uint32_t pid, const uint64_t *ips, uint32_t nr, uint64_t samples, void *arg)
{
	struct seen *s = arg;

	s->keys++;
	s->samples += samples;
	if (pid < 4)
		s->of_pid[pid] += samples;
	if (nr > s->longest)
		s->longest = nr;
	assert_non_null(ips);
}

static void test_same_chain_counts_once(void **state)
{
	const uint64_t a[] = {PERF_CONTEXT_USER, 0x401010, 0x402020, 0x403030};
	const uint64_t b[] = {PERF_CONTEXT_USER, 0x401010, 0x402020, 0x403031};
	struct stacks t;
	struct seen s = {0};

	assert_int_equal(stacks_init(&t, 0), 0);
	for (int i = 0; i < 3; i++)
		stacks_add(&t, 1, a, 4);
	stacks_add(&t, 1, b, 4); /* another return address: another key */
	stacks_add(&t, 2, a, 4); /* another process: another key */
	stacks_add(&t, 1, a, 3); /* a prefix: another key */
	stacks_for_each(&t, count, &s);
	assert_int_equal(s.keys, 4);
	assert_int_equal(s.samples, 6);
	assert_int_equal(s.of_pid[1], 5);
	assert_int_equal(s.of_pid[2], 1);
	assert_int_equal(t.samples, 6);
	assert_int_equal(t.dropped, 0);
	stacks_fini(&t);
}

/* Past the bound a new chain is dropped (and counted), old ones still
 * count; the table grows through many keys without losing one. */
static void test_bounded(void **state)
{
	struct stacks t;
	struct seen s = {0};
	uint64_t c[2] = {PERF_CONTEXT_USER, 0};

	assert_int_equal(stacks_init(&t, 5000), 0);
	for (uint64_t i = 0; i < 6000; i++) {
		c[1] = 0x400000 + i;
		stacks_add(&t, 3, c, 2);
	}
	c[1] = 0x400000;
	stacks_add(&t, 3, c, 2); /* an old key still counts */
	stacks_for_each(&t, count, &s);
	assert_int_equal(s.keys, 5000);
	assert_int_equal(s.samples, 5001);
	assert_int_equal(t.dropped, 1000);
	assert_int_equal(t.samples, 6001);
	stacks_fini(&t);
}

static void test_long_chain_cut(void **state)
{
	uint64_t *c = calloc(STACKS_MAX_FRAMES + 50, sizeof(*c));
	struct stacks t;
	struct seen s = {0};

	assert_non_null(c);
	for (int i = 0; i < STACKS_MAX_FRAMES + 50; i++)
		c[i] = 0x400000 + (uint64_t)i;
	assert_int_equal(stacks_init(&t, 0), 0);
	stacks_add(&t, 1, c, STACKS_MAX_FRAMES + 50);
	stacks_add(&t, 1, c, 0); /* an empty chain is a key too */
	stacks_for_each(&t, count, &s);
	assert_int_equal(s.keys, 2);
	assert_int_equal(s.longest, STACKS_MAX_FRAMES);
	stacks_fini(&t);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_chain_counts_once),
	    cmocka_unit_test(test_bounded),
	    cmocka_unit_test(test_long_chain_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
