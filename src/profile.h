/* profile: sampling, hotspots and symbols tied together and rendered into the model. */
#ifndef PFMTOP_PROFILE_H
#define PFMTOP_PROFILE_H

#include "calltree.h"
#include "hotkeys.h"
#include "hotspots.h"
#include "model.h"
#include "sampler.h"
#include "symbols.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct procfs;
struct unwind;

struct probe;
struct profile_strtab;
struct profile_tree;

struct profile_config {
	bool enabled;          /* false: no sampling at all (--no-hotspots) */
	uint64_t freq, period; /* -F / -c; both 0 = the sampler's default */
	const char *event;     /* --sample-event NAME, NULL = cycles or cpu-clock */
	unsigned mmap_pages;   /* --mmap-pages, 0 = default */
	int top;               /* hotspot rows in the model */
	bool accumulated;      /* since the start instead of this interval */
	bool hide_kernel, hide_user;
	bool raw_names; /* --no-demangle: C++ and Rust names as the binary has them */
	bool callchain; /* -g: samples carry call chains (folded output, call trees) */
	/* --hot-sort: the keys rows are grouped by, a list hotkeys_parse()
	 * takes ("" = HOTKEYS_DEFAULT); read each tick like the fields above.
	 * tid among the keys at profile_open() makes the table per thread. */
	/* --call-graph dwarf[,SIZE]: with callchain, bytes of user stack copied
	 * per sample and unwound here with its CFI (0: frame pointers). */
	uint32_t dwarf_stack;
	char hot_keys[HOTKEYS_TEXT_MAX];
	/* Hotspots of one process and/or one CPU only (the viewer's Enter on a
	 * task or CPU row). Read each tick like the fields above; with filter
	 * false the pid and cpu are ignored, else -1 in either means "any". */
	bool filter;
	pid_t filter_pid;
	int filter_cpu;
	/* --annotate NAME: the per-instruction samples of each function of
	 * that name that is sampled (profile_annotated() writes them). */
	const char *annotate_symbol;
	/* The viewer's annotate screen: the function holding annotate_ip
	 * (kernel, or in process annotate_pid), into model.annot each tick. */
	bool annotate;
	pid_t annotate_pid;
	uint64_t annotate_ip;
	bool annotate_kernel;
};

/* One function being annotated: its code and its watch in the hotspot table. */
struct profile_annot {
	bool used;
	pid_t pid; /* 0 for the kernel: every process */
	bool kernel;
	int watch;
	uint64_t lo, hi; /* running addresses */
	char comm[16];
	struct symbols_code *code;
	struct annotate a;
};

struct profile_comm {
	uint32_t pid1;   /* pid + 1; 0: an empty slot */
	uint32_t serial; /* the process instance: another one for a recycled pid */
	char comm[16];
};

/* Processes whose names are kept (open addressing, a power of two): every
 * process named, running or gone (the call trees and folded stacks name
 * theirs at the end of a run). Past 3/4 of it, the entries of processes
 * that are gone and whose rows are retired are dropped. */
#define PROFILE_COMMS 32768u

/* Entries of the table of keys that left the hotspot table (56 bytes each):
 * past it, the lighter half keep their command but not their process, then
 * become "other" (profile_retired.c). */
#define PROFILE_RETIRED_MAX (1u << 15)
/* Bytes of names they hold at most (their functions' modules and names). */
#define PROFILE_RETIRED_NAMES_MAX ((size_t)4 << 20)
struct profile_retired;

/* A process whose mappings were read again in some tick. */
struct profile_scan {
	pid_t pid;
	uint32_t tick;
};

struct profile {
	const struct profile_config *cfg; /* the session's configuration: read live */
	struct procfs *proc;              /* the session's /proc reader */
	bool open;
	bool prepared; /* kernel symbols loaded and existing processes scanned */
	bool scan_all; /* profile_prepare() reads every process's mappings */
	struct sampler samp;
	struct hotspots hot;
	struct stacks stacks; /* -g: the call chains */
	struct symbols *sym;
	struct unwind *unwind;     /* --call-graph dwarf */
	struct hotspots_row *rows; /* query scratch */
	int cap_rows;
	struct profile_comm comms[PROFILE_COMMS]; /* pid -> command name and instance */
	uint32_t nr_comms;
	uint32_t ticks;                  /* profile_tick() calls */
	uint32_t serial_clock;           /* the last process serial given */
	uint32_t exited[1024];           /* processes that exited since the last tick */
	int nr_exited;                   /* past ARRAY_SIZE(exited): more than it holds */
	struct profile_scan scans[256];  /* pid -> the last tick it was scanned, direct-mapped */
	struct hotkeys keys;             /* this tick's grouping */
	struct profile_strtab *names;    /* this tick's names, as numbers for grouping */
	struct profile_tree *tree;       /* functions of rows and chains, by name */
	struct profile_retired *retired; /* keys that left the table, named */
	uint64_t retired_lost_weight, retired_lost_samples; /* no room even there: other */
	struct profile_annot annots[HOTSPOTS_MAX_WATCH];    /* --annotate's functions */
	struct profile_annot view;                          /* the viewer's */
	uint64_t view_id;
};

