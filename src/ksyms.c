/* ksyms: the kernel's symbols from /proc/kallsyms and the lookups in them. */
#include "symbols_priv.h"

/* ---- kernel ---- */

static bool ktype_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
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
	int64_t rx = sym_rank_of(false, a->local, a->weak, x, strlen(x));
	int64_t ry = sym_rank_of(false, b->local, b->weak, y, strlen(y));

	return rx != ry ? rx > ry : strcmp(x, y) < 0;
}

void sym_ktab_free(struct ktab *t)
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
		sym_ktab_free(t);
	t->nr = t->sorted = t->nr_runs = t->pool.len = 0;
	/* offset 0 is the empty name: "no module" */
	return sym_pool_add(&t->pool, "", 0) < 0 ? -ENOMEM : 0;
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
		off = mod ? sym_pool_add(&t->pool, mod, mlen) : 0;
		if (off < 0)
			return off;
		t->runs[t->nr_runs++] = (struct krun){.pool = t->pool.len, .mod = off};
	}
	p = grow(t->syms, &t->cap, t->nr + 1, sizeof(*t->syms), 4096);
	if (!p)
		return -ENOMEM;
	t->syms = p;
	off = sym_pool_add(&t->pool, name, len);
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
const unsigned char sym_hex_digit[256] = {
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
	for (; (d = sym_hex_digit[(unsigned char)*p]); p++)
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
size_t sym_ktab_run_index(const struct ktab *t, const struct ksym *k)
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
	return &t->runs[sym_ktab_run_index(t, k)];
}

/* The symbol containing addr in *found, its module label in *mod: 1; 0 if
 * none; -1 if the table names it by an offset outside the pool (a corrupt
 * cache file). */
int sym_ktab_find(const struct ktab *t, uint64_t addr, const struct ksym **found, const char **mod)
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
 * zero, -errno; t then holds a partial table, for sym_ktab_free(). */
int sym_kallsyms_load(struct symbols *s, struct ktab *t, struct khead *head)
{
	char path[PATH_MAX];
	int fd, r;

	head->len = 0;
	r = sym_root_path(s, path, sizeof(path), "/proc/kallsyms");
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

/* ---- kernel lookups ---- */

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
 * last, or less, to the end of that symbol's page: see sym_kspan_end()), or
 * that it names by a bad offset (a corrupt file), may be such
 * code: kallsyms is then read in full, once, exactly as without the cache,
 * and that table is used for the rest of the run (and written to the
 * cache). Without the cache kallsyms is read once, at start, and never
 * again; reading it once, when first needed, keeps that: one table as
 * kallsyms was at one moment, one read per run at most. When that read
 * fails or finds the addresses hidden now, the cache's table is kept.
 */
void sym_kernel_refresh(struct symbols *s)
{
	struct ktab t = {0};
	struct khead head;
	struct kenv e;

	if (s->krefreshed || !s->ktab.map)
		return;
	s->krefreshed = true;
	sym_kenv_get(s, &e);
	if (sym_kallsyms_load(s, &t, &head) > 0) {
		sym_ktab_free(&s->ktab);
		s->ktab = t;
		s->stats.kernel_symbols = t.nr;
		s->stats.kernel_source = SYMBOLS_KERNEL_KALLSYMS;
		sym_kcache_write(s, &e, &s->ktab, &head);
	} else {
		sym_ktab_free(&t);
	}
	sym_kenv_free(&e);
}

void sym_resolve_kernel(struct symbols *s, uint64_t ip, struct symbols_result *out)
{
	const struct ksym *k;
	const char *mod;
	int found;

	if (s->kstate == KERNEL_NOT_TRIED)
		symbols_load_kernel(s);
	if (s->kstate != KERNEL_LOADED) {
		sym_result_set(out, SYMBOLS_KERNEL_HIDDEN, "[kernel]", 0, "[kernel]");
		return;
	}
	if (!ktab_places(&s->ktab, ip - s->ktab.slide))
		sym_kernel_refresh(s);
	found = sym_ktab_find(&s->ktab, ip - s->ktab.slide, &k, &mod);
	if (found < 0) {
		s->stats.kernel_cache = "corrupt";
		sym_kernel_refresh(s);
		found = sym_ktab_find(&s->ktab, ip - s->ktab.slide, &k, &mod);
	}
	if (found <= 0) {
		sym_result_set(out, SYMBOLS_UNKNOWN, "[unknown]", 0, "[kernel]");
		return;
	}
	sym_result_set(out, SYMBOLS_FOUND, s->ktab.pool.buf + k->name,
	               ip - s->ktab.slide - ksym_start(k), *mod ? mod : "[kernel]");
}

uint64_t sym_kernel_size(struct symbols *s, uint64_t start)
{
	const struct ksym *k;
	const char *mod;
	size_t i;

	if (s->kstate != KERNEL_LOADED ||
	    sym_ktab_find(&s->ktab, start - s->ktab.slide, &k, &mod) <= 0)
		return 0;
	i = (size_t)(k - s->ktab.syms);
	if (i + 1 < s->ktab.nr && ktab_run(&s->ktab, k + 1)->mod == ktab_run(&s->ktab, k)->mod)
		return ksym_start(k + 1) - ksym_start(k);
	return SYM_TAIL;
}
