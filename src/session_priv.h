/* session_priv.h: the parts of the engine (session*.c) and what they share.
 * Only session*.c and the engine's unit tests include it. */
#ifndef PFMTOP_SESSION_PRIV_H
#define PFMTOP_SESSION_PRIV_H

#include "launch.h"
#include "runwatch.h"
#include "session.h"
#include "taskbpf.h"

/* One cgroup counted on every CPU. */
struct session_cgroup {
	char path[256]; /* as shown: "/system.slice" */
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
	pid_t pid, tid; /* -1 for CPU targets */
	int cpu;        /* -1 for task targets */
	struct counter_set cs;
	bool counted;      /* counters open */
	char note[48];     /* why not counted */
	bool denied;       /* not counted: the kernel refused it for permission */
	bool exited;       /* gone: shown once more, then dropped */
	bool shown_exited; /* that once has been */
	int idle_ticks;    /* ticks in a row without CPU time */
	uint64_t starttime;
	pid_t ppid;       /* its parent process, from its stat */
	uint64_t pstart;  /* start time of its process (tgid) */
	uint64_t open_ns; /* when its counters opened, if after the start; else 0 */
	char comm[32];
	uid_t uid;
	uint64_t ticks, prev_ticks; /* /proc utime+stime */
	int nr_threads;             /* of its process, from its last stat read */
	int statfd;                 /* its /proc stat file kept open, or -1 */
	bool refreshed;             /* its /proc figures are this tick's, and it is live */
	bool stat_read;             /* its stat has been read since its counters were enabled */
	uint64_t bpf_task; /* its entry in the BPF map (task_struct address), 0: none yet */
	bool bpf_final;    /* exited and shown: kept one tick more for its last slice */
	bool bpf_dead;     /* its entry has its final switch: nothing more comes */
};

/* A task of the /proc scan (system-wide task table), kept from one tick to
 * the next. */
struct proc_sample {
	pid_t pid, tid;
	uint64_t starttime, ticks;
	double cpu_pct; /* over the last interval */
	bool stale;     /* ticks not read this time (counted, and staying so) */
	int nr_threads; /* of its process, from its stat (0: not known) */
	int fd;         /* its stat file kept open, or -1 */
	bool have_uid;  /* uid read (once in the task's life: pid + starttime) */
	uid_t uid;
};

/* A task the task watcher saw start (tid == pid: a process). */
struct proc_born {
	pid_t pid, tid;
};

/* struct session.clean when every other byte is zero. */
#define SESSION_CLEAN 0x636c65616e736573ull

struct session {
	/* SESSION_CLEAN after session_new() and session_fini(), which leave
	 * the rest zero: session_init() need not clear the ~200 KB again
	 * (each page it writes is a page fault at the start). Anything else
	 * (a session of the caller's, or one in use) is cleared. */
	uint64_t clean;
	char sort_note[200];              /* session_sort_note() */
	const struct session_config *cfg; /* the caller's: read live (the viewer changes it) */
	struct probe probe;
	enum model_mode mode;
	bool user_only; /* events exclude the kernel */
	int nr_ev;
	struct session_event *ev;
	struct counters_event *cev;
	struct counters_config ccfg;
	struct metrics metrics;
	int nr_cpus;
	int cpus[SESSION_MAX_CPUS];
	int nr_targets, cap_targets;
	struct session_target *targets;
	/* find_target(): tid -> index of its newest target, for the targets
	 * below nr_indexed (those after are searched one by one); slots of
	 * index + 1, 0 empty; cap_index a power of two, or 0 */
	int *index, cap_index, nr_indexed;
	int nr_fd_limited; /* targets left uncounted for want of fds */
	long fd_budget;    /* counter fds allowed (RLIMIT_NOFILE less a reserve) */
	long fds_used;
	long nr_proc_fds; /* /proc stat files kept open (targets and the scan), in the
	                   * budget: counters come first, these give way */
	pid_t self;       /* getpid() */
	int pidfd[256];   /* per cfg.pids entry, -1 when none */
	/* the command */
	struct launch cmd;
	/* /proc figures from the previous tick */
	struct procfs_cpu *cpu_prev, *cpu_cur, *cpu_base; /* base: the baseline's */
	int nr_cpu_prev, nr_cpu_cur, nr_cpu_base;
	struct proc_sample *proc_prev, *proc_cur;
	int nr_proc_prev, nr_proc_cur, cap_proc;
	uint64_t start_ns, last_ns, now_ns;
	struct profile prof;
	struct taskwatch tw; /* system-wide: new and exiting tasks, as they happen */
	/* Task counts from BPF at context switch (session_bpf.c). */
	struct taskbpf bpf;
	bool bpf_on;
	bool *bpf_fed;     /* per event: read by the BPF program */
	char bpf_why[200]; /* why not in force (auto), "" when it is or was not tried */
	bool tw_open;
	uint64_t tw_lost; /* tw.lost at the last tick */
	/* Which tasks ran, to skip the counter reads of those that did not
	 * (session_refresh_targets()): open while many tasks are counted. */
	struct runwatch rw;
	bool rw_open;
	bool rw_armed;            /* open during a tick's reads: its records cover
	                           * everything since each task's last read */
	bool rw_events_ok;        /* every event counts only while its task runs */
	int rw_wait;              /* ticks before it may open again */
	int rw_min;               /* counted tasks for it to open: SESSION_RUNWATCH_MIN */
	uint64_t rw_skipped;      /* counter reads skipped, over the session */
	bool started;             /* session_start() ran: new targets are enabled at once */
	struct proc_sample *cand; /* busy tasks without counters, this tick */
	int nr_cand, cap_cand;
	int nr_static_notes;
	char cgroup_root[256];
	int nr_cg;
	struct session_cgroup cg[64];
	uint64_t seq;                 /* snapshots made */
	bool baseline;                /* the tick in session_start: no interval yet */
	bool partial;                 /* this tick ends the last interval, cut short */
	bool stopped;                 /* session_stop(): nothing counts any more */
	uint64_t stop_ns;             /* when it stopped: the end of the last interval */
	uint64_t missed;              /* refresh ticks skipped since the last tick */
	struct procfs proc;           /* how /proc is read */
	struct procfs_ids pids, tids; /* /proc listings, reused every tick */
	/* The processes of the /proc scan without listing /proc each tick: */
	struct procfs_ids seen; /* those the last scan found (sorted) */
	struct proc_born *born; /* tasks the task watcher saw start since */
	int nr_born, cap_born;
	bool born_lost;     /* one of them could not be kept: list /proc */
	bool listed;        /* this scan listed /proc (and each process's threads) */
	int list_age;       /* scans since /proc was last listed */
	uint64_t list_lost; /* tw.lost at that listing */
	struct model model;
	uint64_t heap_tidy_ns; /* util_heap_tidy(): the last time the heap was given back */
};

