/* symtab: symbol tables (names ranked as perf ranks them) and small helpers. */
#include "symbols_priv.h"

/* ---- paths and small helpers ---- */

int sym_root_path(const struct symbols *s, char *out, size_t len, const char *fmt, ...)
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

const char *sym_basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

bool sym_has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool sym_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

void sym_result_set(struct symbols_result *out, enum symbols_status status, const char *name,
                    uint64_t offset, const char *module)
{
	out->status = status;
	out->offset = offset;
	util_strlcpy(out->name, name, sizeof(out->name));
	util_strlcpy(out->module, module, sizeof(out->module));
}

void sym_result_no_symbol(struct symbols_result *out, const char *module, uint64_t offset)
{
	out->status = SYMBOLS_NO_SYMBOL;
	out->offset = offset;
	util_strlcpy(out->module, module, sizeof(out->module));
	snprintf(out->name, sizeof(out->name), "%s+0x%llx", module, (unsigned long long)offset);
}

/* ---- symbol tables ---- */

/* Append name (len bytes) to the pool. Its offset, or -ENOMEM / -E2BIG. */
int64_t sym_pool_add(struct pool *p, const char *name, size_t len)
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

/* Room for n more symbols and names bytes more of names, so that a table
 * whose size the caller knows grows once: each doubling of a big block
 * copies it and touches fresh pages. */
int sym_build_reserve(struct tabbuild *b, size_t n, size_t names)
{
	if (b->cap - b->nr < n) {
		struct rawsym *v = realloc(b->v, (b->nr + n) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->v = v;
		b->cap = b->nr + n;
	}
	if (b->pool.cap - b->pool.len < names && b->pool.len + names <= UINT32_MAX) {
		char *buf = realloc(b->pool.buf, b->pool.len + names);

		if (!buf)
			return -ENOMEM;
		b->pool.buf = buf;
		b->pool.cap = b->pool.len + names;
	}
	return 0;
}

void sym_build_free(struct tabbuild *b)
{
	free(b->v);
	free(b->pool.buf);
	memset(b, 0, sizeof(*b));
}

int sym_build_add(struct tabbuild *b, uint64_t start, uint64_t size, const char *name, size_t len,
                  int64_t rank)
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
	off = sym_pool_add(&b->pool, name, len);
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
int64_t sym_rank_of(bool sized, bool local, bool weak, const char *name, size_t len)
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

void sym_symtab_free(struct symtab *t)
{
	if (t->map) {
		munmap(t->map, t->map_len);
	} else {
		free(t->syms);
		free(t->pool);
	}
	memset(t, 0, sizeof(*t));
}

/* Sort, keep the best name per address, size the unsized, and move the
 * result into t (emptied first). The builder is freed either way. */
int sym_build_finish(struct tabbuild *b, struct symtab *t)
{
	struct symtab n = {0};
	size_t i, k = 0;
	int err = -ENOMEM;

	sym_symtab_free(t);
	if (!b->nr) {
		sym_build_free(b);
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
	n.pool_len = b->pool.len;
	b->pool.buf = NULL;
	*t = n;
	n.syms = NULL;
	err = 0;
out:
	free(n.syms);
	sym_build_free(b);
	return err;
}

/* Index of the symbol containing addr, or -1. */
ssize_t sym_symtab_find(const struct symtab *t, uint64_t addr)
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
