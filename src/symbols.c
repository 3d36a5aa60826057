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
		if (sym_proc_gone(s, pid))
			return 0;
		p = sym_proc_add(s, pid);
		if (!p)
			return -ENOMEM;
		if (sym_proc_scan(s, p) && !p->nr) {
			/* gone or unreadable: nothing to remember, try again later */
			sym_proc_remove(s, p);
			sym_proc_set_gone(s, pid);
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

/* The segment of d holding file offset off. */
static const struct seg *seg_of(const struct dso *d, uint64_t off)
{
	for (size_t i = 0; i < d->nr_segs; i++)
		if (off - d->segs[i].off < d->segs[i].filesz)
			return &d->segs[i];
	return NULL;
}

int symbols_code(struct symbols *s, pid_t pid, uint64_t ip, bool kernel, struct symbols_code *out)
{
	const struct map *m;
	const struct seg *seg;
	const struct dso *d;
	struct proc *p;
	uint64_t off, vaddr;
	ssize_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	out->kernel = kernel;
	ret = symbols_resolve(s, pid, ip, kernel, &out->sym);
	if (ret)
		return ret;
	if (out->sym.status != SYMBOLS_FOUND)
		return -ENOENT;
	if (kernel) {
		out->start = ip - out->sym.offset;
		out->size = sym_kernel_size(s, out->start);
		return out->size ? 0 : -ENOENT;
	}
	p = sym_proc_find(s, pid);
	m = p ? sym_proc_lookup(p, ip) : NULL;
	if (!m || m->kind != MAPPING_FILE || m->dso->state != DSO_LOADED)
		return -ENOENT; /* JIT and vDSO code: no file to read */
	d = m->dso;
	off = ip - m->start + m->pgoff;
	seg = seg_of(d, off);
	if (!seg)
		return -ENOENT;
	vaddr = off - seg->off + seg->vaddr;
	i = sym_symtab_find(&d->tab, vaddr);
	if (i < 0)
		return -ENOENT;
	out->start = d->tab.syms[i].start;
	out->size = d->tab.syms[i].size;
	out->bias = ip - vaddr;
	/* The file read then, if it is still there (a process's root goes
	 * with it), else the file's path as we see it. */
	if (d->opened && !access(d->opened, R_OK))
		util_strlcpy(out->file, d->opened, sizeof(out->file));
	else if (sym_root_path(s, out->file, sizeof(out->file), "%s", d->file))
		return -ENAMETOOLONG;
	if (d->debug_path)
		util_strlcpy(out->debug, d->debug_path, sizeof(out->debug));
	memcpy(out->build_id, d->build_id, d->build_id_len);
	out->build_id_len = d->build_id_len;
	out->replaced = d->replaced;
	out->replaced_on_disk = d->replaced_on_disk;
	if (sym_root_path(s, out->path, sizeof(out->path), "%s", d->file))
		out->path[0] = '\0';
	out->deleted = d->deleted && (!d->opened || access(d->opened, R_OK));
	return 0;
}

size_t symbols_unversioned_len(const char *name)
{
	const char *at = name[0] ? strchr(name + 1, '@') : NULL;

	return at && strcmp(at, "@plt") ? (size_t)(at - name) : strlen(name);
}

bool symbols_name_is(const char *name, const char *want)
{
	size_t n = symbols_unversioned_len(want);

	return !strcmp(name, want) || (want[n] && !strncmp(name, want, n) && !name[n]);
}

bool symbols_has_name(const struct symbols *s, const char *name, char *module, size_t len)
{
	for (size_t b = 0; b < s->dsos_buckets; b++)
		for (const struct dso *d = s->dsos[b]; d; d = d->hnext)
			for (size_t i = 0; d->state == DSO_LOADED && i < d->tab.nr; i++)
				if (symbols_name_is(d->tab.pool + d->tab.syms[i].name, name)) {
					util_strlcpy(module, d->base, len);
					return true;
				}
	if (s->kstate == KERNEL_LOADED)
		for (size_t i = 0; i < s->ktab.nr; i++)
			if (s->ktab.syms[i].name < s->ktab.pool.len &&
			    symbols_name_is(s->ktab.pool.buf + s->ktab.syms[i].name, name)) {
				util_strlcpy(module, "[kernel]", len);
				return true;
			}
	return false;
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
	out->jit_bytes = s->jit_bytes;
}
