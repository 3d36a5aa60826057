/* procmaps: processes, their mappings, and fork, exec and exit. */
#include "symbols_priv.h"

/* ---- processes and their mappings ---- */

static size_t pid_hash(pid_t pid, size_t buckets)
{
	return ((uint32_t)pid * 2654435761u) % buckets;
}

struct proc *sym_proc_find(const struct symbols *s, pid_t pid)
{
	struct proc *p;

	if (!s->procs_buckets)
		return NULL;
	for (p = s->procs[pid_hash(pid, s->procs_buckets)]; p; p = p->hnext)
		if (p->pid == pid)
			return p;
	return NULL;
}

int sym_procs_grow(struct symbols *s)
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

uint64_t sym_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool sym_proc_gone(const struct symbols *s, pid_t pid)
{
	const unsigned k = (unsigned)pid % SYM_GONE_SLOTS;

	return s->gone[k].pid == pid && pid > 0 && sym_now_ns() < s->gone[k].until_ns;
}

void sym_proc_set_gone(struct symbols *s, pid_t pid)
{
	const unsigned k = (unsigned)pid % SYM_GONE_SLOTS;

	s->gone[k].pid = pid;
	s->gone[k].until_ns = sym_now_ns() + SYM_GONE_NS;
}

struct proc *sym_proc_add(struct symbols *s, pid_t pid)
{
	struct proc *p;
	size_t h;
	const unsigned k = (unsigned)pid % SYM_GONE_SLOTS;

	if (s->gone[k].pid == pid) /* news of it: read it again when asked */
		s->gone[k].pid = 0;

	if (s->nr_procs >= s->procs_buckets && sym_procs_grow(s))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	sym_proc_changed(s, p);
	h = pid_hash(pid, s->procs_buckets);
	p->hnext = s->procs[h];
	s->procs[h] = p;
	s->nr_procs++;
	s->stats.processes = s->nr_procs;
	return p;
}

static struct proc *proc_get(struct symbols *s, pid_t pid)
{
	struct proc *p = sym_proc_find(s, pid);

	return p ? p : sym_proc_add(s, pid);
}

static void proc_clear_maps(struct symbols *s, struct proc *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		if (p->maps[i].dso)
			sym_dso_put(s, p->maps[i].dso);
	p->nr = 0;
	sym_proc_changed(s, p);
}

static void jit_clear(struct symbols *s, struct jit *j)
{
	s->jit_bytes -= j->tab.nr * sizeof(*j->tab.syms) + j->tab.pool_len;
	sym_symtab_free(&j->tab);
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
	jit_clear(s, &p->jit);
	free(p);
}

void sym_proc_remove(struct symbols *s, struct proc *p)
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
	sym_proc_changed(s, p);
	/* referenced before the cut, which may drop the last other reference */
	if (m->dso)
		sym_dso_ref(s, m->dso);
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
				sym_dso_ref(s, right.dso);
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
				sym_dso_put(s, o->dso);
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
		if (sym_has_prefix(name, names[i].prefix)) {
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
		m.dso = sym_dso_get(s, name, maj, min, ino);
		if (!m.dso)
			return -ENOMEM;
	}
	return proc_insert(s, p, &m);
}

