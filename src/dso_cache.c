/* dso_cache: binaries' finished symbol tables, cached by build id (or file status without one). */
#include "symbols_priv.h"

/*
 * Reading a binary's symbols means walking its symbol table, pooling the
 * names, sorting and merging aliases: 4-6 ms for libc with its debug file,
 * at every start of pfmtop and for every binary its first samples land in.
 * The finished table is therefore written to a file in the cache directory
 * (the kernel table's), and later loads map that file instead.
 *
 * The file: struct dcache_hdr, then sym[nr_syms] and the pool, each at an
 * offset that is a multiple of 8, in this build's byte order and layout
 * (checked). It is used only for the file it was read from: same build id (if any),
 * kind (debug file or the binary itself), device, inode, size, change and
 * modification times; a file replaced, rewritten or touched since misses.
 * Nothing in it is trusted: dcache_parse() checks that the arrays lie
 * inside the file, that the symbols are sorted, and that every name offset
 * falls inside the pool, which ends with a NUL. The file is replaced by
 * rename(), never written in place, and used only when it is a regular file
 * owned by us that only we can write, in a directory of ours.
 */
#define DCACHE_MAGIC     "PFMDSYM\n"
#define DCACHE_VERSION   2 /* 2: names without versions, PLT stubs */
#define DCACHE_ORDER     0x01020304u
#define DCACHE_PREFIX    "dso-" /* then the build id in hex, '-' and the kind */
#define DCACHE_TEMP      ".dso-"
#define DCACHE_MAX       ((uint64_t)64 << 20) /* bigger tables are read each time */
#define DCACHE_MIN_SYMS  256 /* a smaller table is read faster than a file is checked */
#define DCACHE_FILES     512 /* at most this many table files; the least used go */
#define DCACHE_BYTES     ((uint64_t)256 << 20) /* nor more bytes than this in all */
#define DCACHE_SWEEP_MAX 4096                  /* directory entries looked at for that */
#define DCACHE_TEMP_AGE  3600                  /* s: a temporary file this old was left behind */

struct dcache_hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint32_t sym_size, order;
	uint64_t file_size;
	uint8_t build_id[BUILD_ID_MAX];
	uint32_t build_id_len, kind;
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
	uint64_t syms_off, nr_syms;
	uint64_t pool_off, pool_len;
};

_Static_assert(sizeof(struct dcache_hdr) % 8 == 0, "the sections follow the header aligned");

