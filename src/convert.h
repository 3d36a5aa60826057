/* convert: a JSON Lines recording (-o FILE --format json) written again in another format. */
#ifndef PFMTOP_CONVERT_H
#define PFMTOP_CONVERT_H

#include "output.h"
#include "snapshot.h"

/*
 * Read the snapshots of the recording at path ("-": standard input) and
 * write each to out in fmt, as the live run would have, with every row the
 * recording holds but as cut says. A last line cut
 * short (the recording stopped mid-write) is left out with a warning.
 * Returns the exit status: 0; 1 when a line is not a snapshot, the
 * recording holds none, or out cannot be written; 2 when path cannot be
 * read or is not a regular file. Says why on standard error, after flag
 * ("--convert" or "--replay").
 */
/* What of each snapshot is written: task rows (top_n, 0 all) and hotspot
 * rows (hot_rows, -1 all; the rest go to "other"), as -N and --hot say. */
struct convert_cut {
	int top_n, hot_rows;
};

int convert_run(const char *flag, const char *path, enum snapshot_format fmt,
                const struct convert_cut *cut, struct output *out);

struct pfr_reader;
struct timeline;

/* A JSON Lines run (open on fd, read from where it is) as a timeline in
 * memory, for the view. 0, or 1 having said why on standard error. */
int convert_load(const char *path, int fd, struct timeline *t);

/* Open a recording to read: a regular file only (a FIFO, a directory or a
 * device is refused, never waited on). The fd, or -1 having said why on
 * standard error, after flag ("--convert" or "--replay"). */
int convert_open(const char *flag, const char *path);

/* Say on standard error what a recording lost: damaged frames, a torn end. */
void convert_losses(const char *path, const struct pfr_reader *r);

#endif
