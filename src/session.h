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
#define SESSION_DEFAULT_EVENTS                                                                     \
	"{cycles,instructions,cache-misses,branch-misses},task-clock,context-switches,"            \
	"cpu-migrations,page-faults"

#define SESSION_MAX_CPUS   4096
#define SESSION_FD_RESERVE 32 /* fds kept free for /proc, output, terminal */
#define SESSION_IDLE_TICKS                                                                         \
	10 /* a task idle this many ticks loses its counters                                       \
	    * (with --cpu-min above 0) */

/* --task-counters: how system-wide task rows are counted. */
enum session_task_counters {
	SESSION_TC_AUTO, /* BPF at context switch where it can be, else perf */
	SESSION_TC_BPF,  /* BPF, or an error saying why not */
	SESSION_TC_PERF, /* per-task counters (perf_event_open per task) */
};

struct session_config {
	struct events_list events; /* what to count (parsed -e, or the default) */
	char preset[32];           /* shown in the header */
	enum model_mode mode;      /* SYSTEM unless -p or a command */
	pid_t pids[256];           /* -p */
	int nr_pids;
	int cpus[SESSION_MAX_CPUS]; /* -C; nr_cpus == 0 means all online CPUs */
	int nr_cpus;
	bool threads;    /* -H: a row per thread */
	bool no_inherit; /* --no-inherit: children of -p / the command not counted */
	char **argv;     /* the command, NULL-terminated */
	uint64_t interval_ns;
	int top_n;
	struct profile_config profile; /* sampling and hotspots */
	double cpu_min; /* system-wide: count tasks using at least this CPU%; < 0 never */
	enum session_task_counters task_counters; /* --task-counters */
	char cgroups[16][256]; /* --cgroup paths (relative to the cgroup v2 mount) */
	int nr_cgroups;
	bool cgroup_auto; /* --cgroup auto: the top-level cgroups with tasks */
	char sort[128];   /* --sort: "cpu", "pid", "command", an event or metric */

	bool sort_fallback; /* a sort that is not a column: by CPU% (session_sort_note) */
	bool users_all;     /* USER and cgroup for every task row, not only the top N (the viewer,
	                     * --record) */
	const struct preset_resolved *resolved; /* the preset's choices and metrics, or NULL (-e) */
	const struct events_table *known; /* events resolved already (by the chooser), or NULL */
	const struct probe *probe;        /* the machine as probed, or NULL: session_init probes */
	const char *proc_root;            /* /proc is ROOT/proc (tests); NULL: the real one */
	int command_out;                  /* launch_fork()'s out: > 2 a file, LAUNCH_OUT_STDERR */
};

/* The engine (opaque): see session_priv.h for its parts. */
struct session;

/* A session to session_init() (and session_fini() after each use), freed
 * with session_free(). NULL on ENOMEM. */
struct session *session_new(void);
void session_free(struct session *s);

/* The model of the last tick, or (session_snapshot) NULL before the first
 * interval ended. */
const struct model *session_model(const struct session *s);

/* -g: the call chains since the start as collapsed stacks (profile_folded()). */
char *session_folded(struct session *s, size_t *len);
const struct model *session_snapshot(const struct session *s);

/* --annotate: the function's annotated text for the end of the run
 * (profile_annotated()); NULL without --annotate. */
char *session_annotated(struct session *s, size_t *len);

/* The viewer asked for another annotate screen (profile.annotate*): fill
 * the model's now instead of at the next tick. */
void session_annotate_now(struct session *s);

enum model_mode session_mode(const struct session *s);
const char *session_preset(const struct session *s);

/* With sort_fallback: why the tasks are sorted by CPU% and not by the
 * sort asked for (it is not a column of these events); "" when they are. */
const char *session_sort_note(const struct session *s);

/* The sampling rings: their fds to watch, and the drain of one. */
void session_for_each_ring_fd(struct session *s, void (*fn)(int fd, void *arg), void *arg);
void session_ring_drain(struct session *s, int fd);

/* Is the command running (launched, not yet reaped)? Send it sig if so. */
bool session_command_running(const struct session *s);
void session_signal_command(struct session *s, int sig);

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

/* Part-way through the first interval: profile_warm(). */
void session_warm(struct session *s);

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
