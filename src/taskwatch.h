/* taskwatch: new, exec'ing and exiting tasks, promptly, from a side-band dummy event per CPU. */
#ifndef PFMTOP_TASKWATCH_H
#define PFMTOP_TASKWATCH_H

#include "records.h"
#include "ring.h"
#include "sbqueue.h"

#include <stdint.h>
#include <sys/types.h>

struct taskwatch_ops {
	/* A task was created: pid is its process, tid itself (tid != pid for
	 * a thread), ppid the creating process. */
	void (*fork)(pid_t pid, pid_t tid, pid_t ppid, void *arg);
	/* A task exec'd a new program named comm. */
	void (*exec)(pid_t pid, pid_t tid, const char *comm, void *arg);
	/* A task exited. */
	void (*exit)(pid_t pid, pid_t tid, void *arg);
	void *arg;
};

struct taskwatch_cpu {
	int fd;
	struct ring ring;
};

struct taskwatch {
	int nr;
	struct taskwatch_cpu *cpus;
	struct records_format fmt;
	struct taskwatch_ops ops;
	uint64_t records, lost; /* side-band records seen; LOST records among them */
	struct sbqueue sbq;     /* FORK, EXIT and COMM in time order across the CPUs */
};

/*
 * Open a PERF_COUNT_SW_DUMMY event with task and comm records on each CPU,
 * waking the reader on every record, with a small ring each. Needs
 * CPU-wide rights (root, CAP_PERFMON or paranoid <= 0). 0 or -errno (what
 * perf_event_open or mmap said); nothing is left open on failure.
 */
int taskwatch_open(struct taskwatch *w, const int *cpus, int nr_cpus,
                   const struct taskwatch_ops *ops);

/* Calls fn with each ring's fd, to watch for EPOLLIN. */
void taskwatch_for_each_fd(const struct taskwatch *w, void (*fn)(int fd, void *arg), void *arg);

/* Read every ring (fd is the one that woke, or -1) and call the ops, in
 * time order across the rings (struct sbqueue). Returns records read. */
int taskwatch_drain(struct taskwatch *w, int fd);

void taskwatch_close(struct taskwatch *w);

#endif
