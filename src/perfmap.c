/* perfmap: JIT symbols from /tmp/perf-PID.map. */
#include "symbols_priv.h"

/* ---- perf-PID.map ---- */

/* The pid of pid inside its own pid namespace (last NSpid field), or pid. */
static pid_t ns_pid(const struct symbols *s, pid_t pid)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	pid_t ns = pid;
	FILE *f;

	if (sym_root_path(s, path, sizeof(path), "/proc/%d/status", (int)pid))
		return pid;
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (getline(&line, &cap, f) > 0) {
		char *p = line + strlen("NSpid:"), *end;

		if (!sym_has_prefix(line, "NSpid:"))
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

/* A perf map is trusted when the process's owner wrote it, or root or we
 * did and it has no other name: /tmp is everyone's, and a hard link there
 * to a file of root's is root's file. */
static bool jit_owner_ok(const struct symbols *s, pid_t pid, const struct stat *st)
{
	char path[PATH_MAX];
	struct stat ps;

	if (!sym_root_path(s, path, sizeof(path), "/proc/%d", (int)pid) && !stat(path, &ps) &&
	    ps.st_uid == st->st_uid)
		return true;
	return (st->st_uid == 0 || st->st_uid == geteuid()) && st->st_nlink == 1;
}

/* Open pid's perf map: inside its mount namespace under its namespace pid
 * first, then in ours. FILE or NULL; *st filled. */
static FILE *jit_open(const struct symbols *s, struct proc *p, struct stat *st)
{
	char path[PATH_MAX];
	const pid_t pid = p->pid;
	pid_t ns;
	int k;

	if (!p->jit.ns_pid) /* it stays the same for the life of the process */
		p->jit.ns_pid = ns_pid(s, pid);
	ns = p->jit.ns_pid;

	for (k = 0; k < 2; k++) {
		FILE *f;
		int fd;

		if (k == 0 ? sym_root_path(s, path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map",
		                           (int)pid, (int)ns)
		           : sym_root_path(s, path, sizeof(path), "/tmp/perf-%d.map", (int)pid))
			continue;
		/* never through a link: /tmp/perf-PID.map is the process's to make */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
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

/* The bytes a perf map's table holds: its symbols and their names. */
static size_t jit_bytes(const struct symtab *t)
{
	return t->nr * sizeof(*t->syms) + t->pool_len;
}

/* "START SIZE name" (hex, 0x optional); later lines win for one START.
 * Names are cut to SYMBOLS_NAME_MAX - 1 bytes, as lookups would copy them. */
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
	if (n > SYMBOLS_NAME_MAX - 1)
		n = SYMBOLS_NAME_MAX - 1;
	return sym_build_add(b, start, size, p, n, lineno);
}

/* Make room for a table of want bytes among every process's perf maps
 * (SYM_JIT_TOTAL_MAX): the largest tables of other processes go first
 * (read again on their next miss). */
static void jit_make_room(struct symbols *s, const struct proc *self, size_t want)
{
	while (s->jit_bytes + want > SYM_JIT_TOTAL_MAX) {
		struct proc *big = NULL;

		for (size_t i = 0; i < s->procs_buckets; i++)
			for (struct proc *q = s->procs[i]; q; q = q->hnext)
				if (q != self && q->jit.tab.nr &&
				    (!big || jit_bytes(&q->jit.tab) > jit_bytes(&big->jit.tab)))
					big = q;
		if (!big)
			return;
		s->jit_bytes -= jit_bytes(&big->jit.tab);
		sym_symtab_free(&big->jit.tab);
		big->jit.loaded = false;
		s->stats.jit_dropped++;
	}
}

/* (Re)read p's perf map if it appeared or changed since the last read: its
 * last SYM_JIT_READ_MAX bytes at most (a JIT appends: its newest code is at
 * the end), a large file less often. */
static void jit_refresh(struct symbols *s, struct proc *p)
{
	struct tabbuild b = {0};
	struct stat st;
	char *line = NULL;
	size_t cap = 0;
	int64_t lineno = 0;
	off_t from = 0;
	FILE *f;
	int err = 0;

	p->jit.tried = true;
	p->jit.next_ns = sym_now_ns() + SYM_JIT_RECHECK_NS;
	f = jit_open(s, p, &st);
	if (!f)
		return;
	if (p->jit.loaded && st.st_dev == p->jit.dev && st.st_ino == p->jit.ino &&
	    st.st_size == p->jit.size && st.st_mtim.tv_sec == p->jit.mtime.tv_sec &&
	    st.st_mtim.tv_nsec == p->jit.mtime.tv_nsec) {
		fclose(f);
		return;
	}
	/* Reading costs its size: a map of SYM_JIT_READ_MAX is read once a
	 * second at most. */
	p->jit.next_ns +=
	    (uint64_t)((double)(st.st_size < SYM_JIT_READ_MAX ? st.st_size : SYM_JIT_READ_MAX) /
	               SYM_JIT_READ_MAX * 1e9);
	if (st.st_size > SYM_JIT_READ_MAX) {
		from = st.st_size - SYM_JIT_READ_MAX;
		if (fseeko(f, from - 1, SEEK_SET) ||
		    getline(&line, &cap, f) < 0) { /* to the start of a line */
			free(line);
			fclose(f);
			return;
		}
		s->stats.jit_cut++;
	}
	while (!err && ftello(f) < st.st_size && getline(&line, &cap, f) > 0)
		err = jit_line(&b, line, ++lineno);
	free(line);
	fclose(f);
	if (err) {
		sym_build_free(&b);
		return;
	}
	s->jit_bytes -= jit_bytes(&p->jit.tab);
	sym_symtab_free(&p->jit.tab);
	if (sym_build_finish(&b, &p->jit.tab))
		return;
	if (p->jit.tab.pool_len) { /* its own size: the pool grew by doubling */
		char *pool = realloc(p->jit.tab.pool, p->jit.tab.pool_len);
		if (pool)
			p->jit.tab.pool = pool;
	}
	jit_make_room(s, p, jit_bytes(&p->jit.tab));
	s->jit_bytes += jit_bytes(&p->jit.tab);
	p->jit.loaded = true;
	p->jit.dev = st.st_dev;
	p->jit.ino = st.st_ino;
	p->jit.size = st.st_size;
	p->jit.mtime = st.st_mtim;
	s->stats.jit_loads++;
}

bool sym_resolve_jit(struct symbols *s, struct proc *p, uint64_t ip, struct symbols_result *out)
{
	ssize_t i = -1;

	if (p->jit.tried)
		i = sym_symtab_find(&p->jit.tab, ip);
	if (i < 0 && (!p->jit.tried || sym_now_ns() >= p->jit.next_ns)) {
		/* first use, or a miss: the JIT may have written more since (looked
		 * at again every SYM_JIT_RECHECK_NS at most: a process without a
		 * map, or with garbage frames, misses often) */
		jit_refresh(s, p);
		i = sym_symtab_find(&p->jit.tab, ip);
	}
	if (i < 0)
		return false;
	sym_result_set(out, SYMBOLS_FOUND, p->jit.tab.pool + p->jit.tab.syms[i].name,
	               ip - p->jit.tab.syms[i].start, "[jit]");
	return true;
}