const struct map *sym_proc_lookup(const struct proc *p, uint64_t ip)
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
int sym_proc_scan(struct symbols *s, struct proc *p)
{
	struct proc old = {.pid = p->pid};
	char path[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err;

	p->scanned = true;
	err = sym_root_path(s, path, sizeof(path), "/proc/%d/maps", (int)p->pid);
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
		sym_proc_changed(s, p);
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
	p = sym_proc_find(s, pid);
	if (!p) {
		p = sym_proc_add(s, pid);
		if (!p)
			return -ENOMEM;
		err = sym_proc_scan(s, p);
		if (err && !p->nr)
			sym_proc_remove(s, p);
		return err;
	}
	err = sym_proc_scan(s, p);
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
	old = sym_proc_find(s, child);
	if (old && old->exited) {
		/* a recycled pid: what we knew was someone else */
		sym_proc_remove(s, old);
		old = NULL;
	}
	if (old) /* records of the child read before the FORK: keep them on top */
		proc_unlink(s, old);
	c = sym_proc_add(s, child);
	if (!c) {
		if (old)
			proc_destroy(s, old);
		return -ENOMEM;
	}
	pp = sym_proc_find(s, parent);
	if (pp) {
		err = maps_reserve(c, pp->nr);
		for (i = 0; !err && i < pp->nr; i++) {
			c->maps[i] = pp->maps[i];
			if (c->maps[i].dso)
				sym_dso_ref(s, c->maps[i].dso);
			c->nr++;
		}
		c->scanned = pp->scanned;
		sym_proc_changed(s, c);
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
	struct proc *p = sym_proc_find(s, pid);

	if (!p)
		return;
	proc_clear_maps(s, p);
	jit_clear(s, &p->jit);
	p->scanned = false;
}

void symbols_exit(struct symbols *s, pid_t pid)
{
	struct proc *p = sym_proc_find(s, pid);

	if (p && !p->exited) {
		p->exited = true;
		p->reap_in = SYMBOLS_REAP_AFTER;
	}
}

static int older_first(const void *a, const void *b)
{
	const struct proc *x = *(struct proc *const *)a, *y = *(struct proc *const *)b;

	return (x->reap_in > y->reap_in) - (x->reap_in < y->reap_in);
}

void symbols_reap(struct symbols *s, bool (*keep)(pid_t pid, void *arg), void *arg)
{
	struct proc **kept = NULL;
	size_t i, nr = 0, cap = 0;

	for (i = 0; i < s->procs_buckets; i++) {
		struct proc *p = s->procs[i], *next;

		for (; p; p = next) {
			next = p->hnext;
			if (!p->exited || --p->reap_in > 0)
				continue;
			if (!(keep && keep(p->pid, arg))) {
				sym_proc_remove(s, p);
				continue;
			}
			if (nr == cap) {
				struct proc **q = realloc(kept, (cap ? 2 * cap : 64) * sizeof(*q));
				if (!q) {
					sym_proc_remove(s, p); /* names lost rather than memory */
					continue;
				}
				kept = q;
				cap = cap ? 2 * cap : 64;
			}
			kept[nr++] = p;
		}
	}
	/* Bounded: past SYMBOLS_KEEP_EXITED, the longest gone go first. */
	if (nr > SYMBOLS_KEEP_EXITED) {
		qsort(kept, nr, sizeof(*kept), older_first);
		for (i = 0; i < nr - SYMBOLS_KEEP_EXITED; i++)
			sym_proc_remove(s, kept[i]);
	}
	free(kept);
}

/* pid's entry with its mappings read as a lookup would have them: /proc
 * is read when the process was never scanned. NULL when nothing is known. */
struct proc *sym_proc_get_scanned(struct symbols *s, pid_t pid)
{
	struct proc *p;

	if (pid <= 0)
		return NULL;
	p = sym_proc_find(s, pid);
	if (!p) {
		if (sym_proc_gone(s, pid))
			return NULL;
		p = sym_proc_add(s, pid);
		if (!p)
			return NULL;
		if (sym_proc_scan(s, p) && !p->nr) {
			sym_proc_remove(s, p);
			sym_proc_set_gone(s, pid);
			return NULL;
		}
	} else if (!p->scanned && !p->exited) {
		sym_proc_scan(s, p);
	}
	return p;
}

int symbols_maps(struct symbols *s, pid_t pid, struct symbols_map *out, int max, uint64_t *gen)
{
	struct proc *p = sym_proc_get_scanned(s, pid);
	int n = 0;

	*gen = 0;
	if (!p)
		return -ENOENT;
	*gen = p->gen;
	for (size_t i = 0; i < p->nr; i++) {
		const struct map *m = &p->maps[i];

		if (m->kind != MAPPING_FILE)
			continue;
		if (n < max)
			out[n] = (struct symbols_map){.start = m->start,
			                              .end = m->end,
			                              .pgoff = m->pgoff,
			                              .binary = m->dso,
			                              .path = m->dso->file,
			                              .name = m->dso->base};
		n++;
	}
	return n;
}
