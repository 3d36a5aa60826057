/* options: the command line, parsed into a plain struct. */
#ifndef PFMTOP_OPTIONS_H
#define PFMTOP_OPTIONS_H

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
};

struct options {
	enum options_action action;
	bool batch;
	int iterations;            /* 0 = until stopped */
	const char *output;        /* -o FILE, NULL = stdout */
	enum snapshot_format format;
	const char *list_glob;     /* --list-events [GLOB] */
	bool events_given;
	const char *preset;        /* --preset NAME|FILE, NULL = default */
	const char *check;         /* --check-preset NAME|FILE */
	struct session_config session;
};

/* Parse argv into *o. 0, or -EINVAL with one sentence in err (what is wrong
 * and what to do). argv is not modified; o->session.argv points into it. */
int options_parse(struct options *o, int argc, char **argv, char *err, size_t errlen);

/* Print the usage text. */
void options_usage(FILE *out);

#endif
