/* cmdout: where a command's output goes: a file while the viewer owns the terminal, or
 * standard error while batch snapshots are on standard output. */
#ifndef PFMTOP_CMDOUT_H
#define PFMTOP_CMDOUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cmdout {
	int fd;       /* the command's stdout and stderr; -1: the terminal */
	bool made;    /* pfmtop made the file (a default name): removed when empty */
	bool regular; /* a regular file: its end is read for the status line */
	off_t seen;   /* its size when last read */
	char path[PATH_MAX];
	char last[256]; /* its last whole line, "" none yet */
	bool to_stderr; /* batch: its standard output goes to standard error */
};

/* No file: the command writes to the terminal. */
void cmdout_init(struct cmdout *c);

/*
 * Open where the command's output goes: path as --command-output gives it,
 * or NULL for a new file under $XDG_RUNTIME_DIR (else /tmp) named
 * pfmtop-command-XXXXXX.log. A file is made new, mode 0600, with O_EXCL
 * and never through a symbolic link: pfmtop never writes into a file it
 * did not make. An existing character device or FIFO (/dev/null, a
 * terminal) is written as it is. "-" is the terminal (fd -1). 0, or -errno
 * with one sentence in err.
 */
int cmdout_open(struct cmdout *c, const char *path, char *err, size_t errlen);

/*
 * Where a command's output goes, as launch_fork()'s out. The viewer's
 * (batch false) is a file, opened by cmdout_open() (path NULL: a new one;
 * "-" is refused). In batch mode path names a file, or "-" keeps
 * pfmtop's own standard output and error; with no path, when the
 * snapshots go to standard output (snapshots NULL or "-") and would be
 * mixed into the command's (any but text on a terminal), its standard
 * output goes to standard error (c->to_stderr). *out is then a fd > 2,
 * LAUNCH_OUT_STDERR or -1 (pfmtop's). 0, or -errno with one sentence in err.
 */
int cmdout_choose(struct cmdout *c, const char *path, bool batch, const char *snapshots, bool text,
                  int *out, char *err, size_t errlen);

/* Once the command runs: one line on stderr when its standard output goes
 * to standard error. */
void cmdout_notice(const struct cmdout *c);

/* Read the end of the file for its last whole line (into c->last); true
 * when that changed. */
bool cmdout_poll(struct cmdout *c);

/* The size of the file, -1 when it is not a regular file. */
off_t cmdout_size(const struct cmdout *c);

/* Close it; a file pfmtop made that stayed empty is removed (c->path then
 * ""). */
void cmdout_close(struct cmdout *c);

#endif
