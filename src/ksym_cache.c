/* ksym_cache: the kernel symbol table cached per boot, checked and mapped. */
#include "symbols_priv.h"

/* ---- the kernel table cache ---- */

/*
 * Reading kallsyms costs the kernel some 40-50 ms of CPU (it formats every
 * line) and the table ~4.5 MB of memory. The finished table is therefore
 * written to a file, per boot, and later runs map that file read-only
 * instead: no read, no copy, only the pages lookups touch become resident
 * (file pages).
 *
 * The file: struct kcache_hdr, then ksym[nr_syms], krun[nr_runs],
 * kspan[nr_spans], head (the first whole lines of kallsyms as read, at most
 * KCACHE_HEAD bytes) and the pool, each at an offset that is a multiple of
 * 8, in this build's byte order and layout (checked). Everything in it is
 * an offset or a count, so it is used where it is mapped. Nothing in it is
 * trusted: kcache_parse() checks that every array lies inside the file and
 * that the pool starts and ends with a NUL, and sym_ktab_find() checks each
 * name offset it follows. The file is replaced by rename(), never written
 * in place, so a mapping never sees it change.
 *
 * It is used only while it describes the kernel we run on: same boot id
 * (KASLR places the kernel anew at each boot), same modules (name, size,
 * state and address of each line of /proc/modules), same first lines of
 * kallsyms read now (which also proves that its addresses are still
 * visible to us: when they read as zero the cache is not used and the
 * kernel is hidden exactly as without it), and only when it is a regular
 * file owned by us that nobody else can write, in a directory of ours.
 *
 * A file an earlier boot left is used too, so that the first run after a
 * boot does not pay for the read, when the kernel is the very same build
 * (the GNU build id of /sys/kernel/notes, the kernel's own notes) and
 * /proc/modules is the same: the kernel image is then the same bytes,
 * placed by KASLR at one offset, which the first lines of kallsyms read now
 * give (kcache_slide()). Each module is placed on its own, so a table with
 * modules is used only where it was (no offset). That file is then renamed
 * to this boot's name.
 */
#define KCACHE_MAGIC     "PFMKSYM\n"
#define KCACHE_VERSION   3 /* 2: aliases ranked as perf ranks them; 3: the kernel's build id */
#define KCACHE_ORDER     0x01020304u
#define KCACHE_MAX       ((uint64_t)1 << 31) /* a bigger file is not one of ours */
#define KCACHE_PREFIX    "kallsyms-"         /* then the boot id */
#define KCACHE_TEMP      ".kallsyms-"        /* files being written */
#define KCACHE_TEMP_AGE  3600                /* s: a temporary file this old was left behind */
#define KCACHE_SWEEP_MAX 256                 /* directory entries looked at for stale files */
#define KCACHE_PAGE      4096u
#define KMODULES_MAX     (4 << 20)  /* bytes of /proc/modules read at most */
#define KNOTES_MAX       (64 << 10) /* bytes of /sys/kernel/notes read at most */
#define NO_MODULES       UINT64_MAX /* kmods.len when /proc/modules does not exist */
#define FNV_BASIS        0xcbf29ce484222325ull

struct kcache_hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint32_t sym_size, run_size, span_size, order; /* the layout of the build that wrote it */
	uint64_t file_size;
	char boot_id[40];                   /* NUL-terminated */
	uint64_t modules_hash, modules_len; /* struct kmods */
	uint32_t kbuild_len, pad;           /* the kernel's build id; 0: none */
	unsigned char kbuild[BUILD_ID_MAX];
	uint64_t head_off, head_len;
	uint64_t syms_off, nr_syms;
	uint64_t runs_off, nr_runs;
	uint64_t spans_off, nr_spans;
	uint64_t pool_off, pool_len;
};

_Static_assert(sizeof(struct kcache_hdr) % 8 == 0, "the sections follow the header aligned");

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

/* All of path (at most max bytes) into a malloc'd, NUL-terminated *out. 0,
 * -errno, or -EFBIG. */
