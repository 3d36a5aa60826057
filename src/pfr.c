/* pfr: recordings (--record FILE): snapshots in zstd frames, each checked and decodable alone. */
#include "pfr.h"

#include "model_json.h"
#include "snapshot.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define FRAME_MAGIC "PFRF"
#define TYPE_KEY    'K'
#define TYPE_DELTA  'D'
#define SCAN_CHUNK  65536u /* bytes read at a time while looking for the next frame */
/* A compressed payload longer than this is not a frame (zstd never grows
 * the JSON by more than a little). */
#define MAX_PAYLOAD (PFR_MAX_SNAPSHOT + (PFR_MAX_SNAPSHOT >> 7) + 4096)

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The CRC of a frame: its header but the CRC field, then its payload. */
static uint32_t frame_crc(const unsigned char *h, const unsigned char *payload, size_t len)
{
	uLong c = crc32(0L, Z_NULL, 0);

	c = crc32_z(c, h, 12);
	c = crc32_z(c, h + 16, 12);
	c = crc32_z(c, payload, len);
	return (uint32_t)c;
}

/* A frame header that may be one: magic, type, zero bytes, a sane length. */
static bool header_ok(const unsigned char *h)
{
	return !memcmp(h, FRAME_MAGIC, 4) && (h[4] == TYPE_KEY || h[4] == TYPE_DELTA) && !h[5] &&
	       !h[6] && !h[7] && get32(h + 8) && get32(h + 8) <= MAX_PAYLOAD;
}

/* ---- writing ---- */

int pfr_writer_init(struct pfr_writer *w, unsigned key_every)
{
	memset(w, 0, sizeof(*w));
	w->key_every = key_every ? key_every : PFR_KEY_EVERY;
	w->level = PFR_LEVEL;
	w->cctx = ZSTD_createCCtx();
	return w->cctx ? 0 : -ENOMEM;
}

void pfr_writer_fini(struct pfr_writer *w)
{
	ZSTD_freeCCtx(w->cctx);
	free(w->prev);
	memset(w, 0, sizeof(*w));
}

unsigned char *pfr_encode(struct pfr_writer *w, const struct model *m, bool file_header,
                          size_t *len)
{
	size_t jlen = 0, n, head = file_header ? PFR_MAGIC_LEN : 0;
	/* every task row, not only the top N printed: -N cuts what is shown */
	struct model all = *m;
	all.top_n = 0;
	char *json = snapshot_render(&all, SNAPSHOT_JSON, false, &jlen);
	const bool key = !w->prev_len || w->since_key >= w->key_every;
	unsigned char *out, *h;

	if (!json)
		return NULL;
	if (jlen > PFR_MAX_SNAPSHOT) {
		free(json);
		errno = EFBIG;
		return NULL;
	}
	out = malloc(head + PFR_HEADER_LEN + ZSTD_compressBound(jlen));
	if (!out) {
		free(json);
		return NULL;
	}
	ZSTD_CCtx_reset(w->cctx, ZSTD_reset_session_only);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->level);
	if (!key)
		ZSTD_CCtx_refPrefix(w->cctx, w->prev, w->prev_len);
	h = out + head;
	n = ZSTD_compress2(w->cctx, h + PFR_HEADER_LEN, ZSTD_compressBound(jlen), json, jlen);
	if (ZSTD_isError(n)) {
		free(json);
		free(out);
		errno = EIO;
		return NULL;
	}
	if (file_header)
		memcpy(out, PFR_MAGIC, PFR_MAGIC_LEN);
	memcpy(h, FRAME_MAGIC, 4);
	h[4] = key ? TYPE_KEY : TYPE_DELTA;
	h[5] = h[6] = h[7] = 0;
	put32(h + 8, (uint32_t)n);
	put64(h + 16, m->wall_ns);
	put32(h + 24, key ? 0 : w->prev_crc);
	put32(h + 12, frame_crc(h, h + PFR_HEADER_LEN, n));
	w->prev_crc = get32(h + 12);
	free(w->prev);
	w->prev = json;
	w->prev_len = jlen;
	w->since_key = key ? 1 : w->since_key + 1;
	w->frames++;
	w->bytes += head + PFR_HEADER_LEN + n;
	w->raw += jlen;
	*len = head + PFR_HEADER_LEN + n;
	return out;
}

/* ---- reading ---- */