/* FNV-1a over the key's file status: the name of a table without a build id. */
static uint64_t stat_hash(const struct dcache_key *k)
{
	const int64_t v[] = {k->kind,      (int64_t)k->dev, (int64_t)k->ino, (int64_t)k->size,
	                     k->mtime_sec, k->mtime_nsec,   k->ctime_sec,    k->ctime_nsec};
	const unsigned char *p = (const unsigned char *)v;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < sizeof(v); i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* The file's name: dso-<build id in hex>-<kind>, or, for a binary without a
 * build id (Go's, a memfd's), dso-n<hash of its status>-<kind>: its header
 * holds that status whole, so a hash that collides only misses. */
static bool dcache_name(const struct dcache_key *k, char *name, size_t len)
{
	size_t at;

	if (k->build_id_len > BUILD_ID_MAX || len < sizeof(DCACHE_PREFIX) + 2 * BUILD_ID_MAX + 4)
		return false;
	if (!k->build_id_len) {
		snprintf(name, len, DCACHE_PREFIX "n%016llx-%u", (unsigned long long)stat_hash(k),
		         k->kind);
		return true;
	}
	at = (size_t)snprintf(name, len, DCACHE_PREFIX);
	for (size_t i = 0; i < k->build_id_len; i++)
		at += (size_t)snprintf(name + at, len - at, "%02x", k->build_id[i]);
	snprintf(name + at, len - at, "-%u", k->kind);
	return true;
}

/* Fill the key's part from the file's status. */
void sym_dcache_key_stat(struct dcache_key *k, const struct stat *st)
{
	k->dev = st->st_dev;
	k->ino = st->st_ino;
	k->size = (uint64_t)st->st_size;
	k->mtime_sec = st->st_mtim.tv_sec;
	k->mtime_nsec = st->st_mtim.tv_nsec;
	k->ctime_sec = st->st_ctim.tv_sec;
	k->ctime_nsec = st->st_ctim.tv_nsec;
}

static bool key_same(const struct dcache_hdr *h, const struct dcache_key *k)
{
	return h->build_id_len == k->build_id_len &&
	       !memcmp(h->build_id, k->build_id, k->build_id_len) && h->kind == k->kind &&
	       h->dev == k->dev && h->ino == k->ino && h->size == k->size &&
	       h->mtime_sec == k->mtime_sec && h->mtime_nsec == k->mtime_nsec &&
	       h->ctime_sec == k->ctime_sec && h->ctime_nsec == k->ctime_nsec;
}

static bool section_ok(uint64_t off, uint64_t n, size_t size, uint64_t len)
{
	return off % 8 == 0 && off >= sizeof(struct dcache_hdr) && off <= len &&
	       n <= (len - off) / size;
}

/* Point t into the file mapped at map (len bytes) when it is a consistent
 * table for k. */
static bool dcache_parse(void *map, size_t len, const struct dcache_key *k, struct symtab *t)
{
	const struct dcache_hdr *h = map;
	const struct sym *syms;
	const char *pool;

	if (len < sizeof(*h) || memcmp(h->magic, DCACHE_MAGIC, sizeof(h->magic)) ||
	    h->version != DCACHE_VERSION || h->hdr_size != sizeof(*h) ||
	    h->sym_size != sizeof(struct sym) || h->order != DCACHE_ORDER || h->file_size != len ||
	    !key_same(h, k) || !section_ok(h->syms_off, h->nr_syms, sizeof(struct sym), len) ||
	    !section_ok(h->pool_off, h->pool_len, 1, len) || !h->nr_syms || !h->pool_len ||
	    h->pool_len > UINT32_MAX)
		return false;
	syms = (const struct sym *)((const char *)map + h->syms_off);
	pool = (const char *)map + h->pool_off;
	if (pool[h->pool_len - 1])
		return false;
	for (uint64_t i = 0; i < h->nr_syms; i++)
		if (syms[i].name >= h->pool_len || (i && syms[i].start <= syms[i - 1].start))
			return false;
	*t = (struct symtab){.syms = (struct sym *)syms,
	                     .nr = h->nr_syms,
	                     .pool = (char *)pool,
	                     .pool_len = h->pool_len,
	                     .map = map,
	                     .map_len = len};
	return true;
}

bool sym_dcache_load(const struct symbols *s, const struct dcache_key *k, struct symtab *t)
{
	char dir[PATH_MAX], name[sizeof(DCACHE_PREFIX) + 2 * BUILD_ID_MAX + 16], why[96];
	struct symtab c;
	struct stat st;
	void *map = MAP_FAILED;
	int dfd, fd;

	if (!dcache_name(k, name, sizeof(name)) || sym_cache_dir_path(s, dir, sizeof(dir)))
		return false;
	dfd = sym_cache_dir_open(dir, false);
	if (dfd < 0)
		return false;
	/* O_NONBLOCK: a FIFO put there must not hang us (it is rejected) */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return false;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    !util_untrusted(&st, geteuid(), false, why, sizeof(why)) &&
	    st.st_size >= (off_t)sizeof(struct dcache_hdr) && (uint64_t)st.st_size <= DCACHE_MAX) {
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		futimens(fd, NULL); /* recently used: swept last */
	}
	close(fd);
	if (map == MAP_FAILED)
		return false;
	if (!dcache_parse(map, st.st_size, k, &c)) {
		munmap(map, st.st_size);
		return false;
	}
	sym_symtab_free(t);
	*t = c;
	return true;
}

struct aged {
	time_t mtime;
	uint64_t size;
	char name[sizeof(DCACHE_PREFIX) + 2 * BUILD_ID_MAX + 16];
};

