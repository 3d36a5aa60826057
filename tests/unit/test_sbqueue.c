/* sbqueue: side-band records of several rings handed over in time order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "sbqueue.h"

#include <stdio.h>
#include <string.h>

static char out[256];

static void take(const struct record *r, void *arg)
{
	size_t n = strlen(out);

	(void)arg;
	snprintf(out + n, sizeof(out) - n, "%s%s@%llu", n ? " " : "",
	         r->type == PERF_RECORD_COMM ? r->comm.comm : r->type == PERF_RECORD_FORK ? "fork"
	                                                                               : "exit",
	         (unsigned long long)r->id.time);
}

static struct record rec(uint32_t type, uint64_t time, const char *comm)
{
	struct record r = {.type = type, .fields = PERF_SAMPLE_TIME, .id.time = time};

	if (type == PERF_RECORD_COMM)
		r.comm.comm = comm;
	return r;
}

/* Two "rings", each in order, read one after the other: the second pass
 * of a round lets out what the first read; the strings are copies. */
static const struct record *ring_a, *ring_b;
static int nr_a, nr_b;
static struct sbqueue q;

static int drain(void *ctx)
{
	char name[16];
	int n = nr_a + nr_b;

	for (int i = 0; i < nr_a; i++) {
		struct record r = ring_a[i];
		if (r.type == PERF_RECORD_COMM) {
			snprintf(name, sizeof(name), "%s", r.comm.comm);
			r.comm.comm = name; /* as in a ring: overwritten after */
		}
		sbqueue_seen(&q, &r);
		sbqueue_push(&q, &r);
		memset(name, 'X', sizeof(name) - 1);
	}
	for (int i = 0; i < nr_b; i++) {
		sbqueue_seen(&q, &ring_b[i]);
		sbqueue_push(&q, &ring_b[i]);
	}
	nr_a = nr_b = 0;
	return n;
}

static void test_round_in_time_order(void **state)
{
	const struct record a[] = {rec(PERF_RECORD_FORK, 100, NULL), rec(PERF_RECORD_EXIT, 400, NULL)};
	const struct record b[] = {rec(PERF_RECORD_COMM, 150, "exec"),
	                           rec(PERF_RECORD_COMM, 100, "same-time")};

	out[0] = '\0';
	sbqueue_init(&q, take, NULL);
	ring_a = a, nr_a = 2, ring_b = b, nr_b = 2;
	assert_int_equal(sbqueue_round(&q, drain, NULL), 4);
	assert_string_equal(out, "fork@100 same-time@100 exec@150 exit@400");
	assert_int_equal(q.nr, 0);

	/* Newer than anything read before the last pass: it waits. */
	const struct record c[] = {rec(PERF_RECORD_FORK, 500, NULL)};
	out[0] = '\0';
	q.seen = 400;
	sbqueue_push(&q, &c[0]);
	sbqueue_seen(&q, &c[0]);
	sbqueue_flush(&q, 400);
	assert_string_equal(out, "");
	sbqueue_flush(&q, UINT64_MAX);
	assert_string_equal(out, "fork@500");
	sbqueue_free(&q);
}

/* Records keep coming while the rings are read: each pass lets out what
 * the one before read, and once a pass finds the rings empty, all of it. */
static int calls;

static int drain_trickle(void *ctx)
{
	struct record r = rec(PERF_RECORD_FORK, 100 * (uint64_t)(calls + 1), NULL);

	if (calls++ >= 2)
		return 0;
	sbqueue_seen(&q, &r);
	sbqueue_push(&q, &r);
	return 1;
}

static void test_round_until_empty(void **state)
{
	out[0] = '\0';
	calls = 0;
	sbqueue_init(&q, take, NULL);
	assert_int_equal(sbqueue_round(&q, drain_trickle, NULL), 2);
	assert_int_equal(calls, 3);
	assert_string_equal(out, "fork@100 fork@200");
	assert_int_equal(q.nr, 0);
	sbqueue_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_in_time_order),
	    cmocka_unit_test(test_round_until_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
