/* runwatch: which tasks ran in an interval, from the context-switch records of a side-band dummy
 * event per CPU. */
#ifndef PFMTOP_RUNWATCH_H
#define PFMTOP_RUNWATCH_H

#include "records.h"
#include "ring.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A task's own counters (a task target's, opened with pid = the task and
 * cpu = -1) change only while it runs on a CPU: its software events count
 * in its context and its hardware events are on the PMU only while it is
 * scheduled in. A task no switch record names in an interval, and that was
 * not on a CPU when it began, did not run in it: a read of its counters
 * would return what the last one did. The session skips those reads, one
 * system call a task and a tick, when thousands of tasks are counted and
 * few of them run.
 *
 * Each CPU's ring is drained at the tick, not on wake-ups. When one filled
 * up (a LOST record) or the set of tasks could not grow, the interval has
 * no evidence (runwatch_whole() is false) and every counter is read.
 */
struct runwatch_cpu {
	int fd;
	struct ring ring;
	pid_t cur;  /* the task switched in last: running now, or until the next record */
	bool known; /* cur is known: a switch was seen on this CPU */
};

struct runwatch {
	int nr;
	struct runwatch_cpu *cpus;
	struct records_format fmt;
	pid_t *seen; /* tids named by this interval's records: open addressing, 0 = empty */
	uint32_t cap, nr_seen;
	uint64_t records; /* switch records this interval */
	bool lost;        /* records lost, or the set could not grow: no evidence */
};

/*
 * Open a PERF_COUNT_SW_DUMMY event with context_switch on each CPU, with a
 * ring of its own sized for twice `records` a CPU and an interval (16 KiB
 * to 256 KiB). Needs CPU-wide rights (root, CAP_PERFMON or
 * paranoid <= 0). 0 or -errno; nothing is left open on failure.
 */
int runwatch_open(struct runwatch *w, const int *cpus, int nr_cpus, uint64_t records);

/* Read every ring into this interval's evidence. */
void runwatch_drain(struct runwatch *w);

/* The interval's evidence is whole: every CPU's running task is known,
 * and no record was lost. */
bool runwatch_whole(const struct runwatch *w);

/* Did tid run in this interval (named by a record, or on a CPU now)? */
bool runwatch_ran(const struct runwatch *w, pid_t tid);

/* Start the next interval: forget the tasks seen, keep each CPU's current one. */
void runwatch_next(struct runwatch *w);

void runwatch_close(struct runwatch *w);

#endif
