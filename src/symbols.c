/* symbols: user and kernel addresses to function names (the public API). */
#include "symbols_priv.h"

/* ---- lookups ---- */

/* Code in anonymous memory that no perf map names (a JIT without one, a
 * shellcode page): its 4 KB page, so that one hot page is one row. */
static void anon_page(struct symbols_result *out, const char *label, uint64_t ip)
{
	char page[24];

	snprintf(page, sizeof(page), "0x%llx", (unsigned long long)(ip & ~0xfffull));
	sym_result_set(out, SYMBOLS_NO_SYMBOL, page, ip & 0xfff, label);
}

static int resolve_user(struct symbols *s, pid_t pid, uint64_t ip, struct symbols_result *out)
{
	const struct map *m;
	struct proc *p;

	sym_result_set(out, SYMBOLS_UNKNOWN, "[unknown]", 0, "[unknown]");
	if (pid <= 0)
		return 0;
	p = sym_proc_find(s, pid);
	if (!p) {
		p = sym_proc_add(s, pid);
		if (!p)
			return -ENOMEM;
		if (sym_proc_scan(s, p) && !p->nr) {
			/* gone or unreadable: nothing to remember, try again later */
			sym_proc_remove(s, p);
			return 0;
		}
	} else if (!p->scanned && !p->exited) {
		sym_proc_scan(s, p);
	}
	m = sym_proc_lookup(p, ip);
	if (!m || m->kind == MAPPING_ANON) {
		if (!sym_resolve_jit(s, p, ip, out) && m)
			anon_page(out, m->label, ip);
		return 0;
	}
	if (m->kind == MAPPING_SPECIAL) {
		const struct dso *vdso =
		    !strcmp(m->label, "[vdso]") ? sym_vdso_get(s, m->end - m->start) : NULL;
		if (vdso)
			sym_resolve_in(vdso, m, ip, out);
		else
			sym_result_no_symbol(out, m->label, ip - m->start);
		return 0;
	}
	sym_resolve_file(s, p, m, ip, out);
	/* not an ELF binary (a JIT's memfd or /dev/shm file): its perf map may know */
	if (m->dso->state == DSO_FAILED)
		sym_resolve_jit(s, p, ip, out);
	return 0;
}

int symbols_resolve(struct symbols *s, pid_t pid, uint64_t ip, bool kernel,
                    struct symbols_result *out)
{
	if (kernel) {
		sym_resolve_kernel(s, ip, out);
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
	if (sym_procs_grow(s) || sym_dsos_grow(s)) {
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
			sym_proc_remove(s, s->procs[i]);
	for (i = 0; i < s->dsos_buckets; i++) {
		struct dso *d = s->dsos[i], *next;

		for (; d; d = next) {
			next = d->hnext;
			sym_dso_destroy(d);
		}
	}
	sym_ktab_free(&s->ktab);
	if (s->vdso)
		sym_dso_destroy(s->vdso);
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
