/* symbols: address to function name from kallsyms, process maps, ELF binaries and perf maps. */
#include "symbols.h"

#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A symbol with no size ends where the next one starts; the last one of a
 * table (or of a kernel module) gets this much. */
#define SYM_TAIL 4096

/* Binaries no process maps any more, kept in case they come back. */
#define UNUSED_KEEP 64

/* How far back a lookup walks for a symbol that encloses later ones. */
#define NEST_BACK 4

/* Bytes read from kallsyms at a time. Its lines are under 600 bytes; one
 * as long as this or longer would be skipped. */
#define KALLSYMS_BUF (128 * 1024)

/* The kernel table cache checks this much of kallsyms (one read). */
#define KCACHE_HEAD 4096

/* Names, each NUL-terminated, at offsets below UINT32_MAX. */
struct pool {
	char *buf;
	size_t len, cap;
};

/* One symbol: [start, start + size), its name at pool + name. */
struct sym {
	uint64_t start;
	uint32_t size;
	uint32_t name;
};

/* Symbols sorted by start (starts unique), names in one pool. */
struct symtab {
	struct sym *syms;
	size_t nr;
	char *pool;
};

/* A symbol as read, before aliases are merged. */
struct rawsym {
	uint64_t start, size;
	uint32_t name;
	int64_t rank; /* of two aliases, the higher rank names the address */
};

struct tabbuild {
	struct rawsym *v;
	size_t nr, cap;
	struct pool pool;
};

/* A kernel text symbol: it starts at hi << 32 | lo, its name is at pool +
 * name. kallsyms gives no sizes: it ends where the next symbol of its
 * module starts, the last one of a module SYM_TAIL after its start. */
struct ksym {
	uint32_t lo, hi;
	uint32_t name : 30;
	uint32_t local : 1, weak : 1; /* type t, type w or W: they rank aliases */
};

#define KSYM_POOL_MAX (1u << 30) /* ksym.name */

/* Consecutive kallsyms lines of one module: the names pooled from pool on,
 * up to the next run's, are its symbols'. */
struct krun {
	uint32_t pool;
	uint32_t mod; /* its label ("[ext4]") in the pool; 0, an empty name, for the core kernel */
};

/* Addresses [lo, hi): the core kernel's or a module's, from its first
 * symbol to kspan_end() of its last. */
struct kspan {
	uint64_t lo, hi;
};

/* The kernel's text symbols, sorted by start (starts unique). Names are
 * pooled in kallsyms order, so the run a symbol was read in, and with it
 * its module, follows from where its name is. They are pooled as read:
 * control bytes are replaced when a lookup copies them out.
 *
 * Read from kallsyms, the arrays are malloc'd. Loaded from the cache they
 * point into its read-only mapping (map): then the offsets in them are
 * checked as they are used, and spans says which addresses the table
 * covers. */
struct ktab {
	struct ksym *syms;
	size_t nr, cap;
	size_t sorted; /* while reading: syms[0, sorted) are in address order */
	struct krun *runs;
	size_t nr_runs, runs_cap;
	struct pool pool;
	void *map; /* the cache file mapped, or NULL */
	size_t map_len;
	const struct kspan *spans;
	size_t nr_spans;
};

/* A PT_LOAD: file bytes [off, off + filesz) load at vaddr. */
struct seg {
	uint64_t off, filesz, vaddr;
};

enum dso_state {
	DSO_NEW,    /* not read yet */
	DSO_LOADED, /* segments and symbols read (symbols may be none) */
	DSO_FAILED, /* could not be opened or is not ELF */
};

/* A mapped file, shared by every process that maps it. */
struct dso {
	struct dso *hnext;         /* hash chain */
	struct dso *uprev, *unext; /* unused list while refs == 0 */
	bool unused;
	unsigned long refs; /* mappings pointing here */
	uint32_t maj, min;
	uint64_t ino; /* 0: keyed by path */
	bool deleted;
	enum dso_state state;
	struct seg *segs;
	size_t nr_segs;
	struct symtab tab;
	char *path;       /* as reported: the key when ino is 0 */
	char *file;       /* path without " (deleted)" */
	const char *base; /* basename, inside file */
};

enum map_kind {
	MAPPING_FILE,    /* a binary */
	MAPPING_ANON,    /* anonymous: JIT code lives here (perf map) */
	MAPPING_SPECIAL, /* [vdso], [vsyscall], [uprobes]: no file to read */
};

struct map {
	uint64_t start, end, pgoff;
	enum map_kind kind;
	struct dso *dso;   /* MAPPING_FILE */
	const char *label; /* otherwise: a static string */
};

/* A process's perf-PID.map and the file it came from. */
struct jit {
	bool tried, loaded;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct symtab tab;
};

struct proc {
	struct proc *hnext;
	pid_t pid;
	bool scanned;     /* /proc/PID/maps was read (or tried) since start or exec */
	bool exited;      /* waiting for symbols_reap() */
	int reap_in;      /* exited: symbols_reap() calls left before it goes */
	struct map *maps; /* sorted by start, not overlapping */
	size_t nr, cap;
	struct jit jit;
};

enum kernel_state {
	KERNEL_NOT_TRIED,
	KERNEL_LOADED,
	KERNEL_HIDDEN, /* zero addresses */
	KERNEL_FAILED, /* unreadable */
};

struct symbols {
	char root[PATH_MAX]; /* "" stands for "/" */

	enum kernel_state kstate;
	struct ktab ktab;
	size_t kallsyms_buf; /* read size; 0: KALLSYMS_BUF */
	bool krefreshed;     /* a table from the cache had its one full read (or try) */
	enum { KCACHE_DEFAULT, KCACHE_DIR, KCACHE_OFF } kcache;
	char kcache_dir[PATH_MAX]; /* KCACHE_DIR */

	struct proc **procs;
	size_t nr_procs, procs_buckets;

	struct dso **dsos;
	size_t nr_dsos, dsos_buckets;
	struct dso *unused_head, *unused_tail; /* oldest first */
	size_t nr_unused;

	struct symbols_stats stats;

	/* The vDSO the kernel maps into every (native) process: read once,
	 * from pfmtop's own memory, never from a process's. */
	struct dso *vdso;
	uint64_t vdso_size;
	bool vdso_tried;
};

/* ---- paths and small helpers ---- */

