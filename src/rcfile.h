/* rcfile: the view's settings remembered between runs ($XDG_CONFIG_HOME/pfmtop/pfmtoprc). */
#ifndef PFMTOP_RCFILE_H
#define PFMTOP_RCFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct options;

#define RCFILE_NAME "pfmtoprc"

/* One file's settings; have_* says which it holds (the rest: the defaults). */
struct rcfile {
	bool have_theme, have_delay, have_view, have_sort, have_hide_kernel, have_hide_user,
	    have_columns;
	char theme[64];       /* a theme's name */
	uint64_t interval_ns; /* delay */
	int view;             /* OPTIONS_VIEW_* */
	char sort[128];       /* as --sort takes it: cpu, pid, command, an event or metric */
	bool hide_kernel, hide_user;
	char columns[512]; /* the view's column choice, as the view writes it (kept as is) */
};

/* The settings file's path: $XDG_CONFIG_HOME/pfmtop/pfmtoprc, else
 * $HOME/.config/pfmtop/pfmtoprc. 0, or -ENOENT when neither is set (or
 * -ENAMETOOLONG). */
int rcfile_path(char *buf, size_t len);

/*
 * Read INI text (file names it in messages) into *rc. 0, or -EINVAL with
 * "FILE:LINE: what is wrong" in err and *rc emptied (the defaults): an
 * unknown section or name, a value that does not parse.
 */
int rcfile_parse(struct rcfile *rc, const char *text, const char *file, char *err, size_t errlen);

/* Read the file at path (see rcfile_parse). -ENOENT (err "") when there is
 * none; other -errno with a sentence in err, *rc then empty. */
int rcfile_load(struct rcfile *rc, const char *path, char *err, size_t errlen);

/* The INI text of rc (malloc'd, NUL-terminated; the caller frees it), or
 * NULL on ENOMEM. */
char *rcfile_render(const struct rcfile *rc, size_t *len);

/*
 * Write rc to path atomically: a new file (O_EXCL, mode 0600) beside it,
 * renamed over it. Its directory is made (mode 0700, and its parent when
 * missing) if it is not there; a directory or a settings file that is a
 * symbolic link, or one another user owns or may write, is not used. 0 or
 * -errno with a sentence in err.
 */
int rcfile_save(const struct rcfile *rc, const char *path, char *err, size_t errlen);

/* The settings the command line did not give, from rc, into o (the view's
 * theme, delay, first view, sort, hotspot filters). */
void rcfile_apply(const struct rcfile *rc, struct options *o);

#endif
