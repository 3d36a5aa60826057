/* taskcount.h: the layout shared by the sched_switch BPF program
 * (taskcount.bpf.c) and its userspace readers. Plain fixed-size types so
 * both compilers (clang -target bpf, and the host's) agree. */
#ifndef PFMTOP_TASKCOUNT_H
#define PFMTOP_TASKCOUNT_H

#define TASKCOUNT_MAX_EVENTS    8
#define TASKCOUNT_MAX_CPUS      4096
#define TASKCOUNT_SPILL_DROPPED 0 /* slices whose task found the map full */
#define TASKCOUNT_SPILL_IDLE    1 /* slices of the idle task (pid 0) */
#define TASKCOUNT_SPILL_N       2

/* Counts, time enabled and time running of each event, summed over slices. */
struct taskcount_counts {
	unsigned long long value[TASKCOUNT_MAX_EVENTS];
	unsigned long long enabled[TASKCOUNT_MAX_EVENTS];
	unsigned long long running[TASKCOUNT_MAX_EVENTS];
};

/* A task: its TID and its task_struct address, which tells a reused TID
 * from the task that had it before. */
struct taskcount_key {
	unsigned int tid;
	unsigned int pad;
	unsigned long long task;
};

struct taskcount_task {
	unsigned int tgid;
	unsigned int slices;         /* switches out seen (wraps) */
	unsigned long long first_ns; /* its first switch out (CLOCK_BOOTTIME, as a task's
	                              * start in /proc): of
	                              * two entries of one TID, the newer is the live one */
	unsigned int execs;          /* execs seen */
	unsigned int dead;           /* its final switch (prev_state TASK_DEAD) has been */
	char comm[16];               /* the name at its last switch out */
	struct taskcount_counts c;
	struct taskcount_counts exec_c; /* c at its last exec */
};

#endif
