/* output: where batch snapshots go (-o FILE or standard output), a whole snapshot per write. */
#ifndef PFMTOP_OUTPUT_H
#define PFMTOP_OUTPUT_H

#include "snapshot.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct output {
	int fd;           /* -1 once closed: nothing more is written */
	bool own;         /* fd was opened here (not standard output) */
	bool regular;     /* a regular file: a failed write is cut back */
	off_t size;       /* bytes of whole snapshots it holds (appended to: with what it held) */
	char name[4096];  /* for messages: the path, or "standard output" */
	const char *flag; /* for messages: the option that named it ("-o", "--record") */
	struct snapshot_text text; /* what its reader was told (text snapshots) */
};

/* What becomes of a regular file that already holds something. */
enum output_mode {
	OUTPUT_NEW,     /* refused: nothing of it is lost by mistake */
	OUTPUT_APPEND,  /* --append: the snapshots go after what it holds */
	OUTPUT_REPLACE, /* --force: emptied first */
};

/*
 * Open -o's target, written in place and in append mode (each snapshot one
 * write at the end): path NULL or "-" is standard output. Symbolic links
 * are followed; a regular file keeps its inode, owner and mode, and one that
 * holds anything is taken as mode says; anything else (a terminal, a device,
 * a FIFO with a reader, a socket) is written as it is. Refused, with one
 * sentence in err: a directory, a target this user may not write, a missing
 * parent, a dangling symbolic link (the file would be made where the link
 * points), a FIFO nobody reads, a file that holds something (OUTPUT_NEW).
 * A new file is made with O_EXCL, never through a link. 0 or -errno.
 */
int output_open(struct output *o, const char *path, enum output_mode mode, char *err,
                size_t errlen);
/* The same, its errors labelled flag (e.g. "--record") instead of "-o". */
int output_open_as(struct output *o, const char *flag, const char *path, enum output_mode mode,
                   char *err, size_t errlen);

/*
 * Write one snapshot of len bytes: whole, or (regular files) not at all, the
 * file cut back to the snapshots before it. 0, -EPIPE when no one reads any
 * more (the output is closed then), or another -errno.
 */
int output_write(struct output *o, const char *buf, size_t len);

/* Close it (standard output is left open); 0 or -errno from close(). */
int output_close(struct output *o);

/*
 * Make a new file at path (relative to the current directory) holding the
 * len bytes of buf, mode 0666 less the umask: never over an existing file or
 * through a link (O_EXCL), and removed again if it cannot be written whole.
 * 0 or -errno.
 */
int output_new_file(const char *path, const char *buf, size_t len);

/*
 * Files replaced whole at every refresh (--format openmetrics/prometheus
 * -o FILE, read by node_exporter's textfile collector): a reader sees the
 * old file or the new one, never half of one. output_replace_check() is
 * asked once, before anything is counted: FILE's directory must exist and
 * be writable, and a FILE that is there must be a regular file that an
 * earlier run wrote (it starts "# HELP pfmtop_") unless force. 0 or -errno
 * with one sentence in err.
 */
int output_replace_check(const char *path, bool force, char *err, size_t errlen);

/* Write buf to a new file beside path (".NAME.XXXXXX", made with O_EXCL)
 * and rename it over path. 0 or -errno (nothing is left behind). */
int output_replace(const char *path, const char *buf, size_t len);

#endif