static int aged_cmp(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;

	return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* Keep DCACHE_FILES table files and DCACHE_BYTES at most in the directory
 * dfd (the least recently used go, down to three quarters of both), and
 * remove temporary files left behind. */
static void dcache_sweep(int dfd)
{
	DIR *d = sym_cache_dir_list(dfd);
	struct aged *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t bytes = 0;
	time_t now = time(NULL);
	struct dirent *de;
	struct stat st;

	if (!d)
		return;
	for (int seen = 0; seen < DCACHE_SWEEP_MAX && (de = readdir(d)); seen++) {
		bool temp = sym_has_prefix(de->d_name, DCACHE_TEMP);

		if ((!temp && !sym_has_prefix(de->d_name, DCACHE_PREFIX)) ||
		    strlen(de->d_name) >= sizeof(v->name) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (temp) {
			if (now - st.st_mtime > DCACHE_TEMP_AGE)
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		if (n == cap) {
			struct aged *g = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!g)
				break;
			v = g;
		}
		v[n].mtime = st.st_mtime;
		v[n].size = (uint64_t)st.st_size;
		bytes += v[n].size;
		util_strlcpy(v[n++].name, de->d_name, sizeof(v->name));
	}
	closedir(d);
	if (n > DCACHE_FILES || bytes > DCACHE_BYTES) {
		qsort(v, n, sizeof(*v), aged_cmp);
		for (size_t i = 0;
		     i < n && (n - i > DCACHE_FILES * 3 / 4 || bytes > DCACHE_BYTES / 4 * 3); i++) {
			unlinkat(dfd, v[i].name, 0);
			bytes -= v[i].size;
		}
	}
	free(v);
}

/* All of len bytes of p at offset off of fd (EINTR retried). */
static bool put_at(int fd, const void *p, size_t len, uint64_t off)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = pwrite(fd, (const char *)p + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += (size_t)n;
	}
	return true;
}

void sym_dcache_store(struct symbols *s, const struct dcache_key *k, const struct symtab *t)
{
	char dir[PATH_MAX], name[sizeof(DCACHE_PREFIX) + 2 * BUILD_ID_MAX + 16], tmp[64];
	struct dcache_hdr h = {.magic = DCACHE_MAGIC,
	                       .version = DCACHE_VERSION,
	                       .hdr_size = sizeof(h),
	                       .sym_size = sizeof(struct sym),
	                       .order = DCACHE_ORDER,
	                       .build_id_len = (uint32_t)k->build_id_len,
	                       .kind = k->kind,
	                       .dev = k->dev,
	                       .ino = k->ino,
	                       .size = k->size,
	                       .mtime_sec = k->mtime_sec,
	                       .mtime_nsec = k->mtime_nsec,
	                       .ctime_sec = k->ctime_sec,
	                       .ctime_nsec = k->ctime_nsec,
	                       .syms_off = sizeof(h),
	                       .nr_syms = t->nr,
	                       .pool_len = t->pool_len};
	int dfd, fd;

	if (t->map || t->nr < DCACHE_MIN_SYMS || !t->pool_len ||
	    !dcache_name(k, name, sizeof(name)) || sym_cache_dir_path(s, dir, sizeof(dir)))
		return;
	memcpy(h.build_id, k->build_id, k->build_id_len);
	h.pool_off = (h.syms_off + t->nr * sizeof(*t->syms) + 7) & ~(uint64_t)7;
	h.file_size = h.pool_off + h.pool_len;
	if (h.file_size > DCACHE_MAX)
		return;
	dfd = sym_cache_dir_open(dir, true);
	if (dfd < 0)
		return;
	fd = sym_cache_temp_open(dfd, DCACHE_TEMP, tmp, sizeof(tmp));
	if (fd >= 0 && sym_cache_commit(dfd, fd,
	                                put_at(fd, t->syms, t->nr * sizeof(*t->syms), h.syms_off) &&
	                                    put_at(fd, t->pool, h.pool_len, h.pool_off),
	                                &h, sizeof(h), tmp, name)) {
		s->stats.dso_cache_writes++;
		dcache_sweep(dfd);
	}
	close(dfd);
}