/* session_cgroups.c: --cgroup, counted on every CPU. */
int session_open_cgroups(struct session *s, char *err, size_t errlen);
void session_cgroup_rows(struct session *s, bool final);

/* session_events.c: the event table, resolved once, described once. */
bool session_is_clock(const struct perf_event_attr *a);
bool session_kernel_context_only(const struct perf_event_attr *a);
int session_resolve_events(struct session *s, char *err, size_t errlen);
void session_preset_notes(struct session *s);
void session_describe_events(struct session *s);

/* session_proc.c: the system-wide /proc task table and the choice of
 * tasks to count. */
#define SESSION_LIST_TICKS 10    /* /proc listed whole at least every this many scans */
#define SESSION_BORN_MAX   65536 /* new processes kept between scans; more: /proc listed */
void session_proc_rows(struct session *s, double interval_s);
/* Task tid of process pid started (the task watcher saw its fork): the
 * next scan reads it. */
void session_proc_born(struct session *s, pid_t pid, pid_t tid);
int session_row_uid(struct session *s, const struct model_row *r, uid_t *uid);
void session_select_tasks(struct session *s);

/* session_rows.c: counters aggregated into the model's rows. */
void session_cell_add(struct counter_value *acc, const struct counter_value *v, bool first);
void session_target_cells(const struct session *s, const struct session_target *t, bool final,
                          struct counter_value *out);
void session_counted_rows(struct session *s, bool final, double interval_s);
void session_cpu_rows(struct session *s, bool final, double interval_s);
void session_header(struct session *s, uint64_t now, double interval_s, bool final);
void session_static_notes(struct session *s);
/* Notes on the tables of names that started over or were cut to stay
 * within their bounds, since the start (each tick). */
void session_memory_notes(struct session *s);
void session_event_states(struct session *s);
void session_unattributed_row(struct session *s);

/* session_bpf.c: per-task counts taken by BPF at every context switch. */
int session_bpf_open(struct session *s, char *err, size_t errlen);
int session_bpf_target(struct session *s, struct session_target *t, pid_t pid);
void session_bpf_feed(struct session *s);
void session_bpf_forget(struct session *s, const struct session_target *t);
void session_bpf_note(struct session *s);
void session_bpf_close(struct session *s);

/* session_targets.c: what is counted (CPUs, tasks) and the fd budget. */
void session_on_fork(pid_t pid, pid_t tid, pid_t ppid, void *arg);
void session_on_exec(pid_t pid, pid_t tid, const char *comm, void *arg);
void session_on_exit(pid_t pid, pid_t tid, void *arg);
long session_fd_budget(const struct probe *p);
void session_proc_fd_close(struct session *s, int *fd);
int session_stat_kept(struct session *s, pid_t pid, pid_t tid, int *fd, struct procfs_task *pt);
bool session_drops(const struct session *s, const struct session_target *t, bool shown_exited);
struct session_target *session_add_target(struct session *s);
int session_online_cpus(struct session *s, char *err, size_t errlen);
int session_pids_denied(struct session *s, char *err, size_t errlen);
void session_open_target(struct session *s, struct session_target *t, pid_t pid, int cpu);
int session_add_process(struct session *s, pid_t pid, char *err, size_t errlen);
int session_own_processes(struct session *s, char *err, size_t errlen);
bool session_count_task(struct session *s, pid_t pid, pid_t tid, pid_t parent);
void session_drop_exited(struct session *s);
void session_refresh_targets(struct session *s);
/* The run watch (struct runwatch): opened while at least SESSION_RUNWATCH_MIN
 * tasks are counted, closed for SESSION_RUNWATCH_WAIT ticks when an
 * interval brings more than SESSION_RUNWATCH_RECORDS switch records a
 * counted task (then the reads cost less than the records). */
#define SESSION_RUNWATCH_MIN     256
#define SESSION_RUNWATCH_RECORDS 4
#define SESSION_RUNWATCH_WAIT    60
void session_runs_init(struct session *s);
void session_runs_close(struct session *s);

#endif
