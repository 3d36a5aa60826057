/* events: event names (libpfm4, tracepoints, sysfs PMUs, raw) to perf_event_attr. */
#ifndef PFMTOP_EVENTS_H
#define PFMTOP_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

enum events_source {
	EVENTS_SRC_LIBPFM,     /* generic or PMU-specific name known to libpfm4 */
	EVENTS_SRC_TRACEPOINT, /* subsys:name from tracefs */
	EVENTS_SRC_SYSFS,      /* pmu/term=val,.../ from /sys/bus/event_source/devices */
	EVENTS_SRC_RAW,        /* rHEX */
	EVENTS_SRC_BREAKPOINT, /* mem:ADDR[/LEN][:rwx] */
};

#define EVENTS_NAME_MAX 128
#define EVENTS_ENC_MAX  256

/* One resolved event. Plain data: copy it freely. */
struct event_desc {
	char name[EVENTS_NAME_MAX];    /* as the user wrote it, modifiers included */
	char encoding[EVENTS_ENC_MAX]; /* canonical form: libpfm4 fstr, "sched:sched_switch
	                                  (tracepoint id 314)", "msr/event=0x0/ (type 9 config
	                                  0x0)", ... */
	char pmu[64];                  /* "perf", "amd64_fam19h_zen4", "msr", "tracepoint", "raw" */
	enum events_source source;
	/* Only type, size, config, config1, config2 and the exclude_* bits are
	 * set; the caller adds read_format, disabled, inherit and so on. */
	struct perf_event_attr attr;
	double scale;      /* sysfs EVENT.scale, else 1.0 */
	char unit[16];     /* sysfs EVENT.unit, else "" */
	char cpumask[128]; /* sysfs PMU cpumask ("0", "0,18"), "" when the PMU has none */
	bool hardware;     /* counts on a hardware PMU (needs a core/uncore PMU to open) */
	/* When events_resolve() refuses name: the part of it refused, from
	 * offset err_at for err_len characters (err_len 0: the whole name). */
	unsigned short err_at, err_len;
};

/* Open and initialise libpfm4 now; 0 or -EIO (message in err). Safe to call
 * twice. Never needed before the other calls: events_resolve() opens libpfm4
 * the first time a name needs it, and the kernel's generic events (cycles,
 * task-clock, ...) never do. */
int events_init(char *err, size_t errlen);

/* The names events_resolve() encodes itself, as libpfm4 would, without
 * loading libpfm4 (tests): the i-th, or NULL past the end. */
const char *events_builtin_name(int i);

/*
 * Where events are looked up: the directory that holds the PMU directories
 * (NULL: /sys/bus/event_source/devices) and a tracefs root (NULL:
 * /sys/kernel/tracing, then /sys/kernel/debug/tracing). Every function that
 * takes one reads the running machine for a NULL pointer; tests point them
 * at fixture trees.
 */
struct event_roots {
	const char *pmu_devices;
	const char *tracefs;
};

/* The tracefs root in use (holds events/), or NULL when tracefs is not
 * mounted at any known place. */
const char *events_tracefs(const struct event_roots *r);

/* When tracefs is mounted at a default place but this user may not read it
 * (mode 0700): -EACCES with one sentence in buf naming its mode; else 0. */
int events_tracefs_denied(const struct event_roots *r, char *buf, size_t len);

/*
 * Resolve one event name (no braces, no commas) into *out. Accepted forms:
 *   libpfm4 names: cycles, task-clock, INST_RETIRED:ANY_P, pmu::EVENT:UMASK
 *   tracepoints:   sched:sched_switch
 *   sysfs PMUs:    msr/tsc/, cpu/event=0x3c,umask=0x0/, pmu/alias,term=val/
 *   raw:           r1a8, r0x1a8
 * each optionally followed by :u (user only), :k (kernel only), :uk.
 * Returns 0, -ENOENT (no such event on this machine, or a libpfm4 name when
 * libpfm4 cannot be loaded), -EINVAL (malformed), or -ENODEV (tracefs not
 * mounted / PMU missing); err gets one sentence that says what to do.
 */
int events_resolve(const struct event_roots *r, const char *spec, struct event_desc *out, char *err,
                   size_t errlen);

/* Events resolved once, by name: a preset's chooser fills it as it tries
 * names, and the session takes what the chooser found instead of resolving
 * each name again. Failures are kept too (ret, why). */
