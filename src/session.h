/* session: the engine: events, targets and counters, turned into the model each tick. */
#ifndef PFMTOP_SESSION_H
#define PFMTOP_SESSION_H

#include "counters.h"
#include "events.h"
#include "metrics.h"
#include "model.h"
#include "probe.h"
#include "procfs.h"
#include "profile.h"
#include "taskwatch.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The built-in default preset: hardware events in one group (so IPC is
 * meaningful), software events alone. */
#define SESSION_DEFAULT_EVENTS                                                                \
	"{cycles,instructions,cache-misses,branch-misses},task-clock,context-switches,"        \
	"cpu-migrations,page-faults"

#define SESSION_MAX_CPUS 4096
#define SESSION_FD_RESERVE 32 /* fds kept free for /proc, output, terminal */
#define SESSION_IDLE_TICKS 10  /* a task idle this many ticks loses its counters */

struct session_config {
	struct events_list events; /* what to count (parsed -e, or the default) */
	char preset[32];           /* shown in the header */
	enum model_mode mode;      /* SYSTEM unless -p or a command */
	pid_t pids[256];           /* -p */
	int nr_pids;
	int cpus[SESSION_MAX_CPUS]; /* -C; nr_cpus == 0 means all online CPUs */
	int nr_cpus;
	bool threads;              /* -H: a row per thread */
	bool no_inherit;           /* --no-inherit: children of -p / the command not counted */
	char **argv;               /* the command, NULL-terminated */
	uint64_t interval_ns;
	int top_n;
	struct profile_config profile; /* sampling and hotspots */
	double cpu_min;            /* system-wide: count tasks using at least this CPU%; < 0 never */
	char cgroups[16][256];     /* --cgroup paths (relative to the cgroup v2 mount) */
	int nr_cgroups;
	bool cgroup_auto;          /* --cgroup auto: the top-level cgroups with tasks */
	char sort[128];            /* --sort: "cpu", "pid", "command", an event or metric */
	const struct preset_resolved *resolved; /* the preset's choices and metrics, or NULL (-e) */
};

/* One cgroup counted on every CPU. */
struct session_cgroup {
	char path[256];  /* as shown: "/system.slice" */
	int dirfd;
	struct session_target *cpu; /* one per CPU (counter sets only) */
};

struct session_event {
	struct event_desc desc;
	int nr_open;   /* targets it opened on */
	int err;       /* first open errno, when it opened nowhere */
	char why[320]; /* why it does not count, "" when it does */
};

struct session_target {
	pid_t pid, tid;       /* -1 for CPU targets */
	int cpu;              /* -1 for task targets */
	struct counter_set cs;
	bool counted;         /* counters open */
	char note[48];        /* why not counted */
	bool denied;          /* not counted: the kernel refused it for permission */
	bool exited;          /* gone: shown once more, then dropped */
	bool shown_exited;    /* that once has been */
	int idle_ticks;       /* ticks in a row without CPU time */
	uint64_t starttime;
	uint64_t pstart;      /* start time of its process (tgid) */
	uint64_t open_ns;     /* when its counters opened, if after the start; else 0 */
	char comm[32];
	uid_t uid;
	uint64_t ticks, prev_ticks; /* /proc utime+stime */
	int statfd;                 /* its /proc stat file kept open, or -1 */
	bool refreshed;             /* its /proc figures are this tick's, and it is live */
	bool stat_read;             /* its stat has been read since its counters were enabled */
};

/* A task of the /proc scan (system-wide task table), kept from one tick to
 * the next. */
struct proc_sample {
	pid_t pid, tid;
	uint64_t starttime, ticks;
	double cpu_pct; /* over the last interval */
	bool stale;     /* ticks not read this time (counted, and staying so) */
	int fd;         /* its stat file kept open, or -1 */
	bool have_uid;  /* uid read (once in the task's life: pid + starttime) */
	uid_t uid;
};

