/* hotkeys: the keys hotspot rows are grouped by (perf top's --sort keys). */
#ifndef PFMTOP_HOTKEYS_H
#define PFMTOP_HOTKEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hotkeys_key {
	HOTKEYS_SYM,  /* the function (with its module) */
	HOTKEYS_DSO,  /* the module: binary, library, [kernel] ... */
	HOTKEYS_COMM, /* the process's name */
	HOTKEYS_PID,  /* the process */
	HOTKEYS_TID,  /* the thread */
	HOTKEYS_CPU,  /* the CPU the sample was taken on */
	HOTKEYS_NR,
};

/* perf top's default (tools/perf/util/sort.c, default_top_sort_order). */
#define HOTKEYS_DEFAULT "dso,sym"
/* Longest text of a key list ("sym,dso,comm,pid,tid,cpu"). */
#define HOTKEYS_TEXT_MAX 32

/* Keys in order of importance (the first one is the outermost group). */
struct hotkeys {
	int nr;
	enum hotkeys_key key[HOTKEYS_NR];
};

/*
 * A comma list of perf's key names (sym or symbol, dso, comm, pid, tid,
 * cpu), each at most once, into *k. 0, or -EINVAL with a sentence in err
 * (k then unchanged).
 */
int hotkeys_parse(const char *s, struct hotkeys *k, char *err, size_t errlen);

/* The list as text ("dso,sym") into buf. */
void hotkeys_format(const struct hotkeys *k, char *buf, size_t len);

bool hotkeys_has(const struct hotkeys *k, enum hotkeys_key key);

/* The name of a key ("sym", ...). */
const char *hotkeys_name(enum hotkeys_key key);

/* The grouping after current in the cycle the viewer's key walks
 * (dso,sym; sym; comm,dso,sym; pid,sym; dso; comm; pid; cpu), the first
 * one when current is not in it. A static string. */
const char *hotkeys_next(const char *current);

#endif