struct events_table {
	struct events_entry {
		struct event_desc desc; /* desc.name is the name asked for */
		int ret;                /* events_resolve()'s result */
		char why[256];          /* its sentence when ret != 0 */
	} * e;
	int nr, cap;
};

/* events_resolve() through t: the kept result for a name seen before, else
 * resolved now and kept. */
int events_table_resolve(struct events_table *t, const struct event_roots *r, const char *name,
                         struct event_desc *out, char *err, size_t errlen);

/* The entry for name, or NULL (t may be NULL). */
const struct events_entry *events_table_find(const struct events_table *t, const char *name);

/* What e holds, as events_resolve() returned it: *out, and ret with its
 * sentence in err. */
int events_entry_result(const struct events_entry *e, struct event_desc *out, char *err,
                        size_t errlen);

void events_table_free(struct events_table *t);

/* A parsed -e list: names in order, each with the index of its group.
 * "{a,b},c" gives a:0 b:0 c:1. Events outside braces are groups of one.
 * Each name remembers where it was written, for errors that point at it:
 * the string parsed (src, NULL for a list built otherwise; the caller keeps
 * it alive), the offset and length of the name in it (at, len), and of the
 * modifiers of its group (mods_at, mods_len; len 0: none). A tracepoint
 * glob's tracepoints all point at the glob. */
#define EVENTS_LIST_MAX 64
struct events_list {
	int nr;
	char name[EVENTS_LIST_MAX][EVENTS_NAME_MAX];
	int group[EVENTS_LIST_MAX];
	int nr_groups;
	const char *src[EVENTS_LIST_MAX];
	unsigned short at[EVENTS_LIST_MAX], len[EVENTS_LIST_MAX];
	unsigned short mods_at[EVENTS_LIST_MAX], mods_len[EVENTS_LIST_MAX];
};

/* Parse a comma list with {} groups (no nesting). 0 or -EINVAL with a
 * message naming the column of the problem in err. Appends to *out, so
 * several -e options accumulate; zero *out before the first call. */
int events_parse_list(const char *list, struct events_list *out, char *err, size_t errlen);

/* Append to buf (holding a message) the string list on a line of its own
 * and a caret under list[at, at + span): "\n  LIST\n  ^~~~". 0, or -1 with
 * buf unchanged when it does not fit, or the list is too long for a line
 * or holds bytes other than plain text. A caret under the whole list points
 * at nothing the message does not name: 0, buf unchanged (one line). */
int events_caret(char *buf, size_t len, const char *list, size_t at, size_t span);

/* Append to buf where event i of l was written, as events_caret() draws
 * it: under the part of its name from offset part_at for part_len
 * characters (part_len 0: the whole name), as events_resolve() reports
 * them in err_at and err_len. 0, or -1 with buf unchanged when l does not
 * know where the event came from or the caret cannot be drawn. */
int events_list_caret(const struct events_list *l, int i, size_t part_at, size_t part_len,
                      char *buf, size_t len);

/* Where event i of l was written, as a 1-based column of l->src[i], or 0
 * when l does not know. */
int events_list_column(const struct events_list *l, int i, size_t part_at);

/* Replace each tracepoint glob of l (sched:sched_*, *:sched_switch, with
 * optional modifiers) by the tracepoints it matches, in order, each an
 * event of its own (or of the glob's group). 0, or -errno with a sentence
 * in err (tracefs not mounted, nothing matches, more than EVENTS_LIST_MAX),
 * followed by the list and a caret under the glob when l knows where it
 * was written. */
int events_expand_globs(const struct event_roots *r, struct events_list *l, char *err,
                        size_t errlen);

/* Called once per listed event: name (usable with events_resolve), a short
 * description (may be ""), and the source. Return non-zero to stop. */
typedef int (*events_list_cb)(const char *name, const char *desc, enum events_source src,
                              void *arg);

/* List events this machine offers whose name matches glob (fnmatch, NULL =
 * all): libpfm4 events of detected PMUs (none when libpfm4 cannot be loaded:
 * see events_init()), sysfs PMU events (as pmu/event/), tracepoints (when
 * tracefs is mounted). Returns the number listed or a negative errno. */
int events_list(const struct event_roots *r, const char *glob, events_list_cb cb, void *arg);

#endif