__attribute__((format(printf, 4, 5))) static int root_path(const struct symbols *s, char *out,
                                                           size_t len, const char *fmt, ...)
{
	va_list ap;
	size_t n = strlen(s->root);
	int m;

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(out, s->root, n);
	va_start(ap, fmt);
	m = vsnprintf(out + n, len - n, fmt, ap);
	va_end(ap);
	return m < 0 || (size_t)m >= len - n ? -ENAMETOOLONG : 0;
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void result_set(struct symbols_result *out, enum symbols_status status, const char *name,
                       uint64_t offset, const char *module)
{
	out->status = status;
	out->offset = offset;
	util_strlcpy(out->name, name, sizeof(out->name));
	util_strlcpy(out->module, module, sizeof(out->module));
}

static void result_no_symbol(struct symbols_result *out, const char *module, uint64_t offset)
{
	out->status = SYMBOLS_NO_SYMBOL;
	out->offset = offset;
	util_strlcpy(out->module, module, sizeof(out->module));
	snprintf(out->name, sizeof(out->name), "%s+0x%llx", module, (unsigned long long)offset);
}

/* ---- symbol tables ---- */

/* Append name (len bytes) to the pool. Its offset, or -ENOMEM / -E2BIG. */
static int64_t pool_add(struct pool *p, const char *name, size_t len)
{
	uint32_t off;

	if (p->len + len + 1 > UINT32_MAX)
		return -E2BIG;
	if (p->len + len + 1 > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;
		char *buf;

		while (cap < p->len + len + 1)
			cap *= 2;
		buf = realloc(p->buf, cap);
		if (!buf)
			return -ENOMEM;
		p->buf = buf;
		p->cap = cap;
	}
	off = p->len;
	memcpy(p->buf + off, name, len);
	p->buf[off + len] = '\0';
	p->len += len + 1;
	return off;
}

static void build_free(struct tabbuild *b)
{
	free(b->v);
	free(b->pool.buf);
	memset(b, 0, sizeof(*b));
}

static int build_add(struct tabbuild *b, uint64_t start, uint64_t size, const char *name,
                     size_t len, int64_t rank)
{
	int64_t off;

	if (b->nr == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		struct rawsym *v = realloc(b->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	off = pool_add(&b->pool, name, len);
	if (off < 0)
		return off;
	b->v[b->nr++] = (struct rawsym){.start = start, .size = size, .name = off, .rank = rank};
	return 0;
}

/*
 * Rank of one of several names for an address: a sized symbol, then a
 * non-local one (a libc with its debug symbols has local aliases such as
 * __GI_strtoul), then, as perf chooses, a global one over a weak one
 * (__vdso_clock_gettime over clock_gettime, __getpid over getpid), fewer
 * leading underscores and the longer name.
 */
static int64_t rank_of(bool sized, bool local, bool weak, const char *name, size_t len)
{
	int64_t under = 0;

	while (under < 7 && name[under] == '_')
		under++;
	return (int64_t)sized << 40 | (int64_t)!local << 39 | (int64_t)(!local && !weak) << 38 |
	       (7 - under) << 35 | (int64_t)(len < 0xffff ? len : 0xffff);
}

static int rawsym_cmp(const void *a, const void *b, void *pool)
{
	const struct rawsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return strcmp((const char *)pool + x->name, (const char *)pool + y->name);
}

static void symtab_free(struct symtab *t)
{
	free(t->syms);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}

/* Sort, keep the best name per address, size the unsized, and move the
 * result into t (emptied first). The builder is freed either way. */
static int build_finish(struct tabbuild *b, struct symtab *t)
{
	struct symtab n = {0};
	size_t i, k = 0;
	int err = -ENOMEM;

	symtab_free(t);
	if (!b->nr) {
		build_free(b);
		return 0;
	}
	qsort_r(b->v, b->nr, sizeof(*b->v), rawsym_cmp, b->pool.buf);
	n.syms = malloc(b->nr * sizeof(*n.syms));
	if (!n.syms)
		goto out;
	for (i = 0; i < b->nr; i++) {
		const struct rawsym *r = &b->v[i];

		if (k && n.syms[k - 1].start == r->start)
			continue; /* an alias ranked lower */
		b->v[k] = *r;
		n.syms[k].start = r->start;
		n.syms[k].name = r->name;
		k++;
	}
	for (i = 0; i < k; i++) {
		uint64_t size = b->v[i].size;

		if (!size)
			size = i + 1 < k ? b->v[i + 1].start - b->v[i].start : SYM_TAIL;
		n.syms[i].size = size > UINT32_MAX ? UINT32_MAX : size;
	}
	n.nr = k;
	n.pool = b->pool.buf;
	b->pool.buf = NULL;
	*t = n;
	n.syms = NULL;
	err = 0;
out:
	free(n.syms);
	build_free(b);
	return err;
}

/* Index of the symbol containing addr, or -1. */
static ssize_t symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo symbols start at or below addr; the last one usually holds it,
	 * an earlier one only when it encloses the ones after it. */
	for (i = lo; i > 0 && lo - i < NEST_BACK; i--) {
		const struct sym *sym = &t->syms[i - 1];

		if (addr - sym->start < sym->size)
			return i - 1;
	}
	return -1;
}

/* ---- kernel ---- */

static bool ktype_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static uint64_t ksym_start(const struct ksym *k)
{
	return (uint64_t)k->hi << 32 | k->lo;
}

static int ksym_cmp(const void *a, const void *b)
{
	uint64_t x = ksym_start(a), y = ksym_start(b);

	return x < y ? -1 : x > y;
}

/* Of two names for one address, is a the better one (rank_of, then the
 * first in strcmp order)? */
static bool ksym_better(const struct ktab *t, const struct ksym *a, const struct ksym *b)
{
	const char *x = t->pool.buf + a->name, *y = t->pool.buf + b->name;
	int64_t rx = rank_of(false, a->local, a->weak, x, strlen(x));
	int64_t ry = rank_of(false, b->local, b->weak, y, strlen(y));

	return rx != ry ? rx > ry : strcmp(x, y) < 0;
}

static void ktab_free(struct ktab *t)
{
	if (t->map) {
		munmap(t->map, t->map_len);
	} else {
		free(t->syms);
		free(t->runs);
		free(t->pool.buf);
	}
	memset(t, 0, sizeof(*t));
}

/* Empty t for a new read, keeping its memory (resident already). 0 or
 * -ENOMEM. */
static int ktab_reset(struct ktab *t)
{
	if (t->map)
		ktab_free(t);
	t->nr = t->sorted = t->nr_runs = t->pool.len = 0;
	/* offset 0 is the empty name: "no module" */
	return pool_add(&t->pool, "", 0) < 0 ? -ENOMEM : 0;
}

/* p (*cap elements of size bytes) grown to hold need, doubling from min;
 * NULL when out of memory (p is kept). */
static void *grow(void *p, size_t *cap, size_t need, size_t size, size_t min)
{
	size_t n = *cap ? *cap : min;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	p = realloc(p, n * size);
	if (p)
		*cap = n;
	return p;
}

/* p cut down to n elements of size bytes (kept as is when n is 0). */
static void *shrink(void *p, size_t n, size_t size)
{
	void *q = n ? realloc(p, n * size) : NULL;

	return q ? q : p;
}

/* Does the last run go on with a line of module mod (mlen bytes, NULL for
 * the core kernel)? */
static bool krun_goes_on(const struct ktab *t, const char *mod, size_t mlen)
{
	const struct krun *r = t->nr_runs ? &t->runs[t->nr_runs - 1] : NULL;
	const char *label;

	if (!r || !mod != !r->mod)
		return false;
	label = t->pool.buf + r->mod;
	return !mod || (!strncmp(label, mod, mlen) && !label[mlen]);
}

static int ktab_add(struct ktab *t, uint64_t addr, char type, const char *name, size_t len,
                    const char *mod, size_t mlen)
{
	int64_t off;
	void *p;

	if (!krun_goes_on(t, mod, mlen)) {
		p = grow(t->runs, &t->runs_cap, t->nr_runs + 1, sizeof(*t->runs), 16);
		if (!p)
			return -ENOMEM;
		t->runs = p;
		off = mod ? pool_add(&t->pool, mod, mlen) : 0;
		if (off < 0)
			return off;
		t->runs[t->nr_runs++] = (struct krun){.pool = t->pool.len, .mod = off};
	}
	p = grow(t->syms, &t->cap, t->nr + 1, sizeof(*t->syms), 4096);
	if (!p)
		return -ENOMEM;
	t->syms = p;
	off = pool_add(&t->pool, name, len);
	if (off < 0)
		return off;
	if (off >= KSYM_POOL_MAX)
		return -E2BIG;
	if (t->sorted == t->nr && (!t->nr || addr >= ksym_start(&t->syms[t->nr - 1])))
		t->sorted++;
	t->syms[t->nr++] = (struct ksym){.lo = addr,
	                                 .hi = addr >> 32,
	                                 .name = off,
	                                 .local = type == 't',
	                                 .weak = type == 'w' || type == 'W'};
	return 0;
}

/* A hex digit's value plus one, 0 for other bytes. */
static const unsigned char hex_digit[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Parse "ADDR TYPE NAME[\t[MODULE]]" (a NUL-terminated line) into t. 1 if
 * the address is not zero, 0 if it is, -errno on allocation failure.
 * Malformed lines: 0. */
static int kallsyms_line(struct ktab *t, const char *line)
{
	const char *p = line, *digits, *name, *end, *mod = NULL;
	uint64_t addr = 0;
	size_t mlen = 0;
	char type;
	int d, err;

	while (*p == '0')
		p++;
	digits = p;
	for (; (d = hex_digit[(unsigned char)*p]); p++)
		addr = addr << 4 | (d - 1);
	if (p == line || p - digits > 16 || *p != ' ') /* no address, or over 64 bits */
		return 0;
	p++;
	type = *p++;
	if (!type || *p != ' ')
		return 0;
	name = ++p;
	p += strcspn(p, "\t ");
	if (p == name)
		return 0;
	end = p;
	while (*p == '\t' || *p == ' ')
		p++;
	if (*p == '[') {
		const char *close = strchr(p, ']');

		if (close) {
			mod = p;
			mlen = close + 1 - p;
		}
	}
	if (!addr)
		return 0;
	if (!ktype_is_text(type))
		return 1;
	err = ktab_add(t, addr, type, name, end - name, mod, mlen);
	return err ? err : 1;
}

/* The first bytes of kallsyms, as read. */
struct khead {
	char buf[KCACHE_HEAD];
	size_t len;
};

/* Parse kallsyms from fd into t, bufsize bytes at a time (a line that
 * long or longer is skipped), its first bytes into head. 1 if an address
 * was not zero, 0 if none was, -errno. */
static int kallsyms_read(struct ktab *t, int fd, size_t bufsize, struct khead *head)
{
	char *buf = malloc(bufsize), *line, *nl, *end;
	size_t have = 0;   /* bytes of a line begun before the last read */
	bool skip = false; /* dropping the rest of a line longer than the buffer */
	int visible = 0, r = 0;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	do {
		n = read(fd, buf + have, bufsize - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (head->len < sizeof(head->buf)) {
			size_t k = sizeof(head->buf) - head->len;

			k = k < (size_t)n ? k : (size_t)n;
			memcpy(head->buf + head->len, buf + have, k);
			head->len += k;
		}
		end = buf + have + n;
		if (!n) /* the last line may lack its newline */
			*end++ = '\n';
		for (line = buf; r >= 0 && (nl = memchr(line, '\n', end - line)); line = nl + 1) {
			*nl = '\0';
			r = skip ? 0 : kallsyms_line(t, line);
			visible |= r > 0;
			skip = false;
		}
		have = end - line;
		if (have == bufsize) {
			skip = true;
			have = 0;
		}
		memmove(buf, line, have);
	} while (n && r >= 0);
	free(buf);
	return r < 0 ? r : visible;
}

/* Merge the sorted syms[sorted, nr) into the sorted syms[0, sorted). */
static int ktab_merge(struct ktab *t)
{
	size_t i = t->sorted, j = t->nr - t->sorted, k = t->nr;
	struct ksym *tail = malloc(j * sizeof(*tail));

	if (!tail)
		return -ENOMEM;
	memcpy(tail, t->syms + i, j * sizeof(*tail));
	while (j)
		t->syms[--k] = i && ksym_start(&t->syms[i - 1]) > ksym_start(&tail[j - 1])
		                   ? t->syms[--i]
		                   : tail[--j];
	free(tail);
	return 0;
}

/* Sort what kallsyms did not list in address order (modules, bpf and
 * ftrace symbols may follow the core kernel in any order), keep the best
 * name per address, and give back the spare room. */
static int ktab_finish(struct ktab *t)
{
	size_t i, k = 0;

	if (t->sorted < t->nr) {
		qsort(t->syms + t->sorted, t->nr - t->sorted, sizeof(*t->syms), ksym_cmp);
		if (t->sorted && ksym_cmp(&t->syms[t->sorted - 1], &t->syms[t->sorted]) > 0 &&
		    ktab_merge(t))
			return -ENOMEM;
	}
	for (i = 0; i < t->nr; i++) {
		if (k && ksym_start(&t->syms[k - 1]) == ksym_start(&t->syms[i])) {
			if (ksym_better(t, &t->syms[i], &t->syms[k - 1]))
				t->syms[k - 1] = t->syms[i];
			continue;
		}
		t->syms[k++] = t->syms[i];
	}
	t->nr = t->cap = k;
	t->syms = shrink(t->syms, k, sizeof(*t->syms));
	t->runs = shrink(t->runs, t->runs_cap = t->nr_runs, sizeof(*t->runs));
	t->pool.buf = shrink(t->pool.buf, t->pool.cap = t->pool.len, 1);
	return 0;
}

/* The index of the run symbol k was read in (there is one run at least). */
static size_t ktab_run_index(const struct ktab *t, const struct ksym *k)
{
	size_t lo = 1, hi = t->nr_runs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->runs[mid].pool <= k->name)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

static const struct krun *ktab_run(const struct ktab *t, const struct ksym *k)
{
	return &t->runs[ktab_run_index(t, k)];
}

/* The symbol containing addr in *found, its module label in *mod: 1; 0 if
 * none; -1 if the table names it by an offset outside the pool (a corrupt
 * cache file). */
static int ktab_find(const struct ktab *t, uint64_t addr, const struct ksym **found,
                     const char **mod)
{
	size_t lo = 0, hi = t->nr;
	const struct ksym *k;
	uint64_t size = SYM_TAIL;
	uint32_t m;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ksym_start(&t->syms[mid]) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	/* it ends where the next symbol starts or earlier: no symbol before it
	 * can hold addr */
	k = &t->syms[lo - 1];
	m = ktab_run(t, k)->mod;
	if (lo < t->nr && ktab_run(t, k + 1)->mod == m)
		size = ksym_start(k + 1) - ksym_start(k);
	if (addr - ksym_start(k) >= (size > UINT32_MAX ? UINT32_MAX : size)) /* as struct sym */
		return 0;
	if (k->name >= t->pool.len || m >= t->pool.len) /* the pool ends with a NUL */
		return -1;
	*found = k;
	*mod = t->pool.buf + m;
	return 1;
}

/* Read <root>/proc/kallsyms into t (emptied first), its first bytes into
 * head: 1 when an address was visible (t is finished), 0 when all were
 * zero, -errno; t then holds a partial table, for ktab_free(). */
static int kallsyms_load(struct symbols *s, struct ktab *t, struct khead *head)
{
	char path[PATH_MAX];
	int fd, r;

	head->len = 0;
	r = root_path(s, path, sizeof(path), "/proc/kallsyms");
	if (r)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	s->stats.kallsyms_reads++;
	r = ktab_reset(t);
	if (!r)
		r = kallsyms_read(t, fd, s->kallsyms_buf ? s->kallsyms_buf : KALLSYMS_BUF, head);
	close(fd);
	if (r > 0 && ktab_finish(t))
		r = -ENOMEM;
	return r;
}

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
 * that the pool starts and ends with a NUL, and ktab_find() checks each
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
 */
#define KCACHE_MAGIC     "PFMKSYM\n"
#define KCACHE_VERSION   2 /* 2: aliases ranked as perf ranks them */
#define KCACHE_ORDER     0x01020304u
#define KCACHE_MAX       ((uint64_t)1 << 31) /* a bigger file is not one of ours */
#define KCACHE_PREFIX    "kallsyms-"         /* then the boot id */
#define KCACHE_TEMP      ".kallsyms-"        /* files being written */
#define KCACHE_TEMP_AGE  3600                /* s: a temporary file this old was left behind */
#define KCACHE_SWEEP_MAX 256                 /* directory entries looked at for stale files */
#define KCACHE_PAGE      4096u
#define KMODULES_MAX     (4 << 20) /* bytes of /proc/modules read at most */
#define BOOT_ID_LEN      36
#define NO_MODULES       UINT64_MAX /* kmods.len when /proc/modules does not exist */
#define FNV_BASIS        0xcbf29ce484222325ull

struct kcache_hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint32_t sym_size, run_size, span_size, order; /* the layout of the build that wrote it */
	uint64_t file_size;
	char boot_id[40];                   /* NUL-terminated */
	uint64_t modules_hash, modules_len; /* struct kmods */
	uint64_t head_off, head_len;
	uint64_t syms_off, nr_syms;
	uint64_t runs_off, nr_runs;
	uint64_t spans_off, nr_spans;
	uint64_t pool_off, pool_len;
};

_Static_assert(sizeof(struct kcache_hdr) % 8 == 0, "the sections follow the header aligned");

/* What /proc/modules says of the modules loaded: a hash of the name, size,
 * state and address of each (not of the reference counts and users, which
 * change with use), and their names. */
struct kmods {
	uint64_t hash, len; /* FNV-1a of those fields, bytes hashed (NO_MODULES: no file) */
	char *names;        /* "ext4\0xfs\0" ... */
	size_t names_len;
};

/* What the cache is checked against and named by, taken before kallsyms is
 * read (a module loaded during the read then invalidates the file). */
struct kenv {
	const char *why; /* NULL: the cache can be used; else why not (stats) */
	char dir[PATH_MAX];
	char boot_id[BOOT_ID_LEN + 1];
	struct kmods mods;
};

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
	r = root_path(s, path, sizeof(path), "/proc/modules");
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

	if (root_path(s, path, sizeof(path), "/proc/sys/kernel/random/boot_id"))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf));
		close(fd);
	}
	if (n < BOOT_ID_LEN || (n > BOOT_ID_LEN && buf[BOOT_ID_LEN] != '\n'))
		return -1;
	for (int i = 0; i < BOOT_ID_LEN; i++)
		if (!hex_digit[(unsigned char)buf[i]] && buf[i] != '-')
			return -1;
	memcpy(id, buf, BOOT_ID_LEN);
	id[BOOT_ID_LEN] = '\0';
	return 0;
}

