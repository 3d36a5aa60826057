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

/* A SAMPLE waits with the side band, as a copy of its whole record: what
 * its pointers show after the ring moved on is what it carried. */
static uint64_t seen_regs[2], seen_stack[4], seen_ips[2], seen_time;
static int seen_samples;

static void take_sample(const struct record *r, void *arg)
{
	(void)arg;
	if (r->type != PERF_RECORD_SAMPLE)
		return;
	seen_samples++;
	seen_time = r->id.time;
	memcpy(seen_regs, r->sample.regs, sizeof(seen_regs));
	memcpy(seen_stack, r->sample.stack, sizeof(seen_stack));
	memcpy(seen_ips, r->sample.ips, sizeof(seen_ips));
}

static void test_sample_copied(void **state)
{
	uint64_t raw[16] = {0};
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .size = sizeof(raw)};
	struct record r = {.type = PERF_RECORD_SAMPLE, .fields = PERF_SAMPLE_TIME, .id.time = 7};
	struct sbqueue sq;

	(void)state;
	memcpy(raw, &h, sizeof(h));
	for (int i = 1; i < 16; i++)
		raw[i] = 100 + (uint64_t)i;
	r.sample.nr_ips = 2;
	r.sample.ips = &raw[1];
	r.sample.nr_regs = 2;
	r.sample.regs = &raw[4];
	r.sample.stack = (const unsigned char *)&raw[8];
	r.sample.stack_size = r.sample.stack_dyn_size = 32;
	sbqueue_init(&sq, take_sample, NULL);
	sbqueue_push_sample(&sq, &r, (const struct perf_event_header *)(const void *)raw);
	memset(raw, 0xee, sizeof(raw)); /* the ring moves on */
	assert_int_equal(seen_samples, 0);
	sbqueue_flush(&sq, 6);
	assert_int_equal(seen_samples, 0);
	sbqueue_flush(&sq, 7);
	assert_int_equal(seen_samples, 1);
	assert_int_equal(seen_time, 7);
	assert_int_equal(seen_ips[0], 101);
	assert_int_equal(seen_ips[1], 102);
	assert_int_equal(seen_regs[0], 104);
	assert_int_equal(seen_regs[1], 105);
	assert_int_equal(seen_stack[0], 108);
	assert_int_equal(seen_stack[3], 111);
	sbqueue_free(&sq);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_in_time_order),
	    cmocka_unit_test(test_round_until_empty),
	    cmocka_unit_test(test_sample_copied),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
