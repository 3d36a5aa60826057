/* options: the command line, parsed into a plain struct. */
#ifndef PFMTOP_OPTIONS_H
#define PFMTOP_OPTIONS_H

#include "output.h"
#include "session.h"
#include "snapshot.h"

#include <stdbool.h>
#include <stdint.h>

enum options_action {
	OPTIONS_RUN,
	OPTIONS_HELP,
	OPTIONS_VERSION,
	OPTIONS_PROBE,
	OPTIONS_LIST_EVENTS,
	OPTIONS_LIST_PRESETS,
	OPTIONS_CHECK_PRESET,
	OPTIONS_CHECK_PRESETS,
	OPTIONS_CONVERT,
	OPTIONS_REPLAY,
};

/* The viewer's views, in the order of the keys 1-5 (--view NAME). */
enum options_view {
	OPTIONS_VIEW_OVERVIEW,
	OPTIONS_VIEW_CPUS,
	OPTIONS_VIEW_TASKS,
	OPTIONS_VIEW_HOTSPOTS,
	OPTIONS_VIEW_EVENTS,
	OPTIONS_NR_VIEWS,
};

/* "overview", "cpus", "tasks", "hotspots", "events". */
extern const char *const options_view_names[OPTIONS_NR_VIEWS];

struct options {
	enum options_action action;
	bool batch;
	int iterations;               /* 0 = until stopped */
	const char *output;           /* -o FILE, NULL = stdout */
	enum output_mode output_mode; /* --append, --force: FILE's old content */
	enum snapshot_format format;
	const char *list_glob; /* --list-events [GLOB] */
	bool events_given;
	const char *preset;  /* --preset NAME|FILE, NULL = default */
	const char *check;   /* --check-preset NAME|FILE */
	const char *convert; /* --convert FILE, --replay FILE */
	const char *record;  /* --record FILE (or -b -o FILE.pfr) */
	bool record_only;    /* -o FILE.pfr: no snapshots printed */
	double history_s;    /* --history: seconds the view keeps */
	bool format_given;
	const char *theme;      /* --theme NAME|FILE, NULL = default (or mono) */
	int view;               /* --view: OPTIONS_VIEW_*, -1 = by mode */
	bool hot_given;         /* --hot given (else the viewer shows a screenful) */
	bool top_given;         /* -N given (--convert prints every row recorded else) */
	bool sort_given;        /* --sort given (else the preset's sort, if any) */
	const char *listen;     /* --listen ADDR:PORT, NULL = no exporter */
	bool allow_remote;      /* --allow-remote */
	const char *web_config; /* --web-config FILE */
	int export_tasks;       /* --export-tasks N */
	bool export_cmdline;    /* --export-cmdline */
	bool daemon;            /* --daemon: headless, serving only */

	bool delay_given;           /* -d given (else the settings file's, if any) */
	const char *command_output; /* --command-output FILE, "-": the terminal */
	bool no_config;             /* --no-config: no settings file */
	bool wide;                  /* --wide: text snapshots with every column and section */
	struct session_config session;
};

/* Parse argv into *o. 0, or -EINVAL with one sentence in err (what is wrong
 * and what to do). argv is not modified; o->session.argv points into it. */
int options_parse(struct options *o, int argc, char **argv, char *err, size_t errlen);

/* Print the usage text. */
void options_usage(FILE *out);
/* The text options_usage() writes (options_help.c). */
extern const char options_usage_text[];

/* What follows an option on the command line. */
enum options_arg {
	OPTIONS_NO_ARG,  /* --name, -x */
	OPTIONS_ARG,     /* --name VALUE, --name=VALUE, -x VALUE, -xVALUE */
	OPTIONS_OPT_ARG, /* --name, --name=VALUE, or --name VALUE unless VALUE starts with - */
};

/* One option: options_parse() reads options_table, and the tests check
 * --help against it. set() takes the option's value (NULL without one) and
 * returns 0, -EINVAL with one sentence in err, or 1 (-h, -V): read no further. */
struct options_opt {
	const char *name; /* --name */
	int letter;       /* -x, or 0: a long option only */
	enum options_arg arg;
	int (*set)(struct options *o, const char *arg, char *err, size_t errlen);
};

extern const struct options_opt options_table[];
extern const size_t options_table_len;

#endif