/* The cache directory's path into dir: NULL, or why there is none. The
 * environment is read with secure_getenv(): a process with more privileges
 * than its user (file capabilities, setuid) may see kernel addresses its
 * user may not, and must not write them where that user says. */
static const char *kcache_dir_path(const struct symbols *s, char *dir, size_t len)
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
static int kcache_dir_open(const char *dir, bool create)
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
static void kenv_get(const struct symbols *s, struct kenv *e)
{
	memset(&e->mods, 0, sizeof(e->mods));
	e->why = kcache_dir_path(s, e->dir, sizeof(e->dir));
	if (!e->why && boot_id_read(s, e->boot_id))
		e->why = "noboot";
	if (!e->why && kmods_read(s, &e->mods))
		e->why = "nomodules";
}

static void kenv_free(struct kenv *e)
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
		for (; p < nl && hex_digit[(unsigned char)*p]; p++)
			if (*p != '0')
				return true;
	}
	return false;
}

/* Does <root>/proc/kallsyms begin, now, with the len bytes at head? One
 * read of KCACHE_HEAD bytes: the kernel formats only the lines asked for. */
static bool kallsyms_head_same(const struct symbols *s, const char *head, size_t len)
{
	char path[PATH_MAX], buf[KCACHE_HEAD];
	size_t got = 0;
	ssize_t n;
	int fd;

	if (len > sizeof(buf) || root_path(s, path, sizeof(path), "/proc/kallsyms"))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (got < len) {
		n = read(fd, buf + got, sizeof(buf) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	return got >= len && !memcmp(buf, head, len);
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
	    !h->pool_len || h->pool_len > UINT32_MAX || p[h->pool_off] ||
	    p[h->pool_off + h->pool_len - 1] || p[h->head_off + h->head_len - 1] != '\n' ||
	    !head_visible(p + h->head_off, h->head_len))
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

/* Map the cache file of this boot into t (replacing what t held) when it is
 * valid: NULL, or why it was not used (t is then unchanged). */
static const char *kcache_load(const struct symbols *s, const struct kenv *e, struct ktab *t)
{
	char name[sizeof(KCACHE_PREFIX) + BOOT_ID_LEN];
	const struct kcache_hdr *h;
	const char *why = NULL;
	char phrase[96];
	struct ktab c;
	struct stat st;
	void *map = MAP_FAILED;
	int dfd, fd;

	if (e->why)
		return e->why;
	dfd = kcache_dir_open(e->dir, false);
	if (dfd < 0)
		return dfd == -ENOENT ? "missing" : "nodir";
	kcache_name(name, sizeof(name), e->boot_id);
	/* O_NONBLOCK: a FIFO put there must not hang us (it is rejected) */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
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
	if (!why && strcmp(h->boot_id, e->boot_id))
		why = "boot";
	if (!why && (h->modules_hash != e->mods.hash || h->modules_len != e->mods.len))
		why = "modules";
	if (!why && !kallsyms_head_same(s, (const char *)map + h->head_off, h->head_len))
		why = "head";
	if (why) {
		munmap(map, st.st_size);
		return why;
	}
	ktab_free(t);
	*t = c;
	t->map = map;
	t->map_len = st.st_size;
	return NULL;
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
static uint64_t kspan_end(uint64_t a)
{
	uint64_t page_end = (a | (KCACHE_PAGE - 1)) + 1; /* 0: a is in the last page */

	if (a > UINT64_MAX - SYM_TAIL)
		return page_end ? page_end : UINT64_MAX;
	return page_end && page_end < a + SYM_TAIL ? page_end : a + SYM_TAIL;
}

/* Remove the cache files of other boots, and temporary files left behind
 * (KCACHE_TEMP_AGE old), from the directory dfd: KCACHE_SWEEP_MAX entries
 * looked at, at most. */
static void kcache_sweep(int dfd, const char *keep)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	time_t now = time(NULL);
	struct dirent *de;
	struct stat st;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (int n = 0; n < KCACHE_SWEEP_MAX && (de = readdir(d)); n++) {
		if (has_prefix(de->d_name, KCACHE_PREFIX) && strcmp(de->d_name, keep))
			unlinkat(dfd, de->d_name, 0);
		else if (has_prefix(de->d_name, KCACHE_TEMP) &&
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
static void kcache_write(struct symbols *s, const struct kenv *e, const struct ktab *t,
                         const struct khead *head)
{
	char name[sizeof(KCACHE_PREFIX) + BOOT_ID_LEN], tmp[64];
	struct kcache_hdr h = {.magic = KCACHE_MAGIC};
	size_t hlen = head->len, i;
	struct kspan *spans = NULL;
	struct kwriter *w = NULL;
	bool *keep = NULL, ok;
	int dfd, fd = -1;

	while (hlen && head->buf[hlen - 1] != '\n') /* whole lines */
		hlen--;
	if (e->why || !t->nr || !t->nr_runs || !head_visible(head->buf, hlen))
		return;
	dfd = kcache_dir_open(e->dir, true);
	if (dfd < 0)
		return;
	keep = malloc(t->nr_runs * sizeof(*keep));
	spans = malloc(t->nr_runs * sizeof(*spans));
	w = malloc(sizeof(*w));
	if (!keep || !spans || !w)
		goto out;
	for (i = 0; i < 8 && fd < 0; i++) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(tmp, sizeof(tmp), KCACHE_TEMP "%ld-%lx", (long)getpid(),
		         (unsigned long)(ts.tv_nsec ^ ts.tv_sec << 20) + i);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		goto out;
	*w = (struct kwriter){.fd = fd};

	/* Dynamic code (BPF, trampolines: "modules" /proc/modules does not
	 * list) changes without anything the cache checks noticing: left out
	 * (see kernel_refresh()). Their names stay in the pool, unused; the
	 * symbols of a run left out now fall in the run before it, which is
	 * fine as none of them is in the file. */
	for (i = 0; i < t->nr_runs; i++) {
		keep[i] = !t->runs[i].mod || kmods_has(&e->mods, t->pool.buf + t->runs[i].mod);
		spans[i] = (struct kspan){UINT64_MAX, 0};
	}
	kw_put(w, &h, sizeof(h)); /* written again at the end */
	h.syms_off = kw_align(w);
	for (i = 0; i < t->nr; i++) {
		size_t r = ktab_run_index(t, &t->syms[i]);
		uint64_t a = ksym_start(&t->syms[i]);

		if (!keep[r])
			continue;
		spans[r].lo = a < spans[r].lo ? a : spans[r].lo;
		a = kspan_end(a);
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
	kw_flush(w);

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
	ok = !w->failed && h.nr_syms && pwrite(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h);
	ok = !close(fd) && ok;
	kcache_name(name, sizeof(name), e->boot_id);
	if (ok && !renameat(dfd, tmp, dfd, name)) {
		s->stats.cache_writes++;
		kcache_sweep(dfd, name);
	} else {
		unlinkat(dfd, tmp, 0);
	}
out:
	free(w);
	free(spans);
	free(keep);
	close(dfd);
}

/* Remove the cache file of this boot (kallsyms hides its addresses from us
 * now: do not keep them either). */
static void kcache_drop(const struct kenv *e)
{
	char name[sizeof(KCACHE_PREFIX) + BOOT_ID_LEN];
	int dfd;

	if (e->why || (dfd = kcache_dir_open(e->dir, false)) < 0)
		return;
	kcache_name(name, sizeof(name), e->boot_id);
	unlinkat(dfd, name, 0);
	close(dfd);
}

int symbols_load_kernel(struct symbols *s)
{
	struct khead head;
	struct kenv e;
	const char *why;
	int r;

	s->krefreshed = false;
	s->stats.kernel_symbols = 0;
	s->stats.kernel_source = SYMBOLS_KERNEL_NONE;
	kenv_get(s, &e);
	why = kcache_load(s, &e, &s->ktab);
	s->stats.kernel_cache = why ? why : "hit";
	r = why ? kallsyms_load(s, &s->ktab, &head) : 1;
	if (why && r > 0)
		kcache_write(s, &e, &s->ktab, &head);
	else if (!r) /* no address that was not zero */
		kcache_drop(&e);
	kenv_free(&e);
	if (r <= 0) {
		ktab_free(&s->ktab);
		s->kstate = r ? KERNEL_FAILED : KERNEL_HIDDEN;
		return r;
	}
	s->kstate = KERNEL_LOADED;
	s->stats.kernel_symbols = s->ktab.nr;
	s->stats.kernel_source = why ? SYMBOLS_KERNEL_KALLSYMS : SYMBOLS_KERNEL_CACHE;
	return 0;
}

int symbols_set_cache_dir(struct symbols *s, const char *dir)
{
	size_t n;

	if (!dir) {
		s->kcache = KCACHE_OFF;
		return 0;
	}
	n = strlen(dir);
	if (n >= sizeof(s->kcache_dir))
		return -ENAMETOOLONG;
	memcpy(s->kcache_dir, dir, n + 1);
	while (n > 1 && s->kcache_dir[n - 1] == '/')
		s->kcache_dir[--n] = '\0';
	s->kcache = KCACHE_DIR;
	return 0;
}

void symbols_set_kallsyms_buffer(struct symbols *s, size_t bytes)
{
	s->kallsyms_buf = bytes;
}

bool symbols_kernel_hidden(const struct symbols *s)
{
	return s->kstate == KERNEL_HIDDEN || s->kstate == KERNEL_FAILED;
}

/* Can the table place ip: is it in the core kernel's or a module's span?
 * A table read from kallsyms places every ip. */
static bool ktab_places(const struct ktab *t, uint64_t ip)
{
	if (!t->map)
		return true;
	for (size_t i = 0; i < t->nr_spans; i++)
		if (ip >= t->spans[i].lo && ip < t->spans[i].hi)
			return true;
	return false;
}

/*
 * A table from the cache holds the core kernel and the modules
 * /proc/modules listed. Code the kernel makes as it runs (BPF JIT images
 * "[bpf]", ftrace and kprobe trampolines "[__builtin__ftrace]" ...: module
 * labels of kallsyms that are not modules) comes and goes without anything
 * the cache is checked against changing, so it is not in the file. An ip
 * the table cannot place (ktab_places(): in none of its spans, each from
 * the first symbol of the core kernel or of a module to SYM_TAIL past its
 * last, or less, to the end of that symbol's page: see kspan_end()), or
 * that it names by a bad offset (a corrupt file), may be such
 * code: kallsyms is then read in full, once, exactly as without the cache,
 * and that table is used for the rest of the run (and written to the
 * cache). Without the cache kallsyms is read once, at start, and never
 * again; reading it once, when first needed, keeps that: one table as
 * kallsyms was at one moment, one read per run at most. When that read
 * fails or finds the addresses hidden now, the cache's table is kept.
 */
static void kernel_refresh(struct symbols *s)
{
	struct ktab t = {0};
	struct khead head;
	struct kenv e;

	if (s->krefreshed || !s->ktab.map)
		return;
	s->krefreshed = true;
	kenv_get(s, &e);
	if (kallsyms_load(s, &t, &head) > 0) {
		ktab_free(&s->ktab);
		s->ktab = t;
		s->stats.kernel_symbols = t.nr;
		s->stats.kernel_source = SYMBOLS_KERNEL_KALLSYMS;
		kcache_write(s, &e, &s->ktab, &head);
	} else {
		ktab_free(&t);
	}
	kenv_free(&e);
}

static void resolve_kernel(struct symbols *s, uint64_t ip, struct symbols_result *out)
{
	const struct ksym *k;
	const char *mod;
	int found;

	if (s->kstate == KERNEL_NOT_TRIED)
		symbols_load_kernel(s);
	if (s->kstate != KERNEL_LOADED) {
		result_set(out, SYMBOLS_KERNEL_HIDDEN, "[kernel]", 0, "[kernel]");
		return;
	}
	if (!ktab_places(&s->ktab, ip))
		kernel_refresh(s);
	found = ktab_find(&s->ktab, ip, &k, &mod);
	if (found < 0) {
		s->stats.kernel_cache = "corrupt";
		kernel_refresh(s);
		found = ktab_find(&s->ktab, ip, &k, &mod);
	}
	if (found <= 0) {
		result_set(out, SYMBOLS_UNKNOWN, "[unknown]", 0, "[kernel]");
		return;
	}
	result_set(out, SYMBOLS_FOUND, s->ktab.pool.buf + k->name, ip - ksym_start(k),
	           *mod ? mod : "[kernel]");
}

/* ---- binaries ---- */

static size_t dso_hash(uint32_t maj, uint32_t min, uint64_t ino, const char *path)
{
	uint64_t h = 1469598103934665603ULL;

	if (ino) {
		h ^= ino;
		h *= 1099511628211ULL;
		h ^= (uint64_t)maj << 32 | min;
		h *= 1099511628211ULL;
		return h ^ h >> 29;
	}
	for (; *path; path++) {
		h ^= (unsigned char)*path;
		h *= 1099511628211ULL;
	}
	return h ^ h >> 29;
}

static bool dso_is(const struct dso *d, uint32_t maj, uint32_t min, uint64_t ino, const char *path)
{
	if (ino)
		return d->ino == ino && d->maj == maj && d->min == min;
	return !d->ino && !strcmp(d->path, path);
}

static void dso_destroy(struct dso *d)
{
	free(d->segs);
	symtab_free(&d->tab);
	free(d->path);
	free(d->file);
	free(d);
}

static void unused_unlink(struct symbols *s, struct dso *d)
{
	if (d->uprev)
		d->uprev->unext = d->unext;
	else
		s->unused_head = d->unext;
	if (d->unext)
		d->unext->uprev = d->uprev;
	else
		s->unused_tail = d->uprev;
	d->uprev = d->unext = NULL;
	d->unused = false;
	s->nr_unused--;
}

static void dso_evict(struct symbols *s, struct dso *d)
{
	struct dso **pp = &s->dsos[dso_hash(d->maj, d->min, d->ino, d->path) % s->dsos_buckets];

	while (*pp && *pp != d)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = d->hnext;
	if (d->unused)
		unused_unlink(s, d);
	s->nr_dsos--;
	s->stats.binaries = s->nr_dsos;
	dso_destroy(d);
}

static void dso_ref(struct symbols *s, struct dso *d)
{
	if (d->unused)
		unused_unlink(s, d);
	d->refs++;
}

static void dso_put(struct symbols *s, struct dso *d)
{
	if (--d->refs)
		return;
	d->unused = true;
	d->uprev = s->unused_tail;
	d->unext = NULL;
	if (s->unused_tail)
		s->unused_tail->unext = d;
	else
		s->unused_head = d;
	s->unused_tail = d;
	s->nr_unused++;
	if (s->nr_unused > UNUSED_KEEP)
		dso_evict(s, s->unused_head);
}

static int dsos_grow(struct symbols *s)
{
	size_t nb = s->dsos_buckets ? s->dsos_buckets * 2 : 64, i;
	struct dso **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (i = 0; i < s->dsos_buckets; i++) {
		struct dso *d = s->dsos[i], *next;

		for (; d; d = next) {
			size_t h = dso_hash(d->maj, d->min, d->ino, d->path) % nb;

			next = d->hnext;
			d->hnext = b[h];
			b[h] = d;
		}
	}
	free(s->dsos);
	s->dsos = b;
	s->dsos_buckets = nb;
	return 0;
}

/* The binary for this file, found or added (unread, no references). */
static struct dso *dso_get(struct symbols *s, const char *path, uint32_t maj, uint32_t min,
                           uint64_t ino)
{
	struct dso *d;
	size_t h;

	if (s->dsos_buckets) {
		h = dso_hash(maj, min, ino, path) % s->dsos_buckets;
		for (d = s->dsos[h]; d; d = d->hnext)
			if (dso_is(d, maj, min, ino, path))
				return d;
	}
	if (s->nr_dsos >= s->dsos_buckets && dsos_grow(s))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->maj = maj;
	d->min = min;
	d->ino = ino;
	d->deleted = has_suffix(path, " (deleted)");
	d->path = strdup(path);
	d->file = strndup(path, strlen(path) - (d->deleted ? strlen(" (deleted)") : 0));
	if (!d->path || !d->file) {
		dso_destroy(d);
		return NULL;
	}
	d->base = basename_of(d->file);
	h = dso_hash(maj, min, ino, path) % s->dsos_buckets;
	d->hnext = s->dsos[h];
	s->dsos[h] = d;
	s->nr_dsos++;
	s->stats.binaries = s->nr_dsos;
	return d;
}

/* Read the function symbols of the first section of this type. -ENOENT
 * when there is none or it holds no functions. */
static int dso_read_syms(struct dso *d, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *data;
	struct tabbuild b = {0};
	size_t i, n;
	int err = 0;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	if (!scn || !sh.sh_entsize)
		return -ENOENT;
	data = elf_getdata(scn, NULL);
	if (!data)
		return -ENOENT;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; !err && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int stt, stb;

		if (!gelf_getsym(data, i, &sym))
			break;
		stt = GELF_ST_TYPE(sym.st_info);
		stb = GELF_ST_BIND(sym.st_info);
		if ((stt != STT_FUNC && stt != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		err = build_add(
		    &b, sym.st_value, sym.st_size, name, strlen(name),
		    rank_of(sym.st_size, stb == STB_LOCAL, stb == STB_WEAK, name, strlen(name)));
	}
	if (!err && !b.nr)
		err = -ENOENT;
	if (err) {
		build_free(&b);
		return err;
	}
	return build_finish(&b, &d->tab);
}

/* Open path read-only if it is a regular file (and, when ino is not 0,
 * that inode). fd or -errno. */
static int open_regular(const char *path, uint64_t ino)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (ino && st.st_ino != ino)) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

/* ---- separate debug files ---- */

/* Where distributions install debug files (gdb's and perf's default). */
#define DEBUG_DIR "/usr/lib/debug"

/* Longest build id taken; GNU ld writes 20 bytes (SHA-1), some use 16 or 32. */
#define BUILD_ID_MAX 64

/* The build id in elf's NT_GNU_BUILD_ID note: its length, or -ENOENT. */
static int elf_build_id(Elf *elf, unsigned char *id, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name, desc;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name, &desc))) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != sizeof(ELF_NOTE_GNU) ||
			    memcmp((const char *)data->d_buf + name, ELF_NOTE_GNU,
			           sizeof(ELF_NOTE_GNU)) ||
			    !nh.n_descsz || nh.n_descsz > len)
				continue;
			memcpy(id, (const char *)data->d_buf + desc, nh.n_descsz);
			return nh.n_descsz;
		}
	}
	return -ENOENT;
}