static int grow(void **buf, size_t *cap, size_t need)
{
	void *nb;

	if (need <= *cap)
		return 0;
	nb = realloc(*buf, need);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = need;
	return 0;
}

static int add_frame(struct pfr_reader *r, const unsigned char *h, uint64_t off,
                     const unsigned char *data)
{
	struct pfr_frame *f;

	/* a delta whose frame before is lost (damaged, cut, or itself without
	 * its own) cannot be decoded */
	if (h[4] == TYPE_DELTA &&
	    (r->last_key < 0 || !r->nr || r->frames[r->nr - 1].crc != get32(h + 24) ||
	     r->frames[r->nr - 1].key != (uint32_t)r->last_key))
		return 1;
	if (r->nr == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 256;

		f = realloc(r->frames, ncap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		r->frames = f;
		r->cap = ncap;
	}
	f = &r->frames[r->nr];
	f->wall_ns = get64(h + 16);
	f->off = off;
	f->data = data;
	f->len = get32(h + 8);
	f->is_key = h[4] == TYPE_KEY;
	f->crc = get32(h + 12);
	if (f->is_key)
		r->last_key = (long)r->nr;
	f->key = (uint32_t)r->last_key;
	r->nr++;
	return 0;
}

/* From r->end, on what is not a whole good frame: where the next frame
 * header might start, counted as damaged bytes up to there. 1 found, 0 not
 * (the rest is damaged), -errno. */
static int resync(struct pfr_reader *r)
{
	unsigned char chunk[SCAN_CHUNK];
	uint64_t at = r->end + 1;

	for (;;) {
		ssize_t n = util_pread_full(r->fd, chunk, sizeof(chunk), at);
		const unsigned char *p;

		if (n < 0)
			return (int)n;
		if (n < 4) {
			r->bad_bytes += at + (uint64_t)n - r->end;
			r->end = at + (uint64_t)n;
			return 0;
		}
		p = memmem(chunk, (size_t)n, FRAME_MAGIC, 4);
		if (p) {
			r->bad_bytes += at + (uint64_t)(p - chunk) - r->end;
			r->end = at + (uint64_t)(p - chunk);
			return 1;
		}
		at += (uint64_t)n - 3; /* a magic across the chunks' border */
	}
}

/* Has the file changed under the index: shorter than what was indexed, or
 * its first frame another? (A recorder started again on it with --force
 * empties it and writes a new recording.) */
static bool file_changed(struct pfr_reader *r)
{
	unsigned char h[PFR_HEADER_LEN];
	const struct pfr_frame *f = r->frames;
	struct stat st;

	if (fstat(r->fd, &st))
		return false; /* read as it is: each frame is checked when read */
	if ((uint64_t)st.st_size < r->end)
		return true;
	if (!r->nr)
		return false;
	return util_pread_full(r->fd, h, sizeof(h), f->off - PFR_HEADER_LEN) != PFR_HEADER_LEN ||
	       !header_ok(h) || get32(h + 8) != f->len || get32(h + 12) != f->crc ||
	       get64(h + 16) != f->wall_ns;
}

/* Forget the index of a file: it is made again from the file's start. */
static void forget_index(struct pfr_reader *r)
{
	r->nr = 0;
	r->end = PFR_MAGIC_LEN;
	r->last_key = -1;
	r->cur_idx = -1;
	r->bad_bytes = 0;
	r->torn = 0;
	r->stale = false;
}

long pfr_update(struct pfr_reader *r)
{
	unsigned char h[PFR_HEADER_LEN];
	size_t before = r->nr;

	if (r->fd < 0)
		return 0; /* frames in memory come through pfr_append() */
	if (r->stale || file_changed(r)) {
		int is = pfr_is_recording(r->fd);

		r->rebuilds += r->nr || r->end > PFR_MAGIC_LEN; /* not again while it is empty */
		forget_index(r);
		before = 0;
		if (is < 0)
			return is;
		if (!is) {
			r->stale = true; /* not (yet) a recording: looked at again next time */
			return 0;
		}
	}
	for (;;) {
		ssize_t n = util_pread_full(r->fd, h, sizeof(h), r->end);
		uint32_t len;
		int ret;

		if (n < 0)
			return (long)n;
		r->torn = (uint64_t)n; /* until the frame is whole */
		if (n < PFR_HEADER_LEN)
			break;
		if (!header_ok(h))
			goto damaged;
		len = get32(h + 8);
		if (grow((void **)&r->buf, &r->buf_cap, len))
			return -ENOMEM;
		n = util_pread_full(r->fd, r->buf, len, r->end + PFR_HEADER_LEN);
		if (n < 0)
			return (long)n;
		if ((size_t)n < len) {
			r->torn += (uint64_t)n;
			break; /* the last frame, still being written or cut short */
		}
		if (get32(h + 12) != frame_crc(h, r->buf, len))
			goto damaged;
		ret = add_frame(r, h, r->end + PFR_HEADER_LEN, NULL);
		if (ret < 0)
			return ret;
		if (ret)
			r->bad_bytes += PFR_HEADER_LEN + len;
		r->end += PFR_HEADER_LEN + len;
		r->torn = 0;
		continue;
	damaged:
		ret = resync(r);
		if (ret < 0)
			return ret;
		if (!ret)
			break;
	}
	return (long)(r->nr - before);
}

static int reader_init(struct pfr_reader *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cur_idx = -1;
	r->last_key = -1;
	r->dctx = ZSTD_createDCtx();
	return r->dctx ? 0 : -ENOMEM;
}

int pfr_is_recording(int fd)
{
	char magic[PFR_MAGIC_LEN];
	ssize_t n = util_pread_full(fd, magic, sizeof(magic), 0);

	if (n < 0)
		return (int)n;
	return n == PFR_MAGIC_LEN && !memcmp(magic, PFR_MAGIC, PFR_MAGIC_LEN);
}

int pfr_open(struct pfr_reader *r, int fd, char *err, size_t errlen)
{
	int ret = reader_init(r, fd);
	long n;

	err[0] = '\0';
	if (!ret)
		ret = pfr_is_recording(fd);
	if (ret == 0) {
		snprintf(err, errlen, "not a pfmtop recording (it does not begin as one)");
		pfr_close(r);
		return -EINVAL;
	}
	if (ret < 0) {
		pfr_close(r);
		return ret;
	}
	r->end = PFR_MAGIC_LEN;
	n = pfr_update(r);
	if (n < 0) {
		pfr_close(r);
		return (int)n;
	}
	return 0;
}

int pfr_open_memory(struct pfr_reader *r)
{
	return reader_init(r, -1);
}

int pfr_append(struct pfr_reader *r, unsigned char *frame, size_t len)
{
	int ret;

	if (len < PFR_HEADER_LEN || !header_ok(frame) || get32(frame + 8) != len - PFR_HEADER_LEN) {
		free(frame);
		return -EINVAL;
	}
	ret = add_frame(r, frame, 0, frame);
	if (ret) {
		free(frame);
		return ret < 0 ? ret : 0;
	}
	return 0;
}

void pfr_forget_before(struct pfr_reader *r, uint64_t wall_ns)
{
	size_t k = 0;

	if (r->fd >= 0)
		return;
	for (size_t i = 1; i < r->nr && r->frames[i].wall_ns <= wall_ns; i++)
		if (r->frames[i].is_key)
			k = i;
	if (!k)
		return;
	for (size_t i = 0; i < k; i++)
		free((void *)r->frames[i].data);
	memmove(r->frames, r->frames + k, (r->nr - k) * sizeof(*r->frames));
	r->nr -= k;
	for (size_t i = 0; i < r->nr; i++)
		r->frames[i].key -= (uint32_t)k;
	r->last_key -= (long)k;
	r->cur_idx = r->cur_idx >= (long)k ? r->cur_idx - (long)k : -1;
}

/* Frame f's payload: in memory, or read into r->buf with its header, and
 * checked against its CRC again either way (the file may have been
 * rewritten since it was indexed). NULL with errno: ESTALE (r->stale set)
 * when it is not the frame indexed, or the read's error. */
static const unsigned char *payload(struct pfr_reader *r, const struct pfr_frame *f)
{
	const unsigned char *h = f->data;
	ssize_t n;

	if (r->fd >= 0) {
		if (grow((void **)&r->buf, &r->buf_cap, PFR_HEADER_LEN + (size_t)f->len))
			return NULL;
		n = util_pread_full(r->fd, r->buf, PFR_HEADER_LEN + (size_t)f->len,
		                    f->off - PFR_HEADER_LEN);
		if (n < 0) {
			errno = (int)-n;
			return NULL;
		}
		h = (size_t)n == PFR_HEADER_LEN + f->len ? r->buf : NULL; /* cut since */
	}
	if (!h || !header_ok(h) || get32(h + 8) != f->len || get32(h + 12) != f->crc ||
	    get64(h + 16) != f->wall_ns || frame_crc(h, h + PFR_HEADER_LEN, f->len) != f->crc) {
		r->stale = r->fd >= 0;
		errno = r->fd >= 0 ? ESTALE : EIO;
		return NULL;
	}
	return h + PFR_HEADER_LEN;
}

/* Decompress frame f (a delta: against the frame before it, in r->cur) into *dst.
 * Its length, or 0 with the reason in err. */
static size_t decompress(struct pfr_reader *r, const struct pfr_frame *f, char **dst, size_t *cap,
                         char *err, size_t errlen)
{
	const unsigned char *src = payload(r, f);
	unsigned long long size;
	size_t n;

	if (!src && errno == ESTALE) {
		snprintf(err, errlen,
		         "the recording changed since it was read (a frame is not "
		         "the one indexed): it is read again");
		return 0;
	}
	if (!src) {
		snprintf(err, errlen, "cannot read a frame: %s",
		         errno == EIO && r->fd < 0 ? "its CRC does not hold" : strerror(errno));
		return 0;
	}
	size = ZSTD_getFrameContentSize(src, f->len);
	if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || !size) {
		snprintf(err, errlen, "a damaged frame (no snapshot size in it)");
		return 0;
	}
	if (size > PFR_MAX_SNAPSHOT) {
		snprintf(err, errlen,
		         "a damaged frame (its snapshot of %llu bytes is over the %u MiB frame "
		         "limit)",
		         size, PFR_MAX_SNAPSHOT >> 20);
		return 0;
	}
	if (grow((void **)dst, cap, (size_t)size + 1)) {
		snprintf(err, errlen, "out of memory");
		return 0;
	}
	ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
	if (!f->is_key)
		ZSTD_DCtx_refPrefix(r->dctx, r->cur, r->cur_len);
	n = ZSTD_decompressDCtx(r->dctx, *dst, (size_t)size, src, f->len);
	if (ZSTD_isError(n) || n != size) {
		snprintf(err, errlen, "a damaged frame (%s)",
		         ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short");
		return 0;
	}
	(*dst)[n] = '\0';
	return n;
}

int pfr_read(struct pfr_reader *r, size_t i, struct model *m, char *err, size_t errlen)
{
	const struct pfr_frame *f;
	size_t n;

	err[0] = '\0';
	if (i >= r->nr) {
		snprintf(err, errlen, "no frame %zu (the recording has %zu)", i, r->nr);
		return -EINVAL;
	}
	f = &r->frames[i];
	/* from the frame decoded last when i follows it in its run, else from
	 * the key frame: each frame's JSON is the next one's prefix */
	size_t j = r->cur_idx >= 0 && (size_t)r->cur_idx <= i && !f->is_key &&
	                   r->frames[r->cur_idx].key == f->key
	               ? (size_t)r->cur_idx + 1
	               : f->key;
	for (; j <= i; j++) {
		char *t;
		size_t tc;

		n = decompress(r, &r->frames[j], &r->json, &r->json_cap, err, errlen);
		if (!n) {
			r->cur_idx = -1;
			return r->stale ? -ESTALE : -EIO;
		}
		t = r->cur, r->cur = r->json, r->json = t;
		tc = r->cur_cap, r->cur_cap = r->json_cap, r->json_cap = tc;
		r->cur_len = n;
		r->cur_idx = (long)j;
	}
	return model_from_json(m, r->cur, r->cur_len, err, errlen);
}

size_t pfr_find(const struct pfr_reader *r, uint64_t wall_ns)
{
	size_t lo = 0, hi = r->nr;

	/* the first frame later than wall_ns */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->frames[mid].wall_ns <= wall_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

void pfr_close(struct pfr_reader *r)
{
	if (r->fd < 0)
		for (size_t i = 0; i < r->nr; i++)
			free((void *)r->frames[i].data);
	free(r->frames);
	ZSTD_freeDCtx(r->dctx);
	free(r->cur);
	free(r->buf);
	free(r->json);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->cur_idx = -1;
	r->last_key = -1;
}
