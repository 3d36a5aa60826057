/* pfr: recordings (--record FILE): snapshots in zstd frames, each checked and decodable alone. */
#ifndef PFMTOP_PFR_H
#define PFMTOP_PFR_H

#include "model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A recording is the file header PFR_MAGIC, then frames. A frame is a
 * 28-byte header (little-endian: "PFRF", 'K' or 'D', three zero bytes, the
 * payload's length, a CRC-32 of the header's other 24 bytes and the payload,
 * the snapshot's wall time in ns, the CRC of the frame before it, for a
 * delta) and a payload: one zstd frame (decodable alone but for its prefix)
 * holding the snapshot as --format json writes it (the model, whole: every
 * task row and cgroup, whatever -N prints, and up to PFR_HOT_ROWS hotspot
 * rows with "other" holding the rest). A key
 * frame ('K') is compressed alone; a delta frame ('D') is compressed against
 * the JSON of the frame before it (a zstd prefix), so that what did not
 * change since costs next to nothing. A frame is written with one write()
 * and read only when its CRC holds: a torn frame at the end costs itself;
 * a damaged one costs itself and the deltas after it up to the next key
 * frame (PFR_KEY_EVERY), never what comes before.
 */
#define PFR_MAGIC        "pfmtop record 1\n"
#define PFR_MAGIC_LEN    16
#define PFR_HEADER_LEN   28
#define PFR_KEY_EVERY    100         /* frames from one key frame to the next */
#define PFR_LEVEL        12          /* zstd's level (tests/bench/bench_record.c) */
#define PFR_MAX_SNAPSHOT (64u << 20) /* a longer snapshot is not pfmtop's */
/* Hotspot rows a recording keeps a frame at least (more with --hot); the
 * rest is in the "other" row (README, "Recordings"). */
#define PFR_HOT_ROWS 100

struct pfr_writer {
	void *cctx;        /* ZSTD_CCtx */
	char *prev;        /* the last frame's JSON: what the next delta is compressed against */
	size_t prev_len;   /* 0: the next frame is a key frame */
	uint32_t prev_crc; /* its frame's CRC, in the next delta's header */
	unsigned since_key, key_every;
	int level;
	uint64_t frames, bytes, raw; /* written so far: frames, their bytes, JSON bytes */
};

/* key_every 0: PFR_KEY_EVERY. 0 or -ENOMEM. */
int pfr_writer_init(struct pfr_writer *w, unsigned key_every);
void pfr_writer_fini(struct pfr_writer *w);

/* The next frame is a key frame (after a frame that was not written). */
static inline void pfr_writer_rekey(struct pfr_writer *w)
{
	w->prev_len = 0;
}

/* The frame of m in a malloc'd buffer of *len bytes, after the file header
 * when file_header (the file holds nothing yet). NULL with errno set. */
unsigned char *pfr_encode(struct pfr_writer *w, const struct model *m, bool file_header,
                          size_t *len);

/* One frame of a recording, as indexed. */
struct pfr_frame {
	uint64_t wall_ns;
	uint64_t off;              /* file: where the payload starts */
	const unsigned char *data; /* memory: the whole frame, header first */
	uint32_t len;              /* payload bytes */
	uint32_t key;              /* index of the key frame it needs (its own for a key) */
	uint32_t crc;              /* its CRC */
	bool is_key;
};

/*
 * The frames of a recording file (read with pread(), never mapped: the file
 * may be cut while it is read) or of frames handed over in memory (the live
 * viewer's history). Frames whose CRC fails are skipped (the next frame
 * header is searched for), and so are delta frames whose frame before is
 * missing (up to the next key frame).
 */
struct pfr_reader {
	int fd;       /* -1: frames in memory */
	uint64_t end; /* file bytes indexed */
	struct pfr_frame *frames;
	size_t nr, cap;
	void *dctx; /* ZSTD_DCtx */
	char *cur;  /* JSON of frame cur_idx, decoded: the prefix of the next */
	size_t cur_len, cur_cap;
	long cur_idx;       /* -1: none */
	unsigned char *buf; /* a frame's payload */
	size_t buf_cap;
	char *json; /* a delta frame's JSON */
	size_t json_cap;
	long last_key;      /* index of the last key frame indexed, -1 none */
	uint64_t bad_bytes; /* skipped: damaged frames or bytes between frames */
	uint64_t torn;      /* bytes of a last frame cut short */
	unsigned rebuilds;  /* times the file changed under the index, which was made again */
	bool stale;         /* a frame read back is not what was indexed: rebuild */
};

/* Index the recording open on fd (read from its start). 0, or -EINVAL with
 * one sentence in err (not a recording) or -errno. */
int pfr_open(struct pfr_reader *r, int fd, char *err, size_t errlen);

/*
 * Index what has been appended to the file since (a recording still being
 * written). When the file changed under the index instead (it is shorter
 * than what was indexed, its first frame is another, or a frame read back
 * failed its CRC: a recorder started again on it with --force), the index
 * is made again from the file's start and r->rebuilds counts it. The
 * number of frames indexed by this call (all of them after a rebuild), or
 * -errno.
 */
long pfr_update(struct pfr_reader *r);

/* An empty in-memory reader, for pfr_append(). 0 or -ENOMEM. */
int pfr_open_memory(struct pfr_reader *r);

/* Hand over one frame (as pfr_encode() made it, without a file header):
 * the reader owns it from now on (frees it on failure too). 0, -EINVAL (not
 * a frame), -ENOMEM. */
int pfr_append(struct pfr_reader *r, unsigned char *frame, size_t len);

/* Forget the frames older than wall_ns, a whole key frame's run at a time
 * (memory readers). */
void pfr_forget_before(struct pfr_reader *r, uint64_t wall_ns);

/* Decode frame i into m (not initialised: model_fini() it on success). Each
 * frame it reads is checked against its CRC again: one that is not what was
 * indexed is never decoded; -ESTALE (r->stale set: the next pfr_update()
 * makes the index again). 0, or -EINVAL / -EIO / -ESTALE / -ENOMEM with the
 * reason in err. */
int pfr_read(struct pfr_reader *r, size_t i, struct model *m, char *err, size_t errlen);

/* The last frame at or before wall_ns (the first when all are later). */
size_t pfr_find(const struct pfr_reader *r, uint64_t wall_ns);

void pfr_close(struct pfr_reader *r);

/* Does the file open on fd begin as a recording? (It is read at offset 0,
 * fd's position left alone.) 1 yes, 0 no (or empty), -errno. */
int pfr_is_recording(int fd);

#endif