/* DEBUG_DIR/.build-id/XX/YYYY.debug for build id id: the first byte names
 * the directory, the rest the file. 0, or -EINVAL / -ENAMETOOLONG. */
static int build_id_path(char *out, size_t len, const unsigned char *id, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t prefix = strlen(DEBUG_DIR "/.build-id/"), need = prefix + 2 * n + 1 + 6 + 1, i;
	char *p;

	/* gdb and perf want a directory byte and at least one more */
	if (n < 2)
		return -EINVAL;
	if (need > len)
		return -ENAMETOOLONG;
	memcpy(out, DEBUG_DIR "/.build-id/", prefix);
	p = out + prefix;
	for (i = 0; i < n; i++) {
		if (i == 1)
			*p++ = '/';
		*p++ = hex[id[i] >> 4];
		*p++ = hex[id[i] & 0xf];
	}
	memcpy(p, ".debug", sizeof(".debug"));
	return 0;
}

/*
 * The .gnu_debuglink of elf: the debug file's name (a plain file name,
 * looked up in fixed directories) and the CRC-32 of its contents. 0, or
 * -ENOENT when there is none or it is malformed.
 */
static int elf_debuglink(Elf *elf, char *name, size_t len, uint32_t *crc)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx, n, at;
	const unsigned char *b;
	Elf_Data *data;
	const char *sname, *ident;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sname && !strcmp(sname, ".gnu_debuglink"))
			break;
	}
	if (!scn)
		return -ENOENT;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return -ENOENT;
	b = data->d_buf;
	n = strnlen((const char *)b, data->d_size);
	/* the name, NUL, padding to 4, then the CRC in the file's byte order */
	at = (n + 1 + 3) & ~(size_t)3;
	if (!n || n >= len || at + 4 > data->d_size)
		return -ENOENT;
	/* a name with a slash could point anywhere: not a debug file name */
	if (memchr(b, '/', n) || !strcmp((const char *)b, ".") || !strcmp((const char *)b, ".."))
		return -ENOENT;
	memcpy(name, b, n + 1);
	ident = elf_getident(elf, NULL);
	if (ident && ident[EI_DATA] == ELFDATA2MSB)
		*crc = (uint32_t)b[at] << 24 | (uint32_t)b[at + 1] << 16 |
		       (uint32_t)b[at + 2] << 8 | b[at + 3];
	else
		*crc = (uint32_t)b[at + 3] << 24 | (uint32_t)b[at + 2] << 16 |
		       (uint32_t)b[at + 1] << 8 | b[at];
	return 0;
}

