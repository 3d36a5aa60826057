/* runwatch: which tasks ran in an interval, from context-switch records. */
#include "runwatch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Data pages per CPU: 16 KiB to 256 KiB, 680 to 10,900 records of 24 bytes. */
#define RUNWATCH_PAGES_MIN   4
#define RUNWATCH_PAGES_MAX   64
#define RUNWATCH_RECORD      24
#define RUNWATCH_SAMPLE_TYPE PERF_SAMPLE_TID
#define RUNWATCH_SEEN_MAX    (1u << 22) /* tids in one interval; beyond, no evidence */

/* Pages for twice the records, a power of two within the bounds. */
static unsigned ring_pages(uint64_t records)
{
	unsigned pages = RUNWATCH_PAGES_MIN;

	while (pages < RUNWATCH_PAGES_MAX && (uint64_t)pages * 4096 < 2 * records * RUNWATCH_RECORD)
		pages *= 2;
	return pages;
}

int runwatch_open(struct runwatch *w, const int *cpus, int nr_cpus, uint64_t records)
{
	const unsigned pages = ring_pages(records);
	struct perf_event_attr attr = {
	    .size = sizeof(attr),
	    .type = PERF_TYPE_SOFTWARE,
	    .config = PERF_COUNT_SW_DUMMY,
	    .sample_type = RUNWATCH_SAMPLE_TYPE,
	    .sample_id_all = 1,
	    .context_switch = 1,
	    /* Drained at the tick, never polled: a wake-up only when the
	     * ring is full, not every few records. */
	    .watermark = 1,
	    .wakeup_watermark = pages * 4096,
	};
	int ret;

	memset(w, 0, sizeof(*w));
	ret = records_format_init(&w->fmt, RUNWATCH_SAMPLE_TYPE, 0, true);
	if (ret < 0)
		return ret;
	w->cpus = calloc((size_t)nr_cpus + 1, sizeof(*w->cpus));
	if (!w->cpus)
		return -ENOMEM;
	for (int i = 0; i < nr_cpus; i++) {
		ret = ring_open_cpu(&attr, cpus[i], pages, &w->cpus[i].fd, &w->cpus[i].ring);
		if (ret) {
			runwatch_close(w);
			return ret;
		}
		w->nr++;
	}
	return 0;
}

static uint32_t slot_of(uint32_t cap, pid_t tid)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

static bool grow(struct runwatch *w)
{
	uint32_t cap = w->cap ? w->cap * 2 : 1024;
	pid_t *seen;

	if (cap > RUNWATCH_SEEN_MAX || !(seen = calloc(cap, sizeof(*seen))))
		return false;
	for (uint32_t i = 0; i < w->cap; i++) {
		if (!w->seen[i])
			continue;
		uint32_t h = slot_of(cap, w->seen[i]);
		while (seen[h])
			h = (h + 1) & (cap - 1);
		seen[h] = w->seen[i];
	}
	free(w->seen);
	w->seen = seen;
	w->cap = cap;
	return true;
}

static void saw(struct runwatch *w, pid_t tid)
{
	uint32_t h;

	if (tid <= 0)
		return; /* the idle task */
	if (2 * (w->nr_seen + 1) > w->cap && !grow(w)) {
		w->lost = true;
		return;
	}
	for (h = slot_of(w->cap, tid); w->seen[h]; h = (h + 1) & (w->cap - 1))
		if (w->seen[h] == tid)
			return;
	w->seen[h] = tid;
	w->nr_seen++;
}

struct drain_ctx {
	struct runwatch *w;
	struct runwatch_cpu *c;
};

static void on_record(const struct perf_event_header *h, void *arg)
{
	struct drain_ctx *d = arg;
	struct record r;
	int ret = records_decode(&d->w->fmt, h, &r);

	if (ret < 0 || (ret == 0 && r.type == PERF_RECORD_LOST)) {
		/* a record lost or unreadable: which task it named is not known */
		d->w->lost = true;
		d->c->known = false; /* until the next switch here */
		return;
	}
	if (ret || r.type != PERF_RECORD_SWITCH_CPU_WIDE)
		return;
	d->w->records++;
	saw(d->w, (pid_t)r.id.tid);
	saw(d->w, (pid_t)r.sw.next_prev_tid);
	/* Out: the other task comes in. In: this one did. */
	d->c->cur = (pid_t)(r.sw.out ? r.sw.next_prev_tid : r.id.tid);
	d->c->known = true;
}

void runwatch_drain(struct runwatch *w)
{
	for (int i = 0; i < w->nr; i++) {
		struct drain_ctx d = {w, &w->cpus[i]};
		uint64_t corrupt = d.c->ring.stats.corrupt;

		ring_drain(&d.c->ring, on_record, &d);
		if (d.c->ring.stats.corrupt != corrupt) {
			/* records thrown away: who runs there is not known either */
			w->lost = true;
			d.c->known = false;
		}
	}
}

bool runwatch_whole(const struct runwatch *w)
{
	if (w->lost || !w->nr)
		return false;
	for (int i = 0; i < w->nr; i++)
		if (!w->cpus[i].known)
			return false;
	return true;
}

bool runwatch_ran(const struct runwatch *w, pid_t tid)
{
	for (int i = 0; i < w->nr; i++)
		if (w->cpus[i].cur == tid)
			return true;
	if (!w->nr_seen)
		return false;
	for (uint32_t h = slot_of(w->cap, tid); w->seen[h]; h = (h + 1) & (w->cap - 1))
		if (w->seen[h] == tid)
			return true;
	return false;
}

void runwatch_next(struct runwatch *w)
{
	if (w->nr_seen)
		memset(w->seen, 0, w->cap * sizeof(*w->seen));
	w->nr_seen = 0;
	w->records = 0;
	w->lost = false;
}

void runwatch_close(struct runwatch *w)
{
	for (int i = 0; i < w->nr; i++)
		ring_close_cpu(&w->cpus[i].fd, &w->cpus[i].ring);
	free(w->cpus);
	free(w->seen);
	memset(w, 0, sizeof(*w));
}
