/* timeline: snapshots to look back at: a recording (--replay) or the live viewer's history. */
#ifndef PFMTOP_TIMELINE_H
#define PFMTOP_TIMELINE_H

#include "model.h"
#include "pfr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIMELINE_HISTORY_MIN 10 /* --history: minutes the viewer keeps */
/* ...and bytes of snapshots at most, whichever is less: the oldest key
 * frame runs go first (README, "Memory"). */
#define TIMELINE_HISTORY_BYTES ((size_t)8 << 20)
/* zstd's level for the history: a frame an interval of the view's larger
 * snapshots (every hotspot row it can scroll), cheaply. Level 1 against
 * level 3 (tests/bench/bench_record.c, a 200x60 view's run with 500
 * hotspot rows, 73 KB of JSON a snapshot): 5.9 KB a frame instead of 5.5,
 * half the compression time. */
#define TIMELINE_LEVEL 1

struct timeline {
	struct pfr_reader r;
	struct pfr_writer w; /* history: how snapshots are added */
	bool history;
	uint64_t keep_ns; /* history: how far back it reaches */
	size_t max_bytes; /* history: bytes of frames it holds at most */
	size_t bytes;     /* history: bytes of frames held */
	struct model m;   /* the snapshot shown */
	bool have_m;
	long pos;          /* its frame, -1 none */
	unsigned rebuilds; /* r.rebuilds when m was decoded (pos is another frame after one) */
};

/* A recording open on fd (the caller closes fd after timeline_close()). 0
 * or -errno with one sentence in err. */
int timeline_open_file(struct timeline *t, int fd, char *err, size_t errlen);

/* An empty history that keeps keep_ns of snapshots. 0 or -ENOMEM. */
int timeline_open_history(struct timeline *t, uint64_t keep_ns);

void timeline_close(struct timeline *t);

/* History: add the snapshot m, forget what is older than keep_ns, and the
 * oldest frames while they hold more than max_bytes (TIMELINE_HISTORY_BYTES
 * unless the caller set another; the newest key frame run always stays).
 * 0 or -errno. */
int timeline_add(struct timeline *t, const struct model *m);

/* History: forget about the oldest n frames (whole key frame runs). */
void timeline_forget(struct timeline *t, long n);

static inline long timeline_len(const struct timeline *t)
{
	return (long)t->r.nr;
}

/* Decode frame pos (clamped to the frames there are); NULL with the reason
 * in err. The model stays valid until the next call or timeline_close(). */
const struct model *timeline_show(struct timeline *t, long pos, char *err, size_t errlen);

/* The frame at or before wall time w. */
static inline long timeline_find(const struct timeline *t, uint64_t w)
{
	return (long)pfr_find(&t->r, w);
}

/*
 * A time as a person types it, in local time: HH:MM, HH:MM:SS, or with a
 * date before it (YYYY-MM-DD HH:MM[:SS], or a T between them). Without a
 * date, the day of ref_wall_ns. 0 and *wall_ns, or -EINVAL.
 */
int timeline_parse_time(const char *text, uint64_t ref_wall_ns, uint64_t *wall_ns);

/* "2026-11-26 08:35:12.345" (local time) of wall_ns into buf. */
void timeline_clock(uint64_t wall_ns, char *buf, size_t len);

#endif