/* The CRC-32 .gnu_debuglink uses (zlib's: reflected 0xedb88320). */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	static uint32_t table[256];
	static bool ready;
	size_t i;

	if (!ready) {
		for (i = 0; i < 256; i++) {
			uint32_t c = i;
			int k;

			for (k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ c >> 1 : c >> 1;
			table[i] = c;
		}
		ready = true;
	}
	crc = ~crc;
	for (i = 0; i < n; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ crc >> 8;
	return ~crc;
}

/* CRC-32 of the whole file behind fd (read from offset 0). */
static int file_crc32(int fd, uint32_t *out)
{
	unsigned char buf[16384];
	uint32_t crc = 0;
	off_t off = 0;

	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf), off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			break;
		crc = crc32_update(crc, buf, n);
		off += n;
	}
	*out = crc;
	return 0;
}

/* Open a debug file at path as pid sees it (its root first, like the
 * binaries), then as we do. fd or -errno. */
static int debug_open(const struct symbols *s, pid_t pid, const char *path)
{
	char full[PATH_MAX];
	int fd = -ENOENT;

	if (!root_path(s, full, sizeof(full), "/proc/%d/root%s", (int)pid, path)) {
		fd = open_regular(full, 0);
		if (fd >= 0)
			return fd;
	}
	if (!root_path(s, full, sizeof(full), "%s", path))
		fd = open_regular(full, 0);
	return fd;
}

/* fd (taken) if it is an ELF file with build id id (n bytes), with *elf
 * set; else -ENOENT, fd closed. A debug file carries its binary's note:
 * anything else is stale. */
static int elf_with_build_id(int fd, const unsigned char *id, size_t n, Elf **elf)
{
	unsigned char got[BUILD_ID_MAX];

	*elf = elf_begin(fd, ELF_C_READ, NULL);
	if (*elf && elf_kind(*elf) == ELF_K_ELF && elf_build_id(*elf, got, sizeof(got)) == (int)n &&
	    !memcmp(got, id, n))
		return fd;
	elf_end(*elf);
	close(fd);
	return -ENOENT;
}

/*
 * perf's build-id cache of the user running pfmtop: ~/.debug/.build-id/XX/
 * REST links to a directory holding "debug" (from debuginfod) and "elf" (the
 * binary as it was cached, with its symbols). Its links are followed, but a
 * file is taken only if that user owns it or anyone may read it: root's
 * pfmtop shows nothing a link could point it at that the user cannot see.
 */
static int debug_in_home(const unsigned char *id, size_t n, Elf **elf)
{
	static const char *const names[] = {"/debug", "/elf", ""};
	const char *home = getenv("HOME");
	char hex[2 * BUILD_ID_MAX + 1], path[PATH_MAX];
	struct stat hs, st;

	if (!home || home[0] != '/' || n < 2 || stat(home, &hs))
		return -ENOENT;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		int len = snprintf(path, sizeof(path), "%s/.debug/.build-id/%.2s/%s%s", home, hex,
		                   hex + 2, names[k]);
		int fd = len > 0 && (size_t)len < sizeof(path) ? open_regular(path, 0) : -ENOENT;
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || (st.st_uid != hs.st_uid && !(st.st_mode & S_IROTH))) {
			close(fd);
			continue;
		}
		fd = elf_with_build_id(fd, id, n, elf);
		if (fd >= 0)
			return fd;
	}
	return -ENOENT;
}