static int read_whole(const char *path, size_t max, char **out, size_t *len)
{
	size_t have = 0, cap = 0;
	char *buf = NULL, *p;
	ssize_t n = 1;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	while (n) {
		if (have + 1 >= cap) {
			cap = cap ? cap * 2 : 8192;
			p = cap <= max ? realloc(buf, cap) : NULL;
			if (!p) {
				r = cap <= max ? -ENOMEM : -EFBIG;
				break;
			}
			buf = p;
		}
		n = read(fd, buf + have, cap - have - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		have += n;
	}
	close(fd);
	if (r) {
		free(buf);
		return r;
	}
	buf[have] = '\0';
	*out = buf;
	*len = have;
	return 0;
}

/* Fingerprint <root>/proc/modules into m. 0 (also when it does not exist:
 * no modules), or -errno. */
static int kmods_read(const struct symbols *s, struct kmods *m)
{
	char path[PATH_MAX], *buf = NULL, *line, *next;
	size_t len = 0;
	int r;

	memset(m, 0, sizeof(*m));
	m->hash = FNV_BASIS;
	r = sym_root_path(s, path, sizeof(path), "/proc/modules");
	if (!r)
		r = read_whole(path, KMODULES_MAX, &buf, &len);
	if (r == -ENOENT) {
		m->len = NO_MODULES;
		return 0;
	}
	if (r)
		return r;
	m->names = malloc(len + 1);
	if (!m->names) {
		free(buf);
		return -ENOMEM;
	}
	/* "NAME SIZE REFS USERS STATE ADDRESS [TAINTS]" */
	for (line = buf; *line; line = next) {
		const char *f[6];
		size_t flen[6], nf = 0;
		char *p = line;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		while (*p && nf < 6) {
			p += strspn(p, " ");
			if (!*p)
				break;
			f[nf] = p;
			flen[nf] = strcspn(p, " ");
			p += flen[nf++];
		}
		if (!nf)
			continue;
		memcpy(m->names + m->names_len, f[0], flen[0]);
		m->names_len += flen[0];
		m->names[m->names_len++] = '\0';
		if (nf < 6) { /* not the usual format: all of the line */
			m->hash = fnv1a(fnv1a(m->hash, line, strlen(line)), "\n", 1);
			m->len += strlen(line) + 1;
			continue;
		}
		for (size_t i = 0; i < 6; i++) {
			if (i == 2 || i == 3)
				continue;
			m->hash = fnv1a(fnv1a(m->hash, f[i], flen[i]), i == 5 ? "\n" : " ", 1);
			m->len += flen[i] + 1;
		}
	}
	free(buf);
	return 0;
}

/* Is label ("[ext4]", "[bpf]" ...) a module /proc/modules lists? */
static bool kmods_has(const struct kmods *m, const char *label)
{
	size_t n = strlen(label), i;

	if (n < 3 || label[0] != '[' || label[n - 1] != ']')
		return false;
	for (i = 0; i < m->names_len; i += strlen(m->names + i) + 1)
		if (!strncmp(m->names + i, label + 1, n - 2) && !m->names[i + n - 2])
			return true;
	return false;
}

/* <root>/proc/sys/kernel/random/boot_id (a UUID: hex digits and dashes) into
 * id. 0, or -1. */
static int boot_id_read(const struct symbols *s, char id[BOOT_ID_LEN + 1])
{
	char path[PATH_MAX], buf[BOOT_ID_LEN + 2];
	ssize_t n = -1;
	int fd;

	if (sym_root_path(s, path, sizeof(path), "/proc/sys/kernel/random/boot_id"))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf));
		close(fd);
	}
	if (n < BOOT_ID_LEN || (n > BOOT_ID_LEN && buf[BOOT_ID_LEN] != '\n'))
		return -1;
	for (int i = 0; i < BOOT_ID_LEN; i++)
		if (!sym_hex_digit[(unsigned char)buf[i]] && buf[i] != '-')
			return -1;
	memcpy(id, buf, BOOT_ID_LEN);
	id[BOOT_ID_LEN] = '\0';
	return 0;
}

/* The running kernel's build id into e (kbuild_len 0 when there is none):
 * the GNU build-id note among <root>/sys/kernel/notes, the notes of the
 * kernel image, as its ELF notes section holds them. */
