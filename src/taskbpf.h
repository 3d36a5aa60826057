/* taskbpf: per-task counts taken at every context switch by a BPF program
 * (src/bpf/taskcount.bpf.c) from the per-CPU counters, read back from its
 * map. Without BPF support built in, taskbpf_open() says why not. */
#ifndef PFMTOP_TASKBPF_H
#define PFMTOP_TASKBPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/taskcount.h"

/* The most tasks the map holds; more switch out into "dropped". */
#define TASKBPF_MAX_ENTRIES 32768

struct taskbpf_entry {
	struct taskcount_key key;
	struct taskcount_task v;
};

struct taskbpf {
	void *skel;              /* the loaded program (struct taskcount), NULL: closed */
	int nr_possible;         /* CPUs the kernel may have (the array's stride) */
	int nr_ev;               /* events the program reads */
	uint32_t entries;        /* the map's max_entries */
	struct taskbpf_entry *e; /* taskbpf_read()'s entries, sorted by TID */
	int nr, cap;
	struct taskcount_key *keys; /* the batch reads' buffers (cap each) */
	struct taskcount_task *vals;
};

/* Load and attach the program over counter fds: fd[ev * nr_cpus + i] is
 * event ev on CPU cpus[i] (-1: not counted there; the event is then read
 * by nobody). 0, or -errno with a sentence in why. */
int taskbpf_open(struct taskbpf *b, const int *fd, const int *cpus, int nr_cpus, int nr_ev,
                 char *why, size_t whylen);

/* Read every entry of the map into b->e (sorted by TID). Entries or
 * -errno. */
int taskbpf_read(struct taskbpf *b);

/* Sum over CPUs of what went to no task: the map was full (dropped) or the
 * idle task ran (idle). 0 or -errno. */
int taskbpf_spill(struct taskbpf *b, struct taskcount_counts *dropped,
                  struct taskcount_counts *idle);

/* The first entry of TID tid in b->e, or NULL; those after it with the
 * same TID follow, newest first (a TID is reused as PIDs wrap). */
const struct taskbpf_entry *taskbpf_find(const struct taskbpf *b, uint32_t tid);

/* Delete a task's entry from the map (its task is gone). */
void taskbpf_delete(struct taskbpf *b, const struct taskcount_key *k);

/* Detach, unload, free. */
void taskbpf_close(struct taskbpf *b);

/* Bytes the map may take at most: entries x (key + value + overhead). */
size_t taskbpf_map_bytes(uint32_t entries);

#endif
