/* counters: counting groups on one target (a CPU or a task), read and scaled. */
#ifndef PFMTOP_COUNTERS_H
#define PFMTOP_COUNTERS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What every counting fd reads: one layout for groups of one or many. */
#define COUNTERS_READ_FORMAT                                                                       \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |                     \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)

enum counter_state {
	COUNTER_OK,          /* ran for the whole interval */
	COUNTER_MULTIPLEXED, /* ran for part of it: value scaled up, coverage < 100% */
	COUNTER_NOT_COUNTED, /* enabled but never scheduled on the PMU (Δrunning = 0) */
	COUNTER_UNSUPPORTED, /* the open failed: see the event's reason */
	COUNTER_ERROR,       /* pinned group in error state: read() returned 0 bytes */
};

/* One scaled figure: value is NaN unless state is OK or MULTIPLEXED. */
struct counter_value {
	double value;
	double coverage; /* Δrunning / Δenabled, 0..1 */
	enum counter_state state;
};

/* Scale a delta: Δvalue · Δenabled / Δrunning, with coverage and state.
 * Δenabled = 0 (the target did not run) is a plain Δvalue, state OK. */
struct counter_value counters_scale(uint64_t dvalue, uint64_t denabled, uint64_t drunning);

/* Bytes read() returns for nr events in a group with this read_format. */
size_t counters_read_size(uint64_t read_format, int nr);

/* A decoded read(): times are the group's (or the event's, without GROUP). */
struct counters_read {
	uint64_t nr, enabled, running;
	struct {
		uint64_t value, id;
	} v[64];
};

/* Decode buf (len bytes, from an fd opened with read_format) into *out.
 * Handles PERF_FORMAT_GROUP and the single-event layout (value, enabled,
 * running, id). 0, or -EINVAL if len does not match the layout. */
int counters_parse_read(const void *buf, size_t len, uint64_t read_format,
                        struct counters_read *out);

/* An event as counters need it: the attr to open and its group number. */
struct counters_event {
	struct perf_event_attr attr;
	int group;
	int skip_err; /* non-zero: do not open it; it failed with this errno already */
};

struct counters_config {
	const struct counters_event *ev;
	int nr;
	bool inherit;        /* count children created after the open */
	bool enable_on_exec; /* leaders start at the target's next exec */
	bool enabled;        /* leaders open counting, members join them (no
	                      * counters_enable() needed) */
};

struct counter_reading {
	uint64_t value, enabled, running;
};

/* One event on one target. */
struct counter {
	int fd;      /* -1 when not open */
	uint64_t id; /* PERF_EVENT_IOC_ID */
	int err;     /* errno of the failed open, 0 when open */
	bool error;  /* the group's read returned 0 bytes */
	bool fed;    /* no fd: its readings come from counters_feed() */
	struct counter_reading cur, prev;
	struct counter_reading base; /* where totals start: zero, or (fed) a task's exec */
};

/* Every event of a configuration opened on one (pid, cpu). */
struct counter_set {
	pid_t pid;
	int cpu;
	int nr;
	struct counter *c; /* nr entries, owned */
	const struct counters_config *cfg;
	int nr_open;
};

/*
 * Open every group of cfg on (pid, cpu): leaders disabled, members following
 * them. A member that fails is recorded in c[i].err and the rest of its group
 * still counts; the first member that opens leads. Returns 0 (even when
 * nothing could be opened: see nr_open and err), or -EMFILE/-ENFILE (fd
 * limit) / -ESRCH (task gone), in which case nothing is left open.
 * cfg must outlive the set.
 */
int counters_open(struct counter_set *s, const struct counters_config *cfg, pid_t pid, int cpu);

/* The same for a cgroup: cgroup_fd is an open cgroup (v2) directory,
 * counted on one CPU (PERF_FLAG_PID_CGROUP). */
int counters_open_cgroup(struct counter_set *s, const struct counters_config *cfg, int cgroup_fd,
                         int cpu);

/* A set without fds whose readings are given (counters_feed(), from the
 * BPF task counts): event i is fed when fed[i], else unsupported with err
 * (its c[i].err). 0 or -ENOMEM. */
int counters_open_fed(struct counter_set *s, const struct counters_config *cfg, pid_t pid,
                      const bool *fed, int err);

/* Event i's reading of a fed set: prev becomes cur, cur becomes *r. */
void counters_feed(struct counter_set *s, int i, const struct counter_reading *r);

/* Enable every group (unless cfg->enable_on_exec). 0 or -errno. */
int counters_enable(struct counter_set *s);

/* Stop every group counting (children too, with inherit): the figures stay
 * as they are for any number of reads. 0 or -errno. */
int counters_disable(struct counter_set *s);

/* Read every group once: prev becomes cur, cur gets the new figures, matched
 * to events by id. 0 or -errno of the first failed read. */
int counters_read(struct counter_set *s);

/* What counters_read() would give for a set whose task is known not to
 * have run since the last read (a task's counters then stand still):
 * prev becomes cur, without a read. */
void counters_hold(struct counter_set *s);

/* Close every fd; the set may be opened again. */
void counters_close(struct counter_set *s);

/* Event i over the last interval (prev to cur) or since the open. */
struct counter_value counters_interval(const struct counter_set *s, int i);
struct counter_value counters_total(const struct counter_set *s, int i);

/* The leader fd of event i's group, or -1 (for polling on task exit). */
int counters_leader_fd(const struct counter_set *s, int i);

#endif
