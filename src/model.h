/* model: plain data that the TUI and the snapshot writer both render. */
#ifndef PFMTOP_MODEL_H
#define PFMTOP_MODEL_H

#include "annotate.h"
#include "counters.h"

#define MODEL_MAX_METRICS 8

#define MODEL_SORT_CPU     (-1)
#define MODEL_SORT_PID     (-2)
#define MODEL_SORT_COMMAND (-3)
#define MODEL_SORT_METRIC  1000

/* The version of the JSON snapshot's layout ("schema_version"), documented
 * by packaging/schema/pfmtop-snapshot.schema.json: raised when a member
 * changes meaning or goes away, so that a reader can refuse what it would
 * misread. */
#define MODEL_SCHEMA_VERSION 1

#define MODEL_MONO_UNKNOWN UINT64_MAX

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum model_mode {
	MODEL_SYSTEM,  /* system-wide, per CPU */
	MODEL_TASKS,   /* -p PID,... or the user's own processes */
	MODEL_COMMAND, /* -- CMD */
};

enum model_row_kind {
	MODEL_ROW_CPU,
	MODEL_ROW_PROCESS,
	MODEL_ROW_THREAD,
	MODEL_ROW_TOTAL,
	MODEL_ROW_CGROUP,
};

/* One column of counters: an event as asked for and what became of it. */
struct model_event {
	char name[128];
	char encoding[256];
	char unit[16];            /* "ms" for clocks, sysfs unit, else "" */
	double scale;             /* multiply raw values by this for display */
	bool opened;              /* open on at least one target */
	int err;                  /* errno when it opened nowhere */
	char why[320];            /* why it is not supported / fell back, "" when fine */
	double coverage;          /* lowest coverage over targets this interval, 0..1 */
	enum counter_state state; /* worst state over the counted targets */
};

struct model_metric {
	char name[32];
	char title[32];  /* column title */
	char unit[8];    /* "%" or "" */
	char format[16]; /* printf format of one double, validated: "%.2f" */
	char why[320];   /* why it is not available here, "" when it is */
};

struct model_row {
	enum model_row_kind kind;
	int cpu;        /* CPU rows */
	pid_t pid, tid; /* task rows (tid == pid for processes) */
	pid_t ppid;     /* task rows: the parent process (/proc stat), 0 when not known */
	uint64_t start; /* the process's start time: tells a recycled PID apart */
	char comm[32];
	char user[32];
	int nr_threads;
	double cpu_pct; /* NaN when unknown */
	/* CPU rows: cpu_pct split (/proc/stat) into user (with nice), system,
	 * and other (irq, softirq, steal); NaN when unknown */
	double user_pct, sys_pct, other_pct;
	bool counted;                /* has counters (else /proc figures only) */
	bool exited;                 /* exited during this interval */
	double since_ms;             /* > 0: counted only from this many ms into the span (its
	                              * counters opened after the task started) */
	char note[48];               /* why not counted ("fd limit", ...) */
	char cgroup[128];            /* task rows: its cgroup (v2); cgroup rows: the cgroup */
	struct counter_value *cells; /* one per event */
	double *metrics;             /* one per metric, NaN = not available */
};

/*
 * One hotspot row: the samples of one group of the grouping keys
 * (model_sampling.hot_keys), e.g. one function of one module. A field
 * that is not a key holds the one value all the samples of the row share,
 * or shows that they differ: pid, tid, cpu -1, comm "" (symbol "" when
 * sym is not a key, module "" when neither sym nor dso is).
 */
struct model_hotspot {
	double share; /* percent of the weight of the rows it is ranked among */
	uint64_t samples;
	uint64_t weight; /* the samples' periods summed: what share is of */
	pid_t pid;
	bool kernel;
	char comm[32];
	char symbol[512]; /* "function", "module+0xOFF", "[unknown]", "[kernel]" */
	char module[64];
	/* with hot_keys set: */
	pid_t tid;     /* with tid among the keys, else -1 */
	int cpu;       /* -1: several CPUs (or not known) */
	int processes; /* distinct processes in the row */
	/* with -g (model_sampling.callchain): shares of the samples with a
	 * chain, like perf top --children; NaN when not known (tid or cpu
	 * among the keys, or a CPU filter: chains are kept per process) */
	double children; /* chains that hold the row's function anywhere */
	double self;     /* chains whose leaf it is */
	uint64_t ip;     /* an address in it (its heaviest): what annotate asks for */
};