static void kbuild_read(const struct symbols *s, struct kenv *e)
{
	char path[PATH_MAX], *buf = NULL;
	size_t len = 0, off = 0;

	e->kbuild_len = 0;
	if (sym_root_path(s, path, sizeof(path), "/sys/kernel/notes") ||
	    read_whole(path, KNOTES_MAX, &buf, &len))
		return;
	/* each note: namesz, descsz, type, then name and desc, each padded to 4 */
	while (len - off >= 12) {
		uint32_t w[3];
		size_t name, desc, next;

		memcpy(w, buf + off, sizeof(w));
		name = off + 12;
		desc = name + (((size_t)w[0] + 3) & ~(size_t)3);
		next = desc + (((size_t)w[1] + 3) & ~(size_t)3);
		if (next > len)
			break;
		if (w[2] == NT_GNU_BUILD_ID && w[0] == 4 && !memcmp(buf + name, "GNU", 4) && w[1] &&
		    w[1] <= BUILD_ID_MAX) {
			memcpy(e->kbuild, buf + desc, w[1]);
			e->kbuild_len = w[1];
			break;
		}
		off = next;
	}
	free(buf);
}

/* The cache directory's path into dir: NULL, or why there is none. The
 * environment is read with secure_getenv(): a process with more privileges
 * than its user (file capabilities, setuid) may see kernel addresses its
 * user may not, and must not write them where that user says. */
const char *sym_cache_dir_path(const struct symbols *s, char *dir, size_t len)
{
	const char *v;
	int n;

	if (s->kcache == KCACHE_OFF)
		return "off";
	if (s->kcache == KCACHE_DIR) {
		util_strlcpy(dir, s->kcache_dir, len);
		return NULL;
	}
	v = secure_getenv("PFMTOP_NO_KSYM_CACHE");
	if (v && *v && strcmp(v, "0"))
		return "off";
	v = secure_getenv("XDG_CACHE_HOME");
	if (v && v[0] == '/') {
		n = snprintf(dir, len, "%s/pfmtop", v);
	} else {
		v = secure_getenv("HOME");
		if (!v || v[0] != '/')
			return "nodir";
		n = snprintf(dir, len, "%s/.cache/pfmtop", v);
	}
	return n < 0 || (size_t)n >= len ? "nodir" : NULL;
}

/* A directory of ours that nobody else can write (nor rename things in). */
static bool dir_ours(const struct stat *st)
{
	char why[96];

	return S_ISDIR(st->st_mode) && !util_untrusted(st, geteuid(), false, why, sizeof(why));
}

/* mkdir path, mode 0700, when its parent is a directory we own; a missing
 * parent is made first, the same way, depth levels up at most. 0 or -errno. */
static int mkdir_ours(const char *path, int depth)
{
	char parent[PATH_MAX];
	struct stat st;
	char *slash;
	int r;

	util_strlcpy(parent, path, sizeof(parent));
	slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return -EPERM; /* nothing is made in / */
	*slash = '\0';
	if (stat(parent, &st)) {
		if (errno != ENOENT || !depth)
			return -errno;
		r = mkdir_ours(parent, depth - 1);
		if (r && r != -EEXIST)
			return r;
		if (stat(parent, &st))
			return -errno;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return -EPERM;
	return mkdir(path, 0700) ? -errno : 0;
}

/* An fd of the cache directory dir when it is ours (see dir_ours(); a
 * symlink is not), made when missing and create is true; -errno. */
int sym_cache_dir_open(const char *dir, bool create)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 && errno == ENOENT && create) {
		int r = mkdir_ours(dir, 1);

		if (r && r != -EEXIST)
			return r;
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !dir_ours(&st)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Fill e for loading or writing the cache; e->why says why it cannot be. */
void sym_kenv_get(const struct symbols *s, struct kenv *e)
{
	memset(&e->mods, 0, sizeof(e->mods));
	e->why = sym_cache_dir_path(s, e->dir, sizeof(e->dir));
	if (!e->why && boot_id_read(s, e->boot_id))
		e->why = "noboot";
	if (!e->why && kmods_read(s, &e->mods))
		e->why = "nomodules";
	if (!e->why)
		kbuild_read(s, e);
}

void sym_kenv_free(struct kenv *e)
{
	free(e->mods.names);
	e->mods.names = NULL;
}

/* Do the whole lines p (len bytes) show an address that is not zero? */
static bool head_visible(const char *p, size_t len)
{
	const char *end = p + len, *nl;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		for (; p < nl && sym_hex_digit[(unsigned char)*p]; p++)
			if (*p != '0')
				return true;
	}
	return false;
}

