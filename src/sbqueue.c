/* sbqueue: side-band records of several rings handed over in time order. */
#include "sbqueue.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

void sbqueue_init(struct sbqueue *q, sbqueue_fn fn, void *arg)
{
	memset(q, 0, sizeof(*q));
	q->fn = fn;
	q->arg = arg;
}

void sbqueue_free(struct sbqueue *q)
{
	for (int i = 0; i < q->nr; i++)
		free(q->items[i].text);
	free(q->items);
	q->items = NULL;
	q->nr = q->cap = 0;
}

void sbqueue_seen(struct sbqueue *q, const struct record *rec)
{
	if ((rec->fields & PERF_SAMPLE_TIME) && rec->id.time > q->seen)
		q->seen = rec->id.time;
}

static int item_cmp(const void *a, const void *b)
{
	const struct sbqueue_item *x = a, *y = b;

	if (x->rec.id.time != y->rec.id.time)
		return x->rec.id.time < y->rec.id.time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void sbqueue_flush(struct sbqueue *q, uint64_t bound)
{
	int i = 0;

	if (!q->nr)
		return;
	qsort(q->items, (size_t)q->nr, sizeof(*q->items), item_cmp);
	for (; i < q->nr && q->items[i].rec.id.time <= bound; i++) {
		q->fn(&q->items[i].rec, q->arg);
		free(q->items[i].text);
	}
	memmove(q->items, q->items + i, (size_t)(q->nr - i) * sizeof(*q->items));
	q->nr -= i;
}

void sbqueue_push(struct sbqueue *q, const struct record *rec)
{
	struct sbqueue_item *it;
	const char *text = rec->type == PERF_RECORD_COMM ? rec->comm.comm
	                   : rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2
	                       ? rec->mmap.filename
	                       : NULL;

	if (q->nr >= SBQUEUE_MAX)
		sbqueue_flush(q, UINT64_MAX);
	if (util_grow(&q->items, q->nr, &q->cap, sizeof(*q->items), 64) != 0) {
		q->fn(rec, q->arg);
		return;
	}
	it = &q->items[q->nr];
	it->rec = *rec;
	it->seq = q->seq++;
	it->text = NULL;
	if (!(rec->fields & PERF_SAMPLE_TIME))
		it->rec.id.time = 0; /* no time: first out */
	if (text && !(it->text = strdup(text))) {
		q->fn(rec, q->arg);
		return;
	}
	if (rec->type == PERF_RECORD_COMM) {
		it->rec.comm.comm = it->text;
	} else if (text) {
		it->rec.mmap.filename = it->text;
		if (rec->mmap.has_build_id && rec->mmap.build_id) {
			memcpy(it->build_id, rec->mmap.build_id,
			       rec->mmap.build_id_size < sizeof(it->build_id)
			           ? rec->mmap.build_id_size
			           : sizeof(it->build_id));
			it->rec.mmap.build_id = it->build_id;
		}
	}
	q->nr++;
}

/* p, a pointer into the record at from, moved to the same place in to. */
static const void *moved(const void *p, const void *from, void *to)
{
	return p ? (const char *)to + ((const char *)p - (const char *)from) : NULL;
}

void sbqueue_push_sample(struct sbqueue *q, const struct record *rec,
                         const struct perf_event_header *raw)
{
	const struct records_sample *in = &rec->sample;
	struct sbqueue_item *it;
	struct records_sample *smp;
	size_t len = raw->size;
	void *copy;

	/* The user stack copy is the record's last part read through a
	 * pointer: only its dyn_size bytes are real (often a small part of the
	 * size asked for), so the copy ends with them. */
	if (in->stack && in->stack_dyn_size <= in->stack_size)
		len = (size_t)(in->stack - (const unsigned char *)raw) + in->stack_dyn_size;
	if (q->nr >= SBQUEUE_MAX)
		sbqueue_flush(q, UINT64_MAX);
	if (util_grow(&q->items, q->nr, &q->cap, sizeof(*q->items), 64) != 0 ||
	    !(copy = malloc(len ? len : 1))) {
		q->fn(rec, q->arg);
		return;
	}
	memcpy(copy, raw, len);
	it = &q->items[q->nr++];
	it->rec = *rec;
	it->seq = q->seq++;
	it->text = copy;
	if (!(rec->fields & PERF_SAMPLE_TIME))
		it->rec.id.time = 0;
	smp = &it->rec.sample;
	smp->ips = moved(smp->ips, raw, copy);
	smp->raw = moved(smp->raw, raw, copy);
	smp->branches = moved(smp->branches, raw, copy);
	smp->branch_counters = moved(smp->branch_counters, raw, copy);
	smp->regs = moved(smp->regs, raw, copy);
	smp->stack = moved(smp->stack, raw, copy);
	if (smp->stack)
		smp->stack_size = smp->stack_dyn_size; /* what the copy holds */
}

int sbqueue_round(struct sbqueue *q, int (*drain)(void *ctx), void *ctx)
{
	uint64_t bound = q->seen;
	int total = drain(ctx);

	sbqueue_flush(q, bound);
	for (int pass = 0; q->nr && pass < SBQUEUE_PASSES; pass++) {
		int n;

		bound = q->seen;
		n = drain(ctx);
		total += n;
		/* A pass that found every ring empty: all written before it is
		 * read, and nothing need wait (for a wake-up that may not come
		 * before the next refresh counts the tasks). */
		sbqueue_flush(q, n ? bound : UINT64_MAX);
	}
	return total;
}