/* Longest names a call path's frame keeps (bytes, NUL included). */
#define MODEL_FRAME_SYMBOL_MAX 512
#define MODEL_FRAME_MODULE_MAX 64

/* One frame of a call path: its names are kept once per model, in
 * model.frame_names (model_frame_symbol(), model_frame_module()), so that
 * a function on many paths costs its name once. */
struct model_frame {
	uint32_t symbol, module; /* offsets in model.frame_names (0: "") */
	bool kernel;
};

/* A call path of a hotspot row (-g): its function first, then its callers
 * toward the root (callee false) or what it called down to the leaf. */
struct model_callpath {
	int hot;      /* the row, an index into model.hot */
	bool callee;  /* callees instead of callers */
	double share; /* percent of the samples with a chain */
	uint64_t samples;
	int first, nr; /* frames[first .. first + nr) of model.frames */
};

/* The viewer's annotate screen: one function, its code and samples. */
struct model_annotation {
	bool active;     /* asked for (the lines may still be none: why says) */
	uint64_t id;     /* changes when another function is shown */
	char title[640]; /* "function [module] pid 123 comm", safe text */
	char check[ANNOTATE_WHY];
	char why[ANNOTATE_WHY]; /* no code: why */
	uint64_t samples;
	bool partial; /* counted only since the screen opened */
	int hottest;  /* line index, -1 */
	int nr_lines, cap_lines;
	struct annotate_line *lines;
};

/* Sampling health over a span (the interval, or the run). */
struct model_health_figures {
	uint64_t samples;
	uint64_t lost_records;    /* PERF_RECORD_LOST: the ring was full */
	uint64_t lost_samples;    /* the samples they dropped */
	uint64_t lost_samples_hw; /* PERF_RECORD_LOST_SAMPLES */
	uint64_t throttles;       /* PERF_RECORD_THROTTLE */
	uint64_t corrupt;         /* ring resynchronisations */
	bool throttled;           /* throttled at any time in the span */
};

struct model_ring {
	int cpu;   /* -1 for a per-task ring */
	pid_t pid; /* -1 for a CPU ring */
	struct model_health_figures interval, total;
	bool throttled_now;
};

struct model_sampling {
	bool enabled;
	char event[128];       /* what samples: "cycles", "cpu-clock", ... */
	char why[512];         /* why it stands in for cycles, "" if it does not */
	uint64_t freq, period; /* one of them is 0 */
	bool accumulated;      /* hotspots since the start, not this interval */
	bool hide_kernel, hide_user;
	pid_t filter_pid; /* hotspots of this process only, -1 all */
	int filter_cpu;   /* hotspots of this CPU only, -1 all */
	struct model_health_figures interval, total;
	int throttled_now;             /* rings throttled at the last drain */
	long max_rate, max_rate_start; /* perf_event_max_sample_rate now and at start */
	bool max_rate_lowered;
	/* Behind the hotspot shares: the weight and samples of the rows
	 * ranked (those that pass the filters), "other" included. */
	uint64_t total_weight, total_samples;
	/* The ranked rows not shown and the figures folded for room (keys of
	 * processes or names no longer kept): the shown rows' shares and this
	 * one's add up to 100. */
	struct model_hot_other {
		double share;
		uint64_t weight, samples;
		uint64_t folded; /* of samples: folded for room, in no row */
		int rows;        /* of the rows below the cut */
	} hot_other;
	char hot_keys[32];      /* the grouping keys ("dso,sym"); "" in recordings from
	                         * before they existed: rows per (pid, symbol) */
	bool callchain;         /* -g: rows carry children/self and call paths */
	uint64_t chain_samples; /* behind children, self and path shares */
	int nr_rings, cap_rings;
	struct model_ring *rings;
};

struct model {
	/* header */
	uint64_t seq;     /* snapshot number, from 1 */
	uint64_t wall_ns; /* time of the snapshot (CLOCK_REALTIME) */
	/* CLOCK_MONOTONIC since the run started (the counters were enabled) to
	 * the end of this span: unlike wall_ns, never jumps.
	 * MODEL_MONO_UNKNOWN when not known (a recording of an earlier build). */
	uint64_t mono_ns;
	double interval_s; /* measured length of this interval */
	bool final;        /* totals since start (command exit) */
	bool partial;      /* the last interval, cut short by the end of the run */
	char host[64];
	char kernel[128];
	enum model_mode mode;
	char target[128]; /* "CPUs 0-1", "PID 1234,5678", "command: make -j2" */
	int paranoid;
	char privilege[64]; /* "root", "CAP_PERFMON", "unprivileged" */
	char preset[32];
	int nr_notes;
	char notes[8][320]; /* fallbacks and limits, one sentence each */