/* Ring pages per CPU with --call-graph dwarf when --mmap-pages is not given:
 * each sample carries its stack copy (8 KiB by default), 64 times the
 * plain sample's size. */
#define PROFILE_DWARF_PAGES 512

/* Where to sample: the counters' targets and how they count. */
struct profile_where {
	const struct sampler_target
	    *targets; /* CPUs, or tasks (with inherit: their children too) */
	int nr_targets;
	bool inherit;        /* tasks: follow the children they start */
	bool enable_on_exec; /* a command: from its exec */
	bool user_only;      /* exclude the kernel (paranoid 2, unprivileged) */
	const int *cpus;     /* the CPUs a task is followed on */
	int nr_cpus;
	const struct probe *probe;
	struct procfs *proc; /* the caller's /proc reader */
	const pid_t *pids;   /* processes whose existing mappings are read now (the others
	                      * when their samples are first shown) */
	int nr_pids;         /* -1: every process, in profile_prepare() */
	/* The profile is all zero already (in a cleared session, or after
	 * profile_close()): not cleared again, its ~100 KB being page faults
	 * at the start. */
	bool zeroed;
};

/*
 * Open the sampling events where w says and map their rings. Returns 0, or
 * -errno with a sentence in err; a failure to sample is not fatal to the
 * caller, which can go on counting.
 */
int profile_open(struct profile *p, const struct profile_config *cfg, const struct profile_where *w,
                 char *err, size_t errlen);

/* The slow part of opening, kept apart so that a caller can do it while
 * the first interval runs: load the kernel's symbols and, system-wide, read
 * every process's mappings. The first profile_tick() does it if no one did. */
void profile_prepare(struct profile *p);

/* Part-way through an interval: take in the samples so far and name their
 * code, so that the symbol tables they need are read while the interval
 * runs and not at its end (the viewer's first frame waits for them). The
 * interval's figures are the same as without it. */
void profile_warm(struct profile *p);

/* Enable sampling (no-op with enable_on_exec). */
int profile_enable(struct profile *p);

/* Stop sampling: what the rings hold is still drained at the next tick. */
int profile_disable(struct profile *p);

/* The ring fds to watch for EPOLLIN. */
void profile_for_each_fd(struct profile *p, void (*fn)(int fd, void *arg), void *arg);

/* Drain one ring (fd) after EPOLLIN, or all (-1). */
void profile_drain(struct profile *p, int fd);

/* Drain everything, close the interval and write the hotspot table and the
 * sampling health into m (totals: hotspots since the start, whatever the
 * configuration says). Rows are merged by symbol through the hotspot
 * table's cache of symbols (a key is resolved once); only the rows shown
 * are named. Then the table is trimmed back to its soft cap. */
void profile_tick(struct profile *p, struct model *m, bool totals);

void profile_close(struct profile *p);

/* profile_annotate.c: after a tick's rows (p->rows[0..n), merged by
 * symbol) are known: watch the functions --annotate names, and fill
 * m->annot for the viewer. */
void profile_annotate_tick(struct profile *p, struct model *m, int n);

/* The viewer's request changed: fill m->annot now. */
void profile_annotate_now(struct profile *p, struct model *m);

/*
 * --annotate: the annotated text of the function, for the end of the run:
 * the heaviest instance in full (title, build-id check, samples, the code
 * with its shares, hottest marked), then one line per other process it was
 * sampled in; or one line saying why there is none. malloc'd, *len bytes.
 */
char *profile_annotated(struct profile *p, size_t *len);

/* Free the annotations (profile_close() does). */
void profile_annotate_free(struct profile *p);

/*
 * The call chains since the start as collapsed stacks, the input of
 * flamegraph.pl, inferno and speedscope: a line "comm;root;...;leaf count"
 * per distinct chain of names (chains that name the same functions are
 * one line), sorted. Kernel frames end in "_[k]". In a malloc'd buffer of
 * *len bytes; NULL with errno set (EINVAL without -g).
 */
char *profile_folded(struct profile *p, size_t *len);

/* What the grouping's and call trees' tables of names hold (profile_hot.c):
 * bytes allocated, functions and frames known, and the times they started
 * over to stay within their bounds (README, "Memory"). */
struct profile_memory {
	size_t bytes;
	uint32_t functions, frames;
	uint64_t folds;
};
void profile_hot_memory(const struct profile *p, struct profile_memory *out);

#endif