/* A debug file for a binary with build id id (n bytes, 0: none), or
 * -ENOENT: under DEBUG_DIR, then in the user's perf cache. *elf is set on
 * success; the caller ends it and closes the fd. */
static int debug_by_build_id(const struct symbols *s, pid_t pid, const unsigned char *id, size_t n,
                             Elf **elf)
{
	char path[PATH_MAX];
	int fd = -ENOENT;

	if (!build_id_path(path, sizeof(path), id, n))
		fd = debug_open(s, pid, path);
	if (fd >= 0 && (fd = elf_with_build_id(fd, id, n, elf)) >= 0)
		return fd;
	return s->root[0] ? -ENOENT : debug_in_home(id, n, elf);
}

/* A debug file named by the binary's .gnu_debuglink whose contents match
 * its CRC, where gdb looks: beside the binary, in .debug/ there, and under
 * DEBUG_DIR with the binary's directory. fd with *elf set, or -ENOENT. */
static int debug_by_link(const struct symbols *s, const struct dso *d, pid_t pid, Elf *bin,
                         Elf **elf)
{
	static const struct {
		const char *pre, *mid;
	} dirs[] = {{"", "/"}, {"", "/.debug/"}, {DEBUG_DIR, "/"}};
	const char *slash = strrchr(d->file, '/');
	char name[NAME_MAX + 1], path[PATH_MAX];
	uint32_t want, crc = 0;
	size_t i;

	if (!slash || elf_debuglink(bin, name, sizeof(name), &want))
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		int n = snprintf(path, sizeof(path), "%s%.*s%s%s", dirs[i].pre,
		                 (int)(slash - d->file), d->file, dirs[i].mid, name);
		int fd;

		/* the binary itself (a link naming its own file) is no debug file */
		if (n < 0 || (size_t)n >= sizeof(path) || !strcmp(path, d->file))
			continue;
		fd = debug_open(s, pid, path);
		if (fd < 0)
			continue;
		if (!file_crc32(fd, &crc) && crc == want) {
			*elf = elf_begin(fd, ELF_C_READ, NULL);
			if (*elf && elf_kind(*elf) == ELF_K_ELF)
				return fd;
			elf_end(*elf);
		}
		close(fd);
	}
	return -ENOENT;
}

/*
 * Function symbols from the binary's separate debug file (libc6-dbg and
 * the like), which holds the full .symtab a stripped binary lacks: found
 * by build id, else by .gnu_debuglink. Its addresses are the binary's, so
 * the binary's segments still map file offsets to them. 0 when read, or
 * -ENOENT when there is no usable debug file (or it names no function).
 */
static int dso_read_debug(const struct symbols *s, struct dso *d, pid_t pid, Elf *bin)
{
	unsigned char id[BUILD_ID_MAX];
	int n = elf_build_id(bin, id, sizeof(id)), fd = -ENOENT, err;
	Elf *elf = NULL;

	if (n > 0)
		fd = debug_by_build_id(s, pid, id, n, &elf);
	if (fd < 0)
		fd = debug_by_link(s, d, pid, bin, &elf);
	if (fd < 0)
		return -ENOENT;
	err = dso_read_syms(d, elf, SHT_SYMTAB);
	elf_end(elf);
	close(fd);
	return err;
}

/* The loadable segments and function symbols of elf into d; pid < 0: no
 * debug file is looked for. */
static int dso_read_image(struct symbols *s, struct dso *d, pid_t pid, Elf *elf)
{
	size_t phnum, i;
	int err;

	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &phnum))
		return -ENOEXEC;
	d->segs = calloc(phnum ? phnum : 1, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->nr_segs++] =
		    (struct seg){.off = ph.p_offset, .filesz = ph.p_filesz, .vaddr = ph.p_vaddr};
	}
	/* a debug file's .symtab is the fullest, then the binary's own */
	if (pid >= 0 && !dso_read_debug(s, d, pid, elf)) {
		s->stats.debug_loads++;
		return 0;
	}
	err = dso_read_syms(d, elf, SHT_SYMTAB);
	if (err == -ENOENT)
		err = dso_read_syms(d, elf, SHT_DYNSYM);
	if (err == -ENOENT)
		err = 0; /* stripped: ips still get module+0xVADDR */
	return err;
}

static int dso_read_elf(struct symbols *s, struct dso *d, pid_t pid, int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	int err;

	if (!elf)
		return -ENOEXEC;
	err = dso_read_image(s, d, pid, elf);
	elf_end(elf);
	return err;
}

/*
 * Open the file behind map m of pid. A deleted file is read through
 * map_files (the very file the process maps) or at its old path if the
 * inode still matches; a live one through the process's root first.
 */
static int dso_open(struct symbols *s, const struct dso *d, pid_t pid, const struct map *m)
{
	char path[PATH_MAX];
	uint64_t ino = d->deleted ? d->ino : 0;
	int fd = -ENOENT;

	if (d->deleted &&
	    !root_path(s, path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
	               (unsigned long long)m->start, (unsigned long long)m->end)) {
		fd = open_regular(path, 0);
		if (fd >= 0)
			return fd;
	}
	if (d->file[0] != '/')
		return -ENOENT;
	if (!root_path(s, path, sizeof(path), "/proc/%d/root%s", (int)pid, d->file)) {
		fd = open_regular(path, ino);
		if (fd >= 0)
			return fd;
	}
	if (!root_path(s, path, sizeof(path), "%s", d->file))
		fd = open_regular(path, ino);
	return fd;
}

static void dso_load(struct symbols *s, struct dso *d, pid_t pid, const struct map *m)
{
	int fd = dso_open(s, d, pid, m), err;

	if (fd < 0) {
		d->state = DSO_FAILED;
		s->stats.elf_failures++;
		return;
	}
	err = dso_read_elf(s, d, pid, fd);
	close(fd);
	if (err) {
		free(d->segs);
		d->segs = NULL;
		d->nr_segs = 0;
		symtab_free(&d->tab);
		d->state = DSO_FAILED;
		s->stats.elf_failures++;
		return;
	}
	d->state = DSO_LOADED;
	s->stats.elf_loads++;
}

/* The loaded segment holding file offset off (PT_LOAD file ranges do not
 * overlap). */
static const struct seg *dso_seg(const struct dso *d, uint64_t off)
{
	size_t i;

	for (i = 0; i < d->nr_segs; i++)
		if (off - d->segs[i].off < d->segs[i].filesz)
			return &d->segs[i];
	return NULL;
}

/* ip in map m of an image d: its function, or module+0xVADDR. */
static void resolve_in(const struct dso *d, const struct map *m, uint64_t ip,
                       struct symbols_result *out)
{
	uint64_t off = ip - m->start + m->pgoff, vaddr;
	const struct seg *seg;
	ssize_t i;

	if (d->state != DSO_LOADED || !(seg = dso_seg(d, off))) {
		result_no_symbol(out, d->base, off);
		return;
	}
	vaddr = off - seg->off + seg->vaddr;
	i = symtab_find(&d->tab, vaddr);
	if (i < 0) {
		result_no_symbol(out, d->base, vaddr);
		return;
	}
	result_set(out, SYMBOLS_FOUND, d->tab.pool + d->tab.syms[i].name,
	           vaddr - d->tab.syms[i].start, d->base);
}

static void resolve_file(struct symbols *s, struct proc *p, const struct map *m, uint64_t ip,
                         struct symbols_result *out)
{
	if (m->dso->state == DSO_NEW)
		dso_load(s, m->dso, p->pid, m);
	resolve_in(m->dso, m, ip, out);
}

/* ---- the vDSO ---- */

/* The largest vDSO taken (they are a few pages). */
#define VDSO_MAX (1u << 20)