	int nr_events;
	struct model_event *events;
	int nr_metrics;
	struct model_metric metrics[MODEL_MAX_METRICS];

	int nr_cpus, cap_cpus;
	struct model_row *cpus;
	int nr_tasks, cap_tasks;
	struct model_row *tasks; /* sorted by CPU% descending */
	int tasks_total;         /* tasks known before the top-N cut */
	bool tasks_counted;      /* task rows carry counters */
	double cpu_min;          /* system-wide: tasks at this CPU% or more get counters; -1 */
	/* /proc/loadavg: load averages over 1, 5 and 15 minutes (NaN unknown),
	 * runnable and all scheduling entities (threads) (-1 unknown) */
	double load[3];
	int tasks_running, tasks_all;
	struct model_row total;
	/* System-wide, with task counters on every CPU: what the CPUs counted
	 * that no task row holds (tasks without counters, before theirs
	 * opened, the idle time): task rows plus this add up to the total. */
	bool has_unattributed;
	struct model_row unattributed;
	int nr_cgroups, cap_cgroups;
	struct model_row *cgroups; /* --cgroup: one row per cgroup, summed over CPUs */
	bool show_cgroups;         /* task rows show their cgroup */

	int top_n;          /* task rows to render */
	int sort;           /* MODEL_SORT_* or an event index, or MODEL_SORT_METRIC + k */
	char sort_name[64]; /* as the header shows it */

	struct model_sampling sampling;
	int nr_hot, cap_hot;
	struct model_hotspot *hot; /* heaviest first */
	int hot_total;             /* distinct rows before the cut */
	int nr_paths, cap_paths;
	struct model_callpath *paths; /* -g: by row, callers first, heaviest first */
	int nr_frames, cap_frames;
	struct model_frame *frames;
	char *frame_names; /* the frames' names, NUL-terminated, from offset 1 */
	size_t nr_frame_names, cap_frame_names;
	struct model_annotation annot;
};

/* Set up m for nr_events events; 0 or -ENOMEM. */
int model_init(struct model *m, int nr_events);
void model_fini(struct model *m);

/* Empty the row tables (keeps their memory). */
void model_clear_rows(struct model *m);

/* Append a CPU or task row with cells and metrics reset; NULL on ENOMEM. */
struct model_row *model_add_cpu(struct model *m);
struct model_row *model_add_task(struct model *m);
struct model_row *model_add_cgroup(struct model *m);

/* Add a note line (printf format); silently drops past the limit. */
void model_note(struct model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sort task rows by m->sort: largest first (PID and command ascending),
 * values not available last, then by PID. */
void model_sort_tasks(struct model *m);

/* Turn a --sort name into m->sort: cpu, pid, command, an event or a metric
 * name. 0 or -EINVAL. */
int model_parse_sort(struct model *m, const char *name);

/* Append a hotspot row or a sampling ring (zeroed); NULL on ENOMEM. */
struct model_hotspot *model_add_hotspot(struct model *m);
struct model_ring *model_add_ring(struct model *m);

/*
 * Percentages (CPU%, hotspot shares) to 0.001: finer digits are noise (a
 * sample at 4000 Hz is 0.025%), and in a recording they cost a fifth of
 * every frame. Done once a snapshot is complete, so that every renderer
 * (and a replay) shows the same numbers.
 */
void model_round(struct model *m);

/* A shallow copy of m (its tables shared) with its first n hotspot rows,
 * to print fewer than it holds: the rows cut go to "other", so that the
 * shares still add up to 100. n < 0 or n >= nr_hot: all of them. */
struct model model_cut_hot(const struct model *m, int n);

/* Append a call path of nr frames (zeroed) to m; NULL on ENOMEM. The
 * first path after nr_frames went back to 0 empties the frames' names. */
struct model_callpath *model_add_path(struct model *m, int nr);

/* name (cut at max bytes, NUL included) kept in m's frame names: its
 * offset, for model_frame's symbol or module; 0 ("") when out of memory. */
uint32_t model_frame_name(struct model *m, const char *name, size_t max);

/* A frame's names (never NULL). */
const char *model_frame_symbol(const struct model *m, const struct model_frame *f);
const char *model_frame_module(const struct model *m, const struct model_frame *f);

/* Reset a row's cells to "not counted" and metrics to NaN. */
void model_row_reset(const struct model *m, struct model_row *r);

#endif
