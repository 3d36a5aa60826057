/* preset: named event presets from INI files: grouped events, fallbacks, metrics, PMU variants. */
#ifndef PFMTOP_PRESET_H
#define PFMTOP_PRESET_H

#include "events.h"
#include "expr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * File format (the user-facing description is packaging/presets-format.md):
 *
 *   ; comment (also '#'; " ;" after a value starts a comment too)
 *   [preset ipc]
 *   description = Instructions per cycle
 *   events = {cycles, instructions}, task-clock
 *   fallback.task-clock = cpu-clock
 *   metric.IPC = instructions / cycles
 *   metric.IPC.format = %.2f
 *   metric.IPC.unit =
 *   metric.IPC.title = IPC
 *   sort = IPC
 *
 *   [preset ipc:amd64_fam19h_zen4]          ; variant, used when that PMU is detected
 *   events = {cycles, instructions, RETIRED_OPS}, task-clock
 *   metric.IPC = instructions / cycles
 *   metric.OPC = RETIRED_OPS / cycles
 *
 * - Section names: "preset NAME" ([A-Za-z0-9_-], at most 31 characters) or
 *   "preset NAME:PMUS", a variant of NAME in the same file. PMUS is a comma
 *   list of libpfm4 PMU names or fnmatch() globs (amd64_fam19h_zen4,
 *   amd64_fam19h_*, skl, icl). A variant applies when a pattern matches one of
 *   the detected PMU names; the most specific one wins: the matching pattern
 *   with the most non-wildcard characters (an exact name beats any glob), the
 *   earlier section on a tie. libpfm4 has no vendor-wide names (Intel core
 *   PMUs are called skl, icl, spr, ...), so "intel" matches nothing: list the
 *   PMUs, or glob them.
 * - A variant replaces, each as a whole, the description, events, fallbacks,
 *   metrics and sort of its base when it sets them (setting one metric.*
 *   replaces all the metrics), and inherits the rest. Inherited fallbacks for
 *   events the variant no longer lists are ignored.
 * - events: a -e style list (events_parse_list): {} groups, commas. Names are
 *   not resolved when loading (presets travel between machines); at most 64.
 * - fallback.EVENT = A, B: when EVENT cannot be opened here, try A, then B;
 *   when none opens, EVENT is dropped and the reason kept. EVENT must be
 *   listed in events; a fallback must not be listed itself nor be a fallback
 *   of another event. EVENT may be `quoted` when it contains '='.
 * - metric.NAME = EXPR (see expr.h); NAME is [A-Za-z][A-Za-z0-9_%/-]*, at most
 *   31 characters; every name in EXPR must be an event of the preset (as
 *   written in events, not a fallback); at most 8 metrics. metric.NAME.format
 *   is a printf conversion for one double (default "%.2f"),
 *   metric.NAME.unit at most 7 characters, metric.NAME.title the column title
 *   (default NAME). Metric values are computed from the counts of one interval
 *   (scaled for multiplexing); clocks count nanoseconds.
 * - sort: the metric or event the task table sorts by (default: the view's).
 * - Keys are not indented: an indented line continues the previous value
 *   (joined with one space), e.g. a long events list.
 * - Errors: unknown section or key, duplicate key, duplicate section in one
 *   file, a variant without its base, empty events, bad list or expression,
 *   a metric using a name that is not an event of the preset, and so on. Each
 *   names file:line[:col]; one error rejects the whole file.
 */

#define PRESET_NAME_MAX        32
#define PRESET_PMU_MAX         128
#define PRESET_DESC_MAX        160
#define PRESET_FALLBACKS_MAX   4
#define PRESET_METRICS_MAX     8 /* what the model shows (MODEL_MAX_METRICS) */
#define PRESET_METRIC_NAME_MAX 32
#define PRESET_UNIT_MAX        8
#define PRESET_FORMAT_MAX      16
#define PRESET_EXPR_TEXT_MAX   512
#define PRESET_PATH_MAX        512
#define PRESET_WHY_MAX         320

/* Where a preset came from; later places override earlier ones by name. */
enum preset_origin {
	PRESET_ORIGIN_BUILTIN, /* compiled in from src/presets/ */
	PRESET_ORIGIN_DATADIR, /* <datadir>/pfmtop/presets */
	PRESET_ORIGIN_SYSCONF, /* /etc/pfmtop/presets.d */
	PRESET_ORIGIN_USER,    /* $XDG_CONFIG_HOME/pfmtop/presets.d */
	PRESET_ORIGIN_FILE,    /* a file named on the command line */
};

struct preset_event {
	char name[EVENTS_NAME_MAX]; /* as listed in events */
	int group;                  /* 0-based, as events_parse_list numbers them */
	int nr_fallbacks;
	char fallback[PRESET_FALLBACKS_MAX][EVENTS_NAME_MAX]; /* tried in order */
};

struct preset_metric {
	char name[PRESET_METRIC_NAME_MAX];
	char title[PRESET_METRIC_NAME_MAX]; /* column title, defaults to name */
	char unit[PRESET_UNIT_MAX];         /* "" when none */
	char format[PRESET_FORMAT_MAX];     /* printf format for one double, "%.2f" by default */
	char text[PRESET_EXPR_TEXT_MAX];    /* the expression, canonical form (expr_format) */
	struct expr expr;                   /* names are event names of the preset */
	int line;                           /* of metric.NAME in file */
};

/* One preset, or one PMU variant with its base already merged in. Plain
 * data: copy it freely. */
struct preset {
	char name[PRESET_NAME_MAX];
	char pmu[PRESET_PMU_MAX]; /* variant: its PMU patterns ("a, b*"); "" for a base preset */
	char description[PRESET_DESC_MAX];
	char sort[EVENTS_NAME_MAX]; /* "" = the view's default */
	int nr_events, nr_groups;
	struct preset_event ev[EVENTS_LIST_MAX];
	int nr_metrics;
	struct preset_metric metric[PRESET_METRICS_MAX];
	enum preset_origin origin;
	char file[PRESET_PATH_MAX];    /* path, or "builtin:NAME.ini" */
	int line;                      /* of the section header */
	bool overrides;                /* replaced a preset of this name from an earlier place */
	enum preset_origin overridden; /* that place, when overrides */
};

/* Where a file was rejected. file:line:col, 0 when unknown. */
struct preset_error {
	char file[PRESET_PATH_MAX];
	int line, col;
	char msg[256];
	char src[256]; /* the source line (without newline), "" when none */
};

#define PRESET_FILE_NAMES 64

/* One file of the search path as preset_load_all() found it: loaded, or
 * skipped with its error. A directory that was not read (not owned by root
 * or the user, writable by others) is one too. */
struct preset_file {
	char path[PRESET_PATH_MAX];
	enum preset_origin origin;
	int ret;                 /* 0 loaded; else -errno (-EINVAL: malformed) */
	struct preset_error err; /* ret != 0: where and why */
	/* ret != 0: the [preset NAME] sections the text seems to declare (the
	 * file was read but did not load), and whether there were more. */
	int nr_names;
	bool more_names;
	char names[PRESET_FILE_NAMES][PRESET_NAME_MAX];
};

/* Presets by name. p holds each base preset followed by its variants, in
 * load order (an overriding preset takes the place of the one it replaces).
 * files lists what preset_load_all() read, in order. */
struct preset_set {
	int nr, cap;
	struct preset **p; /* each allocated on its own: moved, never copied */
	int nr_files, cap_files;
	struct preset_file *files;
	/* Loaded with preset_paths.only: built-in presets of other names were
	 * left out (preset_base_names() still lists them). */
	bool partial;
};

/* Search path for preset_load_all; an empty string skips that place. */
struct preset_paths {
	bool builtin;                  /* the compiled-in presets first */
	char datadir[PRESET_PATH_MAX]; /* directory of *.ini */
	char sysconfdir[PRESET_PATH_MAX];
	char userdir[PRESET_PATH_MAX];
	char file[PRESET_PATH_MAX]; /* one explicit file, last */
	/* NULL: every built-in file. Else only the built-in files that declare
	 * a preset called only are parsed (a run that uses that preset needs
	 * no other; a path matches none): the set is partial. Every other
	 * place is loaded whole, its errors found as without only. */
	const char *only;
};

/* "built-in", "datadir", "system", "user" or "file". */
const char *preset_origin_name(enum preset_origin origin);

/* An empty set; preset_set_free() releases what loading added. */
void preset_set_init(struct preset_set *set);
void preset_set_free(struct preset_set *set);

/* Format err as "file:line:col: message", the source line and a caret line
 * under the column (see expr_error_format). Returns the length wanted. */
int preset_error_format(const struct preset_error *err, char *buf, size_t len);

/*
 * Parse the INI text (len bytes, NUL bytes not allowed) named file in
 * messages, and add its presets to set, each replacing any preset of the
 * same name already there (with its variants). Returns 0; -EINVAL with *err
 * filled on any error, and then set is unchanged; -ENOMEM.
 */
int preset_parse(struct preset_set *set, const char *text, size_t len, const char *file,
                 enum preset_origin origin, struct preset_error *err);

/* preset_parse() on the contents of path. A file that cannot be read is an
 * error too (-errno, message in err): one that is not a regular file (it is
 * opened without blocking: a FIFO cannot hang the caller), or one not owned
 * by root or the real user, or writable by group or others (-EPERM). */
int preset_load_file(struct preset_set *set, const char *path, enum preset_origin origin,
                     struct preset_error *err);

/* preset_load_file() on every *.ini in dir (not hidden), in byte order of
 * their names, so a later file overrides an earlier one; each is recorded
 * in set->files. A bad file is skipped, and so is the whole directory when
 * it is not owned by root or the real user or others may write it (one
 * entry in set->files). A missing or unreadable directory is no error.
 * Returns 0, or -ENOMEM (err unused but for that). */
int preset_load_dir(struct preset_set *set, const char *dir, enum preset_origin origin,
                    struct preset_error *err);

/* The compiled-in presets (the .ini files of src/presets/, named
 * "builtin:NAME.ini"). */
int preset_load_builtin(struct preset_set *set, struct preset_error *err);

/* The standard search path: built-in, <prefix>/share/pfmtop/presets (prefix
 * of the running executable), /etc/pfmtop/presets.d,
 * $XDG_CONFIG_HOME/pfmtop/presets.d (default ~/.config/pfmtop/presets.d), no
 * explicit file. */
void preset_paths_default(struct preset_paths *paths);

/* Load every place of paths in order into set (later wins by name). Files
 * of the directories that do not load are skipped (see preset_load_dir and
 * set->files); only the explicit file and the built-in presets can fail it.
 * 0 or that error (set then holds what was loaded before; free it either
 * way). */
int preset_load_all(struct preset_set *set, const struct preset_paths *paths,
                    struct preset_error *err);

/* The names of the base presets of set, in set order, into names[0..max):
 * the list the viewer's preset chooser shows. A partial set gives the
 * names, in the same order, that it would give loaded whole. Returns how
 * many. */
int preset_base_names(const struct preset_set *set, char (*names)[PRESET_NAME_MAX], int max);

/* The first file of set->files that did not load and seems to declare a
 * preset called name (or declares too many to tell), after the file the
 * preset of that name in set came from (an earlier one would have been
 * overridden anyway); NULL when none. A run that selects name must not go
 * on without it. */
const struct preset_file *preset_broken_file(const struct preset_set *set, const char *name);

/* The preset called name for a machine whose libpfm4 PMUs are pmus[0..nr):
 * the best matching variant, else the base preset. NULL when there is no
 * such preset. The pointer is into set. */
const struct preset *preset_find(const struct preset_set *set, const char *name,
                                 const char *const *pmus, int nr_pmus);

/* Print the presets of set, one per line: name, origin, file:line, variants
 * and description (and "overrides <origin>" when it does). */
void preset_list_print(const struct preset_set *set, FILE *out);

/* The events of p as listed (no fallbacks applied), for the engine. */
void preset_events_list(const struct preset *p, struct events_list *out);

/* Can event be opened here? 0 when it can; else a negative errno, with one
 * sentence in why. */
typedef int (*preset_can_open_fn)(const char *event, char *why, size_t whylen, void *arg);

/* What became of one event of the preset. */
struct preset_choice {
	char wanted[EVENTS_NAME_MAX]; /* as the preset lists it */
	char used[EVENTS_NAME_MAX];   /* what to open: wanted or a fallback; "" when dropped */
	int fallback;                 /* index into the preset event's fallback[], -1 when not */
	bool dropped;
	int err;                  /* dropped: the errno of wanted's failure, else 0 */
	int index;                /* position in preset_resolved.events, -1 when dropped */
	char why[PRESET_WHY_MAX]; /* "" when wanted opens; else each failed try:
	                           * "cycles: <why>; ref-cycles: <why>" */
};

struct preset_resolved_metric {
	struct preset_metric m;   /* names renamed to the events used, text re-formatted */
	bool available;           /* every input is counted */
	char why[PRESET_WHY_MAX]; /* unavailable: "needs cycles: <why>" */
};

/* The preset as this machine will count it. About 80 KiB: allocate it. */
struct preset_resolved {
	char name[PRESET_NAME_MAX];
	struct events_list events; /* to open, groups renumbered without the dropped events */
	int nr;                    /* events of the preset */
	struct preset_choice ev[EVENTS_LIST_MAX];
	int nr_fallbacks, nr_dropped;
	int nr_metrics;
	struct preset_resolved_metric metric[PRESET_METRICS_MAX];
	int nr_unavailable; /* metrics */
};

/*
 * Decide for each event of p what will be counted: the event itself if
 * can_open() says so, else its fallbacks in order, else nothing (dropped,
 * with every reason in why). Groups keep their order and lose their dropped
 * members. Metrics get their names rewritten to the events used, or are
 * marked unavailable when an input was dropped. Pure apart from can_open.
 * Returns 0 (dropping is not an error), or -ENAMETOOLONG when a renamed
 * expression no longer fits its text.
 */
int preset_choose(const struct preset *p, preset_can_open_fn can_open, void *arg,
                  struct preset_resolved *out);

/* Try to open the resolved event d here: 0, or a negative errno with one
 * sentence in why (e.g. session_try_open() plus explain_open_error()). */
typedef int (*preset_open_fn)(const struct event_desc *d, char *why, size_t whylen, void *arg);

/*
 * Validate p on this machine and print a report to out: each event resolved
 * with events_resolve() and opened with open() (NULL: resolving is
 * enough), which events fall back and why, which are
 * dropped, which metrics are unavailable. Returns 0 when everything the
 * preset wants can be counted (fallbacks included), 1 when the preset is
 * valid but some events are dropped here, 2 when it is invalid (an event
 * name events_resolve() calls malformed, or unknown: -ENOENT, a typo; an
 * event of a PMU that is not here, -ENODEV, is only dropped).
 */
int preset_check(const struct preset *p, preset_open_fn open, void *arg, FILE *out);

/* Load path on its own and preset_check() each preset in it (the variant for
 * pmus, if any). Returns the worst result; 2 with the error printed (with a
 * caret line) when the file does not load. */
int preset_check_file(const char *path, const char *const *pmus, int nr_pmus, preset_open_fn open,
                      void *arg, FILE *out);

#endif
