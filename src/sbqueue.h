/* sbqueue: side-band records of several rings handed over in time order. */
#ifndef PFMTOP_SBQUEUE_H
#define PFMTOP_SBQUEUE_H

#include "records.h"

#include <stdint.h>

/*
 * Each perf ring is in time order, but rings are not in order with each
 * other: a task that forks on one CPU and exits on another, or execs on one
 * and maps its libraries on another, leaves its records in two rings, and
 * handing them over ring by ring can apply an EXIT before its FORK, or an
 * exec (which drops the task's mappings) after the mappings it made way
 * for. So side-band records (FORK, EXIT, COMM, MMAP, MMAP2) wait here and go
 * out sorted by time once every ring has been read past their time (perf's
 * "finished round"): a record stamped no later than one already read was
 * written before that one was read, so a pass over every ring after that
 * read has it too. Records without a time go out first.
 */
struct sbqueue_item {
	struct record rec;
	uint64_t seq;         /* arrival: equal times keep their order */
	char *text;           /* the MMAP's filename or the COMM's name, or a
	                       * SAMPLE's whole record (rec points into it), owned */
	uint8_t build_id[20]; /* the MMAP2's, when it has one */
};

typedef void (*sbqueue_fn)(const struct record *rec, void *arg);

struct sbqueue {
	struct sbqueue_item *items;
	int nr, cap;
	uint64_t seq;
	uint64_t seen; /* the latest time on a record read so far */
	sbqueue_fn fn; /* what each record goes to, in order */
	void *arg;
};

/* Beyond this many waiting records, what is queued goes out as it stands. */
#define SBQUEUE_MAX 65536

void sbqueue_init(struct sbqueue *q, sbqueue_fn fn, void *arg);
void sbqueue_free(struct sbqueue *q);

/* Every decoded record passes here: its time moves q->seen on. */
void sbqueue_seen(struct sbqueue *q, const struct record *rec);

/* Queue a side-band record, with copies of what it points into the ring
 * (out of memory: it goes out at once, out of order rather than lost). */
void sbqueue_push(struct sbqueue *q, const struct record *rec);

/* Queue a SAMPLE too (--call-graph dwarf: its user stack is unwound with
 * the mappings of its time, so it waits for the side band before it), with
 * a copy of the whole record raw (rec was decoded from it, and its pointers
 * are moved into the copy). Out of memory: it goes out at once. */
void sbqueue_push_sample(struct sbqueue *q, const struct record *rec,
                         const struct perf_event_header *raw);

/* Hand over, in time order, every waiting record no newer than bound. */
void sbqueue_flush(struct sbqueue *q, uint64_t bound);

/*
 * One round: drain(ctx) reads every ring (pushing side-band records and
 * calling sbqueue_seen() on all), then what every ring has been read past
 * goes out; while records are left, another pass (SBQUEUE_PASSES at most)
 * lets out what the one before read, and everything once a pass finds the
 * rings empty. Returns what drain() returned, summed.
 */
#define SBQUEUE_PASSES 4
int sbqueue_round(struct sbqueue *q, int (*drain)(void *ctx), void *ctx);

#endif