struct session {
	struct session_config cfg;
	struct probe probe;
	enum model_mode mode;
	bool user_only;       /* events exclude the kernel */
	int nr_ev;
	struct session_event *ev;
	struct counters_event *cev;
	struct counters_config ccfg;
	struct metrics metrics;
	int nr_cpus;
	int cpus[SESSION_MAX_CPUS];
	int nr_targets, cap_targets;
	struct session_target *targets;
	int nr_fd_limited;    /* targets left uncounted for want of fds */
	long fd_budget;       /* counter fds allowed (RLIMIT_NOFILE less a reserve) */
	long fds_used;
	long nr_proc_fds;     /* /proc stat files kept open (targets and the scan), in the
	                       * budget: counters come first, these give way */
	pid_t self;           /* getpid() */
	int pidfd[256];       /* per cfg.pids entry, -1 when none */
	/* the command */
	pid_t child;
	int go_fd, exec_err_fd;
	bool child_done;
	int child_status;
	/* /proc figures from the previous tick */
	struct procfs_cpu *cpu_prev, *cpu_cur;
	int nr_cpu_prev, nr_cpu_cur;
	struct proc_sample *proc_prev, *proc_cur;
	int nr_proc_prev, nr_proc_cur, cap_proc;
	uint64_t start_ns, last_ns, now_ns;
	struct profile prof;
	struct taskwatch tw;  /* system-wide: new and exiting tasks, as they happen */
	bool tw_open;
	uint64_t tw_lost;     /* tw.lost at the last tick */
	bool started;         /* session_start() ran: new targets are enabled at once */
	struct proc_sample *cand; /* busy tasks without counters, this tick */
	int nr_cand, cap_cand;
	int nr_static_notes;
	char cgroup_root[256];
	int nr_cg;
	struct session_cgroup cg[64];
	uint64_t seq;       /* snapshots made */
	bool baseline;      /* the tick in session_start: no interval yet */
	bool partial;       /* this tick ends the last interval, cut short */
	bool stopped;       /* session_stop(): nothing counts any more */
	uint64_t stop_ns;   /* when it stopped: the end of the last interval */
	uint64_t missed;    /* refresh ticks skipped since the last tick */
	struct model model;
};

/*
 * Resolve the events, probe the machine, choose the mode, launch the command
 * (held before exec) and open every counter, disabled. Returns 0, or a
 * negative errno with one sentence in err (unknown event, no such process,
 * no access at all, ...). session_fini() must be called either way.
 */
int session_init(struct session *s, const struct session_config *cfg, char *err, size_t errlen);

/* Enable the counters and let the command exec. 0 or -errno (err says why:
 * e.g. the command could not be executed). */
int session_start(struct session *s, char *err, size_t errlen);

/* Work that can wait until the counters run (kernel symbols, the mappings
 * of existing processes): call it after session_start() so that it overlaps
 * the first interval. The first session_tick() does it otherwise. */
void session_prepare(struct session *s);

/* Read everything and rebuild s->model for the interval since the last tick
 * (final: totals since the start instead). 0 or -errno. */
int session_tick(struct session *s, bool final);

/*
 * The end of the run: stop every counter and the sampling, so that the last
 * interval (session_tick_partial) and the totals (session_tick(s, true))
 * read the same figures, and the interval snapshots add up to the totals.
 */
void session_stop(struct session *s);

/* The last interval: up to session_stop(), marked partial. 0 or -errno. */
int session_tick_partial(struct session *s);

/* n refresh ticks were skipped (a snapshot took longer than the interval):
 * the next interval is longer, and a note says why. */
void session_missed_ticks(struct session *s, uint64_t n);

/* Reap the command if it exited (call on SIGCHLD). True once it has. */
bool session_reap(struct session *s);

/* True when nothing is left to watch (every -p task and the command gone). */
bool session_done(const struct session *s);

/* The command's exit status as a shell reports it (128+signal). */
int session_exit_status(const struct session *s);

/* Calls fn with a pidfd for each -p process: it becomes readable when the
 * process exits. (A counting perf fd is no use for this: without a ring,
 * poll() reports EPOLLHUP at once.) */
void session_for_each_pidfd(struct session *s, void (*fn)(int fd, void *arg), void *arg);

/* The process behind pidfd exited: mark its threads exited (shown once more,
 * then dropped) and close the pidfd; the caller stops watching it first. */
void session_process_exited(struct session *s, int pidfd);

/* Ring fds of the task watcher (system-wide mode), and their drain. */
void session_for_each_watch_fd(struct session *s, void (*fn)(int fd, void *arg), void *arg);
void session_watch_drain(struct session *s, int fd);

/* preset_choose()/preset_check() adapters: can event (a name, or a resolved
 * desc) be opened here? 0, or -errno with the reason in why. arg is the
 * struct probe. */
int session_can_open(const char *event, char *why, size_t whylen, void *arg);
int session_can_open_desc(const struct event_desc *d, char *why, size_t whylen, void *arg);

/* Try to open each listed event alone on this process (or CPU 0 for CPU-wide
 * PMUs); 0 when it opens, else the errno. */
int session_try_open(const struct probe *p, const struct event_desc *d);

void session_fini(struct session *s);

#endif
