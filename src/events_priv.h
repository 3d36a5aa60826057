/* events_priv.h: what the event resolver (events.c) and the list parser and
 * lister (events_list.c) share. Only they include it. */
#ifndef PFMTOP_EVENTS_PRIV_H
#define PFMTOP_EVENTS_PRIV_H

#include "events.h"

#include <stdbool.h>

#define EVENTS_HINT      "see 'pfmtop --list-events'"
#define EVENTS_MODS_HINT "modifiers are u, k, h, p, pp, ppp, H, G, I, S, D, W and e"

/* Longest term list or alias file we accept. */
#define TERMS_MAX 512

/* Modifier bits: user only, kernel only, both. */
#define MOD_U 1
#define MOD_K 2

/*
 * Event modifiers as perf takes them, after the last ':' (or after a
 * sysfs event's closing '/', or a group's '}'): u k h (privilege levels),
 * p pp ppp (precise_ip), H (host only), G (guest only), I (not when idle),
 * S (read the group with each sample: nothing to do when counting), D
 * (pinned), W (a weak group: pfmtop counts what opens of a group anyway),
 * e (exclusive: alone on the PMU).
 */
struct mods {
	int uk;      /* MOD_U | MOD_K as given, 0: neither */
	bool h;      /* 'h' given */
	int precise; /* number of 'p' */
	bool host, guest, idle, read, pinned, weak, exclusive;
	char rest[16]; /* the letters besides u and k, for the encoding */
};

/* Parse s (the whole string) as modifiers. 0, or -EINVAL when it is not
 * one (an unknown letter, more than three 'p', empty). */
int events_mods_parse(const char *s, struct mods *m);

/* Cut a trailing ":MODIFIERS" off name into *m (zeroed when there is none;
 * "pmu::event" keeps its "::"). */
void events_mods_strip(char *name, struct mods *m);

/* snprintf into buf: 0, or -ENAMETOOLONG when it did not fit. */
int events_strfmt(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A small text file's first line, trimmed: 0 or -errno. */
int events_read_text(const char *path, char *buf, size_t len);

/* libpfm4's perf:: name of the i-th built-in event (events_builtin_name). */
const char *events_builtin_event(int i);

/* Is path a directory? */
bool events_is_dir(const char *path);

/* The PMU directories' root (the sysfs default, or a test's). */
const char *events_pmu_root(const struct event_roots *r);

#endif