/* pfmtop's own [vdso] mapping, from /proc/self/maps. 0 or -ENOENT. */
static int own_vdso(uint64_t *start, uint64_t *size)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	int ret = -ENOENT;

	if (!f)
		return -ENOENT;
	while (ret && fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		if (strstr(line, " [vdso]") && sscanf(line, "%llx-%llx", &a, &b) == 2 && b > a &&
		    b - a <= VDSO_MAX) {
			*start = a;
			*size = b - a;
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/*
 * The kernel maps the same vDSO image into every native process: its
 * symbols are read once, from the copy in pfmtop's own memory (nothing is
 * read from another process). A mapping of another size (a 32-bit
 * process's image) is not this one. NULL when there is none.
 */
static const struct dso *vdso_get(struct symbols *s, uint64_t size)
{
	uint64_t start, own;
	char *copy;
	Elf *elf;

	if (!s->vdso_tried) {
		s->vdso_tried = true;
		if (own_vdso(&start, &own))
			return NULL;
		copy = malloc(own);
		s->vdso = calloc(1, sizeof(*s->vdso));
		if (!copy || !s->vdso || !(s->vdso->path = strdup("[vdso]")) ||
		    !(s->vdso->file = strdup("[vdso]"))) {
			free(copy);
			if (s->vdso)
				dso_destroy(s->vdso);
			s->vdso = NULL;
			return NULL;
		}
		memcpy(copy, (const void *)(uintptr_t)start, own);
		s->vdso->base = s->vdso->file;
		elf = elf_memory(copy, own);
		if (!elf || dso_read_image(s, s->vdso, -1, elf)) {
			dso_destroy(s->vdso);
			s->vdso = NULL;
		} else {
			s->vdso->state = DSO_LOADED;
			s->vdso_size = own;
		}
		if (elf)
			elf_end(elf);
		free(copy);
	}
	return s->vdso && size == s->vdso_size ? s->vdso : NULL;
}

/* ---- processes and their mappings ---- */

static size_t pid_hash(pid_t pid, size_t buckets)
{
	return ((uint32_t)pid * 2654435761u) % buckets;
}

static struct proc *proc_find(const struct symbols *s, pid_t pid)
{
	struct proc *p;

	if (!s->procs_buckets)
		return NULL;
	for (p = s->procs[pid_hash(pid, s->procs_buckets)]; p; p = p->hnext)
		if (p->pid == pid)
			return p;
	return NULL;
}

static int procs_grow(struct symbols *s)
{
	size_t nb = s->procs_buckets ? s->procs_buckets * 2 : 256, i;
	struct proc **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (i = 0; i < s->procs_buckets; i++) {
		struct proc *p = s->procs[i], *next;

		for (; p; p = next) {
			size_t h = pid_hash(p->pid, nb);

			next = p->hnext;
			p->hnext = b[h];
			b[h] = p;
		}
	}
	free(s->procs);
	s->procs = b;
	s->procs_buckets = nb;
	return 0;
}

static struct proc *proc_add(struct symbols *s, pid_t pid)
{
	struct proc *p;
	size_t h;

	if (s->nr_procs >= s->procs_buckets && procs_grow(s))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	h = pid_hash(pid, s->procs_buckets);
	p->hnext = s->procs[h];
	s->procs[h] = p;
	s->nr_procs++;
	s->stats.processes = s->nr_procs;
	return p;
}

static struct proc *proc_get(struct symbols *s, pid_t pid)
{
	struct proc *p = proc_find(s, pid);

	return p ? p : proc_add(s, pid);
}

static void proc_clear_maps(struct symbols *s, struct proc *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		if (p->maps[i].dso)
			dso_put(s, p->maps[i].dso);
	p->nr = 0;
}

static void jit_clear(struct jit *j)
{
	symtab_free(&j->tab);
	memset(j, 0, sizeof(*j));
}

static void proc_unlink(struct symbols *s, struct proc *p)
{
	struct proc **pp = &s->procs[pid_hash(p->pid, s->procs_buckets)];

	while (*pp && *pp != p)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = p->hnext;
	p->hnext = NULL;
	s->nr_procs--;
	s->stats.processes = s->nr_procs;
}

/* Free an unlinked p and drop its references. */
static void proc_destroy(struct symbols *s, struct proc *p)
{
	proc_clear_maps(s, p);
	free(p->maps);
	jit_clear(&p->jit);
	free(p);
}

static void proc_remove(struct symbols *s, struct proc *p)
{
	proc_unlink(s, p);
	proc_destroy(s, p);
}

static int maps_reserve(struct proc *p, size_t more)
{
	size_t cap = p->cap ? p->cap : 16;
	struct map *v;

	if (p->nr + more <= p->cap)
		return 0;
	while (cap < p->nr + more)
		cap *= 2;
	v = realloc(p->maps, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->maps = v;
	p->cap = cap;
	return 0;
}

/* Insert m (its dso reference taken here), cutting what it overlaps. */
static int proc_insert(struct symbols *s, struct proc *p, const struct map *m)
{
	size_t i = 0, hi = p->nr;

	if (maps_reserve(p, 2))
		return -ENOMEM;
	/* referenced before the cut, which may drop the last other reference */
	if (m->dso)
		dso_ref(s, m->dso);
	/* sorted and disjoint, so ends are sorted too: skip to the first
	 * mapping ending after m starts */
	while (i < hi) {
		size_t mid = i + (hi - i) / 2;

		if (p->maps[mid].end <= m->start)
			i = mid + 1;
		else
			hi = mid;
	}
	while (i < p->nr && p->maps[i].start < m->end) {
		struct map *o = &p->maps[i];

		if (o->end <= m->start) {
			i++;
		} else if (o->start < m->start && o->end > m->end) {
			/* m punches a hole: o becomes two */
			struct map right = *o;

			right.pgoff += m->end - o->start;
			right.start = m->end;
			o->end = m->start;
			if (right.dso)
				dso_ref(s, right.dso);
			memmove(&p->maps[i + 2], &p->maps[i + 1], (p->nr - i - 1) * sizeof(*o));
			p->maps[i + 1] = right;
			p->nr++;
			i += 2;
		} else if (o->start < m->start) {
			o->end = m->start;
			i++;
		} else if (o->end > m->end) {
			o->pgoff += m->end - o->start;
			o->start = m->end;
			i++;
		} else {
			if (o->dso)
				dso_put(s, o->dso);
			memmove(o, o + 1, (p->nr - i - 1) * sizeof(*o));
			p->nr--;
		}
	}
	for (i = p->nr; i > 0 && p->maps[i - 1].start > m->start; i--)
		;
	memmove(&p->maps[i + 1], &p->maps[i], (p->nr - i) * sizeof(*m));
	p->maps[i] = *m;
	p->nr++;
	return 0;
}

/* What a mapping name stands for: anonymous memory, a special kernel
 * mapping, or a file (NULL label). */
static enum map_kind classify(const char *name, const char **label)
{
	static const struct {
		const char *prefix, *label;
		enum map_kind kind;
	} names[] = {
	    {"//anon", "[anon]", MAPPING_ANON},
	    {"/anon_hugepage", "[anon]", MAPPING_ANON},
	    {"/dev/zero", "[anon]", MAPPING_ANON},
	    {"/SYSV", "[anon]", MAPPING_ANON},
	    {"[heap]", "[heap]", MAPPING_ANON},
	    {"[stack", "[stack]", MAPPING_ANON},
	    {"[vdso]", "[vdso]", MAPPING_SPECIAL},
	    {"[vsyscall]", "[vsyscall]", MAPPING_SPECIAL},
	    {"[uprobes]", "[uprobes]", MAPPING_SPECIAL},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (has_prefix(name, names[i].prefix)) {
			*label = names[i].label;
			return names[i].kind;
		}
	if (!*name || name[0] == '[') {
		*label = "[anon]"; /* no name, [anon:name] and the like */
		return MAPPING_ANON;
	}
	*label = NULL;
	return MAPPING_FILE;
}

static int proc_map(struct symbols *s, struct proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
                    const char *name, uint32_t maj, uint32_t min, uint64_t ino)
{
	struct map m = {.start = start, .end = end, .pgoff = pgoff};

	if (end <= start)
		return -EINVAL;
	m.kind = classify(name, &m.label);
	if (m.kind == MAPPING_FILE) {
		m.dso = dso_get(s, name, maj, min, ino);
		if (!m.dso)
			return -ENOMEM;
	}
	return proc_insert(s, p, &m);
}

static const struct map *proc_lookup(const struct proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && ip < p->maps[lo - 1].end)
		return &p->maps[lo - 1];
	return NULL;
}

/* One line of /proc/PID/maps, if it is an executable mapping. */
static int maps_line(struct symbols *s, struct proc *p, char *line)
{
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char perms[8];
	char *name;
	size_t n;
	int at = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min,
	           &ino, &at) < 7 ||
	    !at)
		return 0;
	if (strlen(perms) < 3 || perms[2] != 'x')
		return 0;
	name = line + at;
	n = strlen(name);
	while (n && (name[n - 1] == '\n' || name[n - 1] == ' '))
		name[--n] = '\0';
	return proc_map(s, p, start, end, off, name, maj, min, ino);
}

/* Replace p's mappings with those in its maps file; kept if it cannot be
 * opened. The old ones are dropped last, so binaries mapped before and
 * after never look unused. */
static int proc_scan(struct symbols *s, struct proc *p)
{
	struct proc old = {.pid = p->pid};
	char path[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err;

	p->scanned = true;
	err = root_path(s, path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	if (err)
		return err;
	f = fopen(path, "re");
	if (!f)
		return errno == ESRCH ? -ENOENT : -errno;
	old.maps = p->maps;
	old.nr = p->nr;
	p->maps = NULL;
	p->nr = p->cap = 0;
	while (getline(&line, &cap, f) > 0) {
		err = maps_line(s, p, line);
		if (err)
			break;
	}
	free(line);
	fclose(f);
	if (!err && !p->nr && old.nr) {
		/* An empty maps file is a zombie (or a kernel thread): what we
		 * knew from before its exit is better than nothing. */
		free(p->maps);
		p->maps = old.maps;
		p->nr = p->cap = old.nr;
		return -ESRCH;
	}
	proc_clear_maps(s, &old);
	free(old.maps);
	return err;
}

int symbols_process_scan(struct symbols *s, pid_t pid)
{
	struct proc *p;
	int err;

	if (pid <= 0)
		return -EINVAL;
	p = proc_find(s, pid);
	if (!p) {
		p = proc_add(s, pid);
		if (!p)
			return -ENOMEM;
		err = proc_scan(s, p);
		if (err && !p->nr)
			proc_remove(s, p);
		return err;
	}
	err = proc_scan(s, p);
	if (!err)
		p->exited = false;
	return err;
}

int symbols_mmap(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
                 const char *filename, uint32_t maj, uint32_t min, uint64_t ino)
{
	struct proc *p;

	if (pid <= 0 || !len || start + len < start || !filename)
		return -EINVAL;
	p = proc_get(s, pid);
	if (!p)
		return -ENOMEM;
	return proc_map(s, p, start, start + len, pgoff, filename, maj, min, ino);
}

int symbols_fork(struct symbols *s, pid_t parent, pid_t child)
{
	struct proc *pp, *old, *c;
	size_t i;
	int err = 0;

	if (parent == child || child <= 0)
		return 0;
	old = proc_find(s, child);
	if (old && old->exited) {
		/* a recycled pid: what we knew was someone else */
		proc_remove(s, old);
		old = NULL;
	}
	if (old) /* records of the child read before the FORK: keep them on top */
		proc_unlink(s, old);
	c = proc_add(s, child);
	if (!c) {
		if (old)
			proc_destroy(s, old);
		return -ENOMEM;
	}
	pp = proc_find(s, parent);
	if (pp) {
		err = maps_reserve(c, pp->nr);
		for (i = 0; !err && i < pp->nr; i++) {
			c->maps[i] = pp->maps[i];
			if (c->maps[i].dso)
				dso_ref(s, c->maps[i].dso);
			c->nr++;
		}
		c->scanned = pp->scanned;
	}
	if (old) {
		for (i = 0; !err && i < old->nr; i++)
			err = proc_insert(s, c, &old->maps[i]);
		proc_destroy(s, old);
	}
	return err;
}

void symbols_exec(struct symbols *s, pid_t pid)
{
	struct proc *p = proc_find(s, pid);

	if (!p)
		return;
	proc_clear_maps(s, p);
	jit_clear(&p->jit);
	p->scanned = false;
}

void symbols_exit(struct symbols *s, pid_t pid)
{
	struct proc *p = proc_find(s, pid);

	if (p && !p->exited) {
		p->exited = true;
		p->reap_in = SYMBOLS_REAP_AFTER;
	}
}

void symbols_reap(struct symbols *s)
{
	size_t i;

	for (i = 0; i < s->procs_buckets; i++) {
		struct proc *p = s->procs[i], *next;

		for (; p; p = next) {
			next = p->hnext;
			if (p->exited && --p->reap_in <= 0)
				proc_remove(s, p);
		}
	}
}

/* ---- perf-PID.map ---- */

/* The pid of pid inside its own pid namespace (last NSpid field), or pid. */
static pid_t ns_pid(const struct symbols *s, pid_t pid)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	pid_t ns = pid;
	FILE *f;

	if (root_path(s, path, sizeof(path), "/proc/%d/status", (int)pid))
		return pid;
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (getline(&line, &cap, f) > 0) {
		char *p = line + strlen("NSpid:"), *end;

		if (!has_prefix(line, "NSpid:"))
			continue;
		for (;;) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			if (v > 0 && v <= INT_MAX)
				ns = v;
			p = end;
		}
		break;
	}
	free(line);
	fclose(f);
	return ns;
}

/* A perf map is trusted when root, we, or the process's owner wrote it. */
static bool jit_owner_ok(const struct symbols *s, pid_t pid, const struct stat *st)
{
	char path[PATH_MAX];
	struct stat ps;

	if (st->st_uid == 0 || st->st_uid == geteuid())
		return true;
	return !root_path(s, path, sizeof(path), "/proc/%d", (int)pid) && !stat(path, &ps) &&
	       ps.st_uid == st->st_uid;
}

/* Open pid's perf map: inside its mount namespace under its namespace pid
 * first, then in ours. FILE or NULL; *st filled. */
static FILE *jit_open(const struct symbols *s, pid_t pid, struct stat *st)
{
	char path[PATH_MAX];
	pid_t ns = ns_pid(s, pid);
	int k;

	for (k = 0; k < 2; k++) {
		FILE *f;
		int fd;

		if (k == 0 ? root_path(s, path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map",
		                       (int)pid, (int)ns)
		           : root_path(s, path, sizeof(path), "/tmp/perf-%d.map", (int)pid))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (fstat(fd, st) || !S_ISREG(st->st_mode) || !jit_owner_ok(s, pid, st)) {
			close(fd);
			continue;
		}
		f = fdopen(fd, "r");
		if (f)
			return f;
		close(fd);
	}
	return NULL;
}

/* "START SIZE name" (hex, 0x optional); later lines win for one START. */
static int jit_line(struct tabbuild *b, char *line, int64_t lineno)
{
	unsigned long long start, size;
	char *p = line, *end;
	size_t n;

	errno = 0;
	start = strtoull(p, &end, 16);
	if (end == p || errno || (*end != ' ' && *end != '\t'))
		return 0;
	p = end;
	size = strtoull(p, &end, 16);
	if (end == p || errno || (*end != ' ' && *end != '\t'))
		return 0;
	p = end + strspn(end, " \t");
	n = strcspn(p, "\n");
	while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
		n--;
	if (!n || !start)
		return 0;
	return build_add(b, start, size, p, n, lineno);
}

/* (Re)read p's perf map if it appeared or changed since the last read. */
static void jit_refresh(struct symbols *s, struct proc *p)
{
	struct tabbuild b = {0};
	struct stat st;
	char *line = NULL;
	size_t cap = 0;
	int64_t lineno = 0;
	FILE *f;
	int err = 0;

	p->jit.tried = true;
	f = jit_open(s, p->pid, &st);
	if (!f)
		return;
	if (p->jit.loaded && st.st_dev == p->jit.dev && st.st_ino == p->jit.ino &&
	    st.st_size == p->jit.size && st.st_mtim.tv_sec == p->jit.mtime.tv_sec &&
	    st.st_mtim.tv_nsec == p->jit.mtime.tv_nsec) {
		fclose(f);
		return;
	}
	while (!err && getline(&line, &cap, f) > 0)
		err = jit_line(&b, line, ++lineno);
	free(line);
	fclose(f);
	if (err) {
		build_free(&b);
		return;
	}
	if (build_finish(&b, &p->jit.tab))
		return;
	p->jit.loaded = true;
	p->jit.dev = st.st_dev;
	p->jit.ino = st.st_ino;
	p->jit.size = st.st_size;
	p->jit.mtime = st.st_mtim;
	s->stats.jit_loads++;
}

static bool resolve_jit(struct symbols *s, struct proc *p, uint64_t ip, struct symbols_result *out)
{
	ssize_t i = -1;

	if (p->jit.tried)
		i = symtab_find(&p->jit.tab, ip);
	if (i < 0) {
		/* first use, or a miss: the JIT may have written more since */
		jit_refresh(s, p);
		i = symtab_find(&p->jit.tab, ip);
	}
	if (i < 0)
		return false;
	result_set(out, SYMBOLS_FOUND, p->jit.tab.pool + p->jit.tab.syms[i].name,
	           ip - p->jit.tab.syms[i].start, "[jit]");
	return true;
}

/* ---- lookups ---- */

/* Code in anonymous memory that no perf map names (a JIT without one, a
 * shellcode page): its 4 KB page, so that one hot page is one row. */
static void anon_page(struct symbols_result *out, const char *label, uint64_t ip)
{
	char page[24];

	snprintf(page, sizeof(page), "0x%llx", (unsigned long long)(ip & ~0xfffull));
	result_set(out, SYMBOLS_NO_SYMBOL, page, ip & 0xfff, label);
}

static int resolve_user(struct symbols *s, pid_t pid, uint64_t ip, struct symbols_result *out)
{
	const struct map *m;
	struct proc *p;

	result_set(out, SYMBOLS_UNKNOWN, "[unknown]", 0, "[unknown]");
	if (pid <= 0)
		return 0;
	p = proc_find(s, pid);
	if (!p) {
		p = proc_add(s, pid);
		if (!p)
			return -ENOMEM;
		if (proc_scan(s, p) && !p->nr) {
			/* gone or unreadable: nothing to remember, try again later */
			proc_remove(s, p);
			return 0;
		}
	} else if (!p->scanned && !p->exited) {
		proc_scan(s, p);
	}
	m = proc_lookup(p, ip);
	if (!m || m->kind == MAPPING_ANON) {
		if (!resolve_jit(s, p, ip, out) && m)
			anon_page(out, m->label, ip);
		return 0;
	}
	if (m->kind == MAPPING_SPECIAL) {
		const struct dso *vdso =
		    !strcmp(m->label, "[vdso]") ? vdso_get(s, m->end - m->start) : NULL;
		if (vdso)
			resolve_in(vdso, m, ip, out);
		else
			result_no_symbol(out, m->label, ip - m->start);
		return 0;
	}
	resolve_file(s, p, m, ip, out);
	/* not an ELF binary (a JIT's memfd or /dev/shm file): its perf map may know */
	if (m->dso->state == DSO_FAILED)
		resolve_jit(s, p, ip, out);
	return 0;
}

int symbols_resolve(struct symbols *s, pid_t pid, uint64_t ip, bool kernel,
                    struct symbols_result *out)
{
	if (kernel) {
		resolve_kernel(s, ip, out);
		return 0;
	}
	return resolve_user(s, pid, ip, out);
}

int symbols_format(const struct symbols_result *r, char *buf, size_t len)
{
	int n;

	if (r->status == SYMBOLS_FOUND && r->offset)
		n = snprintf(buf, len, "%s+0x%llx", r->name, (unsigned long long)r->offset);
	else
		n = snprintf(buf, len, "%s", r->name);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* ---- lifetime ---- */

struct symbols *symbols_new(void)
{
	struct symbols *s;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (procs_grow(s) || dsos_grow(s)) {
		symbols_free(s);
		return NULL;
	}
	return s;
}

void symbols_free(struct symbols *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->procs_buckets; i++)
		while (s->procs[i])
			proc_remove(s, s->procs[i]);
	for (i = 0; i < s->dsos_buckets; i++) {
		struct dso *d = s->dsos[i], *next;

		for (; d; d = next) {
			next = d->hnext;
			dso_destroy(d);
		}
	}
	ktab_free(&s->ktab);
	if (s->vdso)
		dso_destroy(s->vdso);
	free(s->procs);
	free(s->dsos);
	free(s);
}

int symbols_set_root(struct symbols *s, const char *root)
{
	size_t n;

	if (!root || !strcmp(root, "/")) {
		s->root[0] = '\0';
		return 0;
	}
	n = strlen(root);
	if (n >= sizeof(s->root))
		return -ENAMETOOLONG;
	memcpy(s->root, root, n + 1);
	while (n > 1 && s->root[n - 1] == '/')
		s->root[--n] = '\0';
	return 0;
}

void symbols_stats(const struct symbols *s, struct symbols_stats *out)
{
	*out = s->stats;
}