/* The first len bytes (at most KCACHE_HEAD) of <root>/proc/kallsyms now,
 * into buf: true when there were as many. One read of KCACHE_HEAD bytes:
 * the kernel formats only the lines asked for. */
static bool kallsyms_head_read(const struct symbols *s, char *buf, size_t len)
{
	char path[PATH_MAX];
	size_t got = 0;
	ssize_t n;
	int fd;

	if (len > KCACHE_HEAD || sym_root_path(s, path, sizeof(path), "/proc/kallsyms"))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (got < len) {
		n = read(fd, buf + got, KCACHE_HEAD - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	return got >= len;
}

/* Does <root>/proc/kallsyms begin, now, with the len bytes at head? */
static bool kallsyms_head_same(const struct symbols *s, const char *head, size_t len)
{
	char buf[KCACHE_HEAD];

	return kallsyms_head_read(s, buf, len) && !memcmp(buf, head, len);
}

/* The kallsyms line at p, before end: its address (16 hex digits at most)
 * in *addr, what follows it (" T name\t[module]") at *rest, its newline at
 * *nl. False when it is not such a line. */
static bool head_line(const char *p, const char *end, uint64_t *addr, const char **rest,
                      const char **nl)
{
	const char *n = memchr(p, '\n', end - p), *q = p;
	uint64_t a = 0;

	if (!n)
		return false;
	for (; q < n && sym_hex_digit[(unsigned char)*q]; q++) {
		if (q - p == 16)
			return false;
		a = a << 4 | (uint64_t)(sym_hex_digit[(unsigned char)*q] - 1);
	}
	if (q == p || n - q < 4 || q[0] != ' ' || q[2] != ' ')
		return false;
	*addr = a;
	*rest = q;
	*nl = n;
	return true;
}

/*
 * Do the whole lines now (len bytes, kallsyms read now) list the symbols
 * of the whole lines old (a cache file's head), in the same order, each
 * placed *slide bytes further (absolute ones, type A, where they were)?
 * Only a page-aligned offset, given by at least one symbol that is not
 * absolute and not at address 0 now (kallsyms hides addresses as 0).
 */
static bool head_slide(const char *old, const char *now, size_t len, uint64_t *slide)
{
	const char *oend = old + len, *nend = now + len;
	uint64_t d = 0;
	bool known = false;

	while (old < oend) {
		const char *orest, *nrest, *onl, *nnl;
		uint64_t oa, na;

		if (!head_line(old, oend, &oa, &orest, &onl) ||
		    !head_line(now, nend, &na, &nrest, &nnl) || onl - orest != nnl - nrest ||
		    memcmp(orest, nrest, onl - orest))
			return false;
		if (orest[1] == 'A' || orest[1] == 'a') {
			if (na != oa)
				return false;
		} else if (!na || (known && na - oa != d)) {
			return false;
		} else {
			d = na - oa;
			known = true;
		}
		old = onl + 1;
		now = nnl + 1;
	}
	if (!known || now != nend || d % KCACHE_PAGE)
		return false;
	*slide = d;
	return true;
}

/* Does an array of n elements of size bytes at off lie inside a file of
 * len bytes, after the header, aligned to 8? */
static bool kcache_section(uint64_t off, uint64_t n, size_t size, uint64_t len)
{
	return off % 8 == 0 && off >= sizeof(struct kcache_hdr) && off <= len &&
	       n <= (len - off) / size;
}

/* Point t into the cache file mapped at map (len bytes) when it is a
 * consistent table: NULL, or why it is not. Reads nothing else. */
static const char *kcache_parse(void *map, size_t len, struct ktab *t)
{
	const struct kcache_hdr *h = map;
	char *p = map;

	if (len < sizeof(*h))
		return "size";
	if (memcmp(h->magic, KCACHE_MAGIC, sizeof(h->magic)))
		return "magic";
	if (h->version != KCACHE_VERSION || h->hdr_size != sizeof(*h) ||
	    h->sym_size != sizeof(struct ksym) || h->run_size != sizeof(struct krun) ||
	    h->span_size != sizeof(struct kspan) || h->order != KCACHE_ORDER)
		return "version";
	if (h->file_size != len)
		return "size";
	if (!memchr(h->boot_id, '\0', sizeof(h->boot_id)) ||
	    !kcache_section(h->syms_off, h->nr_syms, sizeof(struct ksym), len) ||
	    !kcache_section(h->runs_off, h->nr_runs, sizeof(struct krun), len) ||
	    !kcache_section(h->spans_off, h->nr_spans, sizeof(struct kspan), len) ||
	    !kcache_section(h->head_off, h->head_len, 1, len) ||
	    !kcache_section(h->pool_off, h->pool_len, 1, len))
		return "corrupt";
	if (!h->nr_syms || !h->nr_runs || !h->head_len || h->head_len > KCACHE_HEAD ||
	    h->kbuild_len > BUILD_ID_MAX || !h->pool_len || h->pool_len > UINT32_MAX ||
	    p[h->pool_off] || p[h->pool_off + h->pool_len - 1] ||
	    p[h->head_off + h->head_len - 1] != '\n' || !head_visible(p + h->head_off, h->head_len))
		return "corrupt";
	memset(t, 0, sizeof(*t));
	t->syms = (struct ksym *)(p + h->syms_off);
	t->nr = t->cap = t->sorted = h->nr_syms;
	t->runs = (struct krun *)(p + h->runs_off);
	t->nr_runs = t->runs_cap = h->nr_runs;
	t->spans = (const struct kspan *)(p + h->spans_off);
	t->nr_spans = h->nr_spans;
	t->pool.buf = p + h->pool_off;
	t->pool.len = t->pool.cap = h->pool_len;
	return NULL;
}

/* The cache file's name for boot_id. */
static void kcache_name(char *name, size_t len, const char *boot_id)
{
	snprintf(name, len, KCACHE_PREFIX "%s", boot_id);
}

/* Is the file of an earlier boot whose header is h (its table c, checked)
 * one of this kernel? NULL and the offset to add to its addresses in
 * *slide, or why not. */
static const char *kcache_earlier_boot(const struct symbols *s, const struct kenv *e,
                                       const struct kcache_hdr *h, const struct ktab *c,
                                       uint64_t *slide)
{
	char now[KCACHE_HEAD];

	if (!e->kbuild_len || h->kbuild_len != e->kbuild_len ||
	    memcmp(h->kbuild, e->kbuild, e->kbuild_len))
		return "boot";
	if (!kallsyms_head_read(s, now, h->head_len) ||
	    !head_slide((const char *)h + h->head_off, now, h->head_len, slide))
		return "head";
	/* the modules were placed apart from the kernel: an offset found for
	 * the kernel says nothing of theirs */
	if (*slide && (c->nr_runs != 1 || c->runs[0].mod))
		return "modules";
	return NULL;
}

/* Map the cache file name in the directory dfd into t (replacing what t
 * held) when it is valid for the kernel we run: NULL, or why it was not
 * used (t is then unchanged). *earlier: it is an earlier boot's. */
static const char *kcache_use(const struct symbols *s, const struct kenv *e, int dfd,
                              const char *name, struct ktab *t, bool *earlier)
{
	const struct kcache_hdr *h;
	const char *why = NULL;
	char phrase[96];
	uint64_t slide = 0;
	struct ktab c;
	struct stat st;
	void *map = MAP_FAILED;
	int fd;

	/* O_NONBLOCK: a FIFO put there must not hang us (it is rejected) */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? "missing" : "type";
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		why = "type";
	else if (util_untrusted(&st, geteuid(), false, phrase, sizeof(phrase)))
		why = st.st_uid != geteuid() ? "owner" : "mode";
	else if (st.st_size < (off_t)sizeof(*h) || (uint64_t)st.st_size > KCACHE_MAX)
		why = "size";
	else
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (why)
		return why;
	if (map == MAP_FAILED)
		return "size";
	/* Lookups touch a few scattered pages. When the file is not in the
	 * page cache this reads just those (no readahead), and so fewer
	 * pages get mapped around each fault (the kernel maps up to
	 * fault_around_bytes, 64 KiB, of cached pages around it): measured
	 * 0.6-0.8 MB resident instead of 2.4 MB after 2 s of pfmtop. */
	madvise(map, st.st_size, MADV_RANDOM);
	h = map;
	why = kcache_parse(map, st.st_size, &c);
	*earlier = !why && strcmp(h->boot_id, e->boot_id);
	if (!why && (h->modules_hash != e->mods.hash || h->modules_len != e->mods.len))
		why = *earlier && !e->kbuild_len ? "boot" : "modules";
	if (!why && *earlier)
		why = kcache_earlier_boot(s, e, h, &c, &slide);
	else if (!why && !kallsyms_head_same(s, (const char *)map + h->head_off, h->head_len))
		why = "head";
	if (why) {
		munmap(map, st.st_size);
		return why;
	}
	sym_ktab_free(t);
	*t = c;
	t->map = map;
	t->map_len = st.st_size;
	t->slide = slide;
	return NULL;
}

/* This boot has no file: use one an earlier boot of this kernel left, if
 * one passes kcache_use(), renamed to name (this boot's), so that the next
 * run finds it at once and writing this boot's file does not remove it.
 * NULL when one was; else why the last one looked at was not ("missing":
 * there was none). */
static const char *kcache_adopt(const struct symbols *s, const struct kenv *e, int dfd,
                                const char *name, struct ktab *t)
{
	DIR *d = sym_cache_dir_list(dfd);
	const char *why = "missing";
	struct dirent *de;
	bool earlier;

	if (!d)
		return why;
	for (int n = 0; why && n < KCACHE_SWEEP_MAX && (de = readdir(d)); n++)
		if (sym_has_prefix(de->d_name, KCACHE_PREFIX) && strcmp(de->d_name, name) &&
		    !(why = kcache_use(s, e, dfd, de->d_name, t, &earlier)))
			renameat(dfd, de->d_name, dfd, name);
	closedir(d);
	return why;
}

/* Map the cache file of this boot, or one an earlier boot of the same
 * kernel left, into t (replacing what t held) when it is valid: NULL, or
 * why it was not used (t is then unchanged). *earlier: an earlier boot's. */
static const char *kcache_load(const struct symbols *s, const struct kenv *e, struct ktab *t,
                               bool *earlier)
{
	char name[sizeof(KCACHE_PREFIX) + BOOT_ID_LEN];
	const char *why;
	int dfd;

	*earlier = false;
	if (e->why)
		return e->why;
	dfd = sym_cache_dir_open(e->dir, false);
	if (dfd < 0)
		return dfd == -ENOENT ? "missing" : "nodir";
	kcache_name(name, sizeof(name), e->boot_id);
	why = kcache_use(s, e, dfd, name, t, earlier);
	if (why && !strcmp(why, "missing") && e->kbuild_len) {
		why = kcache_adopt(s, e, dfd, name, t);
		*earlier = !why;
	}
	close(dfd);
	return why;
}

/* Buffered writes of the cache file. */
struct kwriter {
	int fd;
	bool failed;
	uint64_t off; /* bytes put */
	size_t len;   /* in buf */
	char buf[64 * 1024];
};

static void kw_flush(struct kwriter *w)
{
	size_t done = 0;
	ssize_t n;

	while (!w->failed && done < w->len) {
		n = write(w->fd, w->buf + done, w->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			w->failed = true;
		else
			done += n;
	}
	w->len = 0;
}

static void kw_put(struct kwriter *w, const void *p, size_t n)
{
	const char *c = p;

	w->off += n;
	while (n) {
		size_t k = sizeof(w->buf) - w->len;

		if (!k) {
			kw_flush(w);
			continue;
		}
		k = k < n ? k : n;
		memcpy(w->buf + w->len, c, k);
		w->len += k;
		c += k;
		n -= k;
	}
}

/* Zeros up to the next multiple of 8; the offset reached. */
static uint64_t kw_align(struct kwriter *w)
{
	static const char zero[8];

	if (w->off % 8)
		kw_put(w, zero, 8 - w->off % 8);
	return w->off;
}

/* The directory dfd opened anew for readdir() (dfd stays open), or NULL. */
DIR *sym_cache_dir_list(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	return d;
}

/* A new temporary file in dfd, mode 0600, named prefix-PID-RANDOM into tmp:
 * its fd, or -errno. */
int sym_cache_temp_open(int dfd, const char *prefix, char *tmp, size_t len)
{
	int fd = -EEXIST;

	for (unsigned i = 0; i < 8 && fd == -EEXIST; i++) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(tmp, len, "%s%ld-%lx", prefix, (long)getpid(),
		         (unsigned long)(ts.tv_nsec ^ ts.tv_sec << 20) + i);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			fd = -errno;
	}
	return fd;
}

/* Finish the temporary file tmp open at fd (ok: all of it was written but
 * its header): write the header hdr (hlen bytes) at the start, close it and
 * rename it to name in dfd. True when done; otherwise it is removed. */
bool sym_cache_commit(int dfd, int fd, bool ok, const void *hdr, size_t hlen, const char *tmp,
                      const char *name)
{
	ok = ok && pwrite(fd, hdr, hlen, 0) == (ssize_t)hlen;
	ok = !close(fd) && ok;
	if (ok && !renameat(dfd, tmp, dfd, name))
		return true;
	unlinkat(dfd, tmp, 0);
	return false;
}

/*
 * Where the span of a table whose last symbol starts at a ends: SYM_TAIL
 * past a (where a lookup gives that symbol up), but not past the end of
 * a's page. Dynamic code is allocated in whole pages (module_alloc(),
 * execmem, BPF program packs), so it never shares one with the kernel's or
 * a module's code, but it may start on the page after a module's last
 * one: an ip there must not be taken for that module's last symbol. (The
 * rest of a last function that runs on into the next page is read from
 * kallsyms, once, like dynamic code.) 4096 is the smallest page size.
 */
uint64_t sym_kspan_end(uint64_t a)
{
	uint64_t page_end = (a | (KCACHE_PAGE - 1)) + 1; /* 0: a is in the last page */

	if (a > UINT64_MAX - SYM_TAIL)
		return page_end ? page_end : UINT64_MAX;
	return page_end && page_end < a + SYM_TAIL ? page_end : a + SYM_TAIL;
}

/* Remove the cache files of other boots (all but keep), and temporary
 * files left behind (KCACHE_TEMP_AGE old), from the directory dfd:
 * KCACHE_SWEEP_MAX entries looked at, at most. */
static void kcache_sweep(int dfd, const char *keep)
{
	DIR *d = sym_cache_dir_list(dfd);
	time_t now = time(NULL);
	struct dirent *de;
	struct stat st;

	if (!d)
		return;
	for (int n = 0; n < KCACHE_SWEEP_MAX && (de = readdir(d)); n++) {
		if (sym_has_prefix(de->d_name, KCACHE_PREFIX) && strcmp(de->d_name, keep))
			unlinkat(dfd, de->d_name, 0);
		else if (sym_has_prefix(de->d_name, KCACHE_TEMP) &&
		         !fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		         now - st.st_mtime > KCACHE_TEMP_AGE)
			unlinkat(dfd, de->d_name, 0);
	}
	closedir(d);
}

/* Write the core kernel and the real modules (those e->mods lists) of t, a
 * table just read from kallsyms whose first bytes are head, as the cache
 * file of this boot: a temporary file renamed over it. Then remove the
 * files of other boots. Failing is silent: the cache only saves time. */
void sym_kcache_write(struct symbols *s, const struct kenv *e, const struct ktab *t,
                      const struct khead *head)
{
	char name[sizeof(KCACHE_PREFIX) + BOOT_ID_LEN], tmp[64];
	struct kcache_hdr h = {.magic = KCACHE_MAGIC};
	size_t hlen = head->len, i;
	struct kspan *spans = NULL;
	struct kwriter *w = NULL;
	bool *keep = NULL;
	int dfd, fd;

	while (hlen && head->buf[hlen - 1] != '\n') /* whole lines */
		hlen--;
	if (e->why || !t->nr || !t->nr_runs || !head_visible(head->buf, hlen))
		return;
	dfd = sym_cache_dir_open(e->dir, true);
	if (dfd < 0)
		return;
	keep = malloc(t->nr_runs * sizeof(*keep));
	spans = malloc(t->nr_runs * sizeof(*spans));
	w = malloc(sizeof(*w));
	if (!keep || !spans || !w)
		goto out;
	fd = sym_cache_temp_open(dfd, KCACHE_TEMP, tmp, sizeof(tmp));
	if (fd < 0)
		goto out;
	*w = (struct kwriter){.fd = fd};

	/* Dynamic code (BPF, trampolines: "modules" /proc/modules does not
	 * list) changes without anything the cache checks noticing: left out
	 * (see sym_kernel_refresh()). Their names stay in the pool, unused; the
	 * symbols of a run left out now fall in the run before it, which is
	 * fine as none of them is in the file. */
	for (i = 0; i < t->nr_runs; i++) {
		keep[i] = !t->runs[i].mod || kmods_has(&e->mods, t->pool.buf + t->runs[i].mod);
		spans[i] = (struct kspan){UINT64_MAX, 0};
	}
	kw_put(w, &h, sizeof(h)); /* written again at the end */
	h.syms_off = kw_align(w);
	for (i = 0; i < t->nr; i++) {
		size_t r = sym_ktab_run_index(t, &t->syms[i]);
		uint64_t a = ksym_start(&t->syms[i]);

		if (!keep[r])
			continue;
		spans[r].lo = a < spans[r].lo ? a : spans[r].lo;
		a = sym_kspan_end(a);
		spans[r].hi = a > spans[r].hi ? a : spans[r].hi;
		kw_put(w, &t->syms[i], sizeof(t->syms[i]));
		h.nr_syms++;
	}
	h.runs_off = kw_align(w);
	for (i = 0; i < t->nr_runs; i++)
		if (keep[i]) {
			kw_put(w, &t->runs[i], sizeof(t->runs[i]));
			h.nr_runs++;
		}
	h.spans_off = kw_align(w);
	for (i = 0; i < t->nr_runs; i++)
		if (keep[i] && spans[i].lo < spans[i].hi) {
			kw_put(w, &spans[i], sizeof(spans[i]));
			h.nr_spans++;
		}
	h.head_off = kw_align(w);
	kw_put(w, head->buf, h.head_len = hlen);
	h.pool_off = kw_align(w);
	kw_put(w, t->pool.buf, h.pool_len = t->pool.len);

	h.version = KCACHE_VERSION;
	h.hdr_size = sizeof(h);
	h.sym_size = sizeof(struct ksym);
	h.run_size = sizeof(struct krun);
	h.span_size = sizeof(struct kspan);
	h.order = KCACHE_ORDER;
	h.file_size = w->off;
	memcpy(h.boot_id, e->boot_id, sizeof(e->boot_id));
	h.modules_hash = e->mods.hash;
	h.modules_len = e->mods.len;
	h.kbuild_len = (uint32_t)e->kbuild_len;
	memcpy(h.kbuild, e->kbuild, e->kbuild_len);
	kcache_name(name, sizeof(name), e->boot_id);
	if (!h.nr_syms) {
		close(fd);
		unlinkat(dfd, tmp, 0);
	} else if (kw_flush(w), sym_cache_commit(dfd, fd, !w->failed, &h, sizeof(h), tmp, name)) {
		s->stats.cache_writes++;
		kcache_sweep(dfd, name);
	}
out:
	free(w);
	free(spans);
	free(keep);
	close(dfd);
}

/* Remove the cache files, this boot's and earlier ones' (kallsyms hides
 * its addresses from us now: do not keep them either). */
static void kcache_drop(const struct kenv *e)
{
	int dfd;

	if (e->why || (dfd = sym_cache_dir_open(e->dir, false)) < 0)
		return;
	kcache_sweep(dfd, "");
	close(dfd);
}

int symbols_load_kernel(struct symbols *s)
{
	struct khead head;
	struct kenv e;
	const char *why;
	bool earlier;
	int r;

	s->krefreshed = false;
	s->stats.kernel_symbols = 0;
	s->stats.kernel_source = SYMBOLS_KERNEL_NONE;
	sym_kenv_get(s, &e);
	why = kcache_load(s, &e, &s->ktab, &earlier);
	s->stats.kernel_cache = why ? why : earlier ? "earlier boot" : "hit";
	r = why ? sym_kallsyms_load(s, &s->ktab, &head) : 1;
	if (why && r > 0)
		sym_kcache_write(s, &e, &s->ktab, &head);
	else if (!r) /* no address that was not zero */
		kcache_drop(&e);
	sym_kenv_free(&e);
	if (r <= 0) {
		sym_ktab_free(&s->ktab);
		s->kstate = r ? KERNEL_FAILED : KERNEL_HIDDEN;
		return r;
	}
	s->kstate = KERNEL_LOADED;
	s->stats.kernel_symbols = s->ktab.nr;
	s->stats.kernel_source = why ? SYMBOLS_KERNEL_KALLSYMS : SYMBOLS_KERNEL_CACHE;
	return 0;
}
