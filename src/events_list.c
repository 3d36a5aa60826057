/* events_list: -e lists ({groups}, modifiers, tracepoint globs) and the listing of
 * the events this machine offers. */
#include "events_priv.h"

#include "pfmlib.h"

#include <perfmon/pfmlib_perf_event.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- event lists ---- */

struct list_state {
	struct events_list l;
	int group; /* group of the open '{', -1 outside braces */
	char *err;
	size_t errlen;
};

static int list_error(struct list_state *s, size_t col, const char *what)
{
	snprintf(s->err, s->errlen, "column %zu: %s", col, what);
	return -EINVAL;
}

/* Index of the first non-blank character in list[start, end), or end. */
static size_t skip_blank(const char *list, size_t start, size_t end)
{
	while (start < end && isspace((unsigned char)list[start]))
		start++;
	return start;
}

/* Add list[start, end) (trimmed) as one event. */
static int list_add(struct list_state *s, const char *list, size_t start, size_t end)
{
	start = skip_blank(list, start, end);
	while (end > start && isspace((unsigned char)list[end - 1]))
		end--;
	if (start == end)
		return list_error(s, end + 1, "empty event name");
	if (s->l.nr == EVENTS_LIST_MAX)
		return list_error(s, start + 1, "too many events (at most 64)");
	if (end - start >= EVENTS_NAME_MAX)
		return list_error(s, start + 1, "event name too long");
	memcpy(s->l.name[s->l.nr], list + start, end - start);
	s->l.name[s->l.nr][end - start] = '\0';
	s->l.src[s->l.nr] = list;
	s->l.at[s->l.nr] = (unsigned short)start;
	s->l.len[s->l.nr] = (unsigned short)(end - start);
	s->l.mods_at[s->l.nr] = s->l.mods_len[s->l.nr] = 0;
	s->l.group[s->l.nr++] = s->group >= 0 ? s->group : s->l.nr_groups++;
	return 0;
}

/* A group's modifiers, list[start, end) after its '}': added to those of
 * each of its events (from index first). */
static int group_mods(struct list_state *s, const char *list, size_t start, size_t end, int first)
{
	char mods[16];
	struct mods m;

	if (end - start >= sizeof(mods))
		return list_error(s, start + 1, "unknown group modifiers: " EVENTS_MODS_HINT);
	memcpy(mods, list + start, end - start);
	mods[end - start] = '\0';
	if (events_mods_parse(mods, &m))
		return list_error(s, start + 1, "unknown group modifiers: " EVENTS_MODS_HINT);
	for (int k = first; k < s->l.nr; k++) {
		char *name = s->l.name[k], *colon = strrchr(name, ':');
		struct mods own;
		bool has = colon && colon > name && colon[-1] != ':' &&
		           !events_mods_parse(colon + 1, &own);
		size_t n = strlen(name);
		if (n + strlen(mods) + 2 > EVENTS_NAME_MAX)
			return list_error(s, start + 1,
			                  "event name too long with the group's modifiers");
		snprintf(name + n, EVENTS_NAME_MAX - n, "%s%s", has ? "" : ":", mods);
		s->l.mods_at[k] = (unsigned short)start;
		s->l.mods_len[k] = (unsigned short)(end - start);
	}
	return 0;
}

/* Does the item starting at list[start] name a breakpoint (mem:...)? Its
 * '/' is a length then, not a PMU's terms. */
static bool is_breakpoint(const char *list, size_t start)
{
	while (isspace((unsigned char)list[start]))
		start++;
	return !strncmp(list + start, "mem:", 4);
}

int events_parse_list(const char *list, struct events_list *out, char *err, size_t errlen)
{
	struct list_state st = {.l = *out, .group = -1, .err = err, .errlen = errlen}, *s = &st;
	size_t i, start = 0, brace_col = 0, slash_col = 0, mods_at = 0;
	bool closed = false; /* just after '}': only blanks, ':MODS', ',' or the end may follow */
	int slashes = 0, ret = 0, first = 0;

	if (strlen(list) > USHRT_MAX)
		return list_error(s, USHRT_MAX, "event list too long");

	for (i = 0;; i++) {
		char c = list[i];

		if (slashes % 2 && c != '/' && c)
			continue; /* inside pmu/.../: commas and braces belong to the name */
		if (closed && c == ':' && !mods_at && skip_blank(list, start, i) == i) {
			mods_at = i + 1; /* {a,b}:MODS */
			continue;
		}
		if (mods_at && c && c != ',')
			continue;
		if (c == '/' && !is_breakpoint(list, start)) {
			if (!slashes++)
				slash_col = i + 1;
			continue;
		}
		if (c == '{') {
			if (brace_col)
				ret = list_error(s, i + 1, "nested '{'");
			else if (closed || skip_blank(list, start, i) < i)
				ret = list_error(s, i + 1, "missing ',' before '{'");
			brace_col = i + 1;
			s->group = s->l.nr_groups++;
			first = s->l.nr;
			start = i + 1;
		} else if (c == '}' || c == ',' || !c) {
			if (!c && slashes % 2)
				ret = list_error(s, slash_col, "'/' without closing '/'");
			else if (c == '}' && !brace_col)
				ret = list_error(s, i + 1, "'}' without '{'");
			else if (mods_at)
				ret = group_mods(s, list, mods_at, i, first);
			else if (closed && skip_blank(list, start, i) < i)
				ret = list_error(s, skip_blank(list, start, i) + 1,
				                 "missing ',' after '}'");
			else if (!closed)
				ret = list_add(s, list, start, i);
			if (!ret && !c && brace_col)
				ret = list_error(s, brace_col, "'{' without '}'");
			closed = c == '}';
			if (closed) {
				brace_col = 0;
				s->group = -1;
			}
			mods_at = 0;
			slashes = 0;
			start = i + 1;
		}
		if (ret || !c)
			break;
	}
	if (!ret)
		*out = s->l;
	return ret;
}

/* ---- where an event was written ---- */

/* Longest list drawn with a caret under it: one line of a terminal. */
#define CARET_LIST_MAX 160

int events_caret(char *buf, size_t len, const char *list, size_t at, size_t span)
{
	size_t n = strlen(buf), w = strlen(list);
	int k;

	if (w > CARET_LIST_MAX)
		return -1;
	for (const char *p = list; *p; p++)
		if (*p < 0x20 || *p >= 0x7f)
			return -1;
	if (at > w)
		at = w;
	if (at + span > w)
		span = w - at;
	if (!span)
		span = 1;
	if (!at && span >= w)
		return 0; /* the whole list: the message names it already */
	/* "\n  LIST\n  " then at blanks, '^' and span - 1 '~' */
	if (n + 6 + w + at + span >= len)
		return -1;
	k = snprintf(buf + n, len - n, "\n  %s\n  %*s^", list, (int)at, "");
	n += (size_t)k;
	memset(buf + n, '~', span - 1);
	buf[n + span - 1] = '\0';
	return 0;
}

/* Where the part [part_at, part_at + part_len) of event i's name was
 * written, in l->src[i]: *at and *span. */
static void list_place(const struct events_list *l, int i, size_t part_at, size_t part_len,
                       size_t *at, size_t *span)
{
	const char *name = l->name[i];
	size_t n = l->len[i];
	/* the name as written, or with its group's modifiers after it (not a
	 * glob's tracepoint, which is named differently) */
	bool as_written = !strncmp(name, l->src[i] + l->at[i], n) && (!name[n] || l->mods_len[i]);

	*at = l->at[i];
	*span = n;
	if (!part_len || !as_written)
		return;
	if (part_at < n) {
		*at += part_at;
		*span = part_len < n - part_at ? part_len : n - part_at;
	} else if (l->mods_len[i]) {
		*at = l->mods_at[i];
		*span = l->mods_len[i];
	}
}

int events_list_caret(const struct events_list *l, int i, size_t part_at, size_t part_len,
                      char *buf, size_t len)
{
	size_t at, span;

	if (i < 0 || i >= l->nr || !l->src[i])
		return -1;
	list_place(l, i, part_at, part_len, &at, &span);
	return events_caret(buf, len, l->src[i], at, span);
}

int events_list_column(const struct events_list *l, int i, size_t part_at)
{
	size_t at, span;

	if (i < 0 || i >= l->nr || !l->src[i])
		return 0;
	list_place(l, i, part_at, 1, &at, &span);
	return (int)at + 1;
}

/* ---- listing ---- */

struct lister {
	const struct event_roots *roots;
	const char *glob;
	events_list_cb cb;
	void *arg;
	int count;
	bool stop;
};

static void lister_emit(struct lister *ls, const char *name, const char *desc,
                        enum events_source src)
{
	if (ls->stop || (ls->glob && fnmatch(ls->glob, name, FNM_CASEFOLD)))
		return;
	ls->count++;
	if (ls->cb(name, desc ? desc : "", src, ls->arg))
		ls->stop = true;
}

static void list_libpfm(struct lister *ls, const struct pfmlib *lib)
{
	char name[EVENTS_NAME_MAX], *p;
	pfm_event_info_t info;
	pfm_pmu_info_t pinfo;
	bool generic;
	int i, e;

	pfm_for_all_pmus(i)
	{
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (lib->get_pmu_info(i, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		/* perf_raw only describes the rNNNN syntax, resolved without libpfm4. */
		if (!strcmp(pinfo.name, "perf_raw"))
			continue;
		generic = !strcmp(pinfo.name, "perf");
		for (e = pinfo.first_event; e != -1 && !ls->stop; e = lib->get_event_next(e)) {
			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			if (lib->get_event_info(e, PFM_OS_NONE, &info) != PFM_SUCCESS)
				continue;
			if (!generic) {
				snprintf(name, sizeof(name), "%s::%s", pinfo.name, info.name);
			} else {
				/* perf's own spelling for the aliases: cycles, task-clock. */
				snprintf(name, sizeof(name), "%s", info.name);
				if (strncmp(name, "PERF_COUNT_", 11))
					for (p = name; *p; p++)
						*p = (char)tolower((unsigned char)*p);
			}
			lister_emit(ls, name, info.desc, EVENTS_SRC_LIBPFM);
		}
	}
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static int skip_dots(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* scandir filter for <pmu>/events/: aliases, not their .scale/.unit/... companions. */
static int sysfs_alias_file(const struct dirent *d)
{
	return skip_dots(d) && !has_suffix(d->d_name, ".scale") &&
	       !has_suffix(d->d_name, ".unit") && !has_suffix(d->d_name, ".snapshot") &&
	       !has_suffix(d->d_name, ".per-pkg");
}

static void free_dirents(struct dirent **ents, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(ents[i]);
	if (n >= 0)
		free(ents);
}

static void list_sysfs(struct lister *ls)
{
	char path[PATH_MAX], name[EVENTS_NAME_MAX], desc[TERMS_MAX];
	struct dirent **pmus, **evs = NULL;
	int i, j, np, ne;

	np = scandir(events_pmu_root(ls->roots), &pmus, skip_dots, alphasort);
	for (i = 0; i < np; i++) {
		const char *pmu = pmus[i]->d_name;

		ne = -1;
		if (!events_strfmt(path, sizeof(path), "%s/%s/events", events_pmu_root(ls->roots),
		                   pmu))
			ne = scandir(path, &evs, sysfs_alias_file, alphasort);
		for (j = 0; j < ne; j++) {
			if (events_strfmt(name, sizeof(name), "%s/%s/", pmu, evs[j]->d_name))
				continue;
			if (events_strfmt(path, sizeof(path), "%s/%s/events/%s",
			                  events_pmu_root(ls->roots), pmu, evs[j]->d_name) ||
			    events_read_text(path, desc, sizeof(desc)) < 0)
				desc[0] = '\0';
			lister_emit(ls, name, desc, EVENTS_SRC_SYSFS);
		}
		free_dirents(evs, ne);
	}
	free_dirents(pmus, np);
}

static void list_tracepoints(struct lister *ls, const char *tfs)
{
	char path[PATH_MAX], name[EVENTS_NAME_MAX];
	struct dirent **subs, **evs = NULL;
	int i, j, ns, ne;

	events_strfmt(path, sizeof(path), "%s/events", tfs);
	ns = scandir(path, &subs, skip_dots, alphasort);
	for (i = 0; i < ns; i++) {
		const char *sub = subs[i]->d_name;

		ne = -1;
		if (!events_strfmt(path, sizeof(path), "%s/events/%s", tfs, sub) &&
		    events_is_dir(path))
			ne = scandir(path, &evs, skip_dots, alphasort);
		for (j = 0; j < ne; j++) {
			if (events_strfmt(name, sizeof(name), "%s:%s", sub, evs[j]->d_name) ||
			    events_strfmt(path, sizeof(path), "%s/events/%s/%s/id", tfs, sub,
			                  evs[j]->d_name) ||
			    access(path, F_OK))
				continue;
			lister_emit(ls, name, "tracepoint", EVENTS_SRC_TRACEPOINT);
		}
		free_dirents(evs, ne);
	}
	free_dirents(subs, ns);
}

int events_list(const struct event_roots *r, const char *glob, events_list_cb cb, void *arg)
{
	struct lister ls = {.roots = r, .glob = glob, .cb = cb, .arg = arg};
	const char *tfs = events_tracefs(r);
	const struct pfmlib *lib = pfmlib_get(NULL, 0);

	if (lib)
		list_libpfm(&ls, lib);
	else /* at least the names that resolve without it */
		for (int i = 0; events_builtin_name(i) && !ls.stop; i++)
			lister_emit(&ls, events_builtin_name(i), events_builtin_event(i),
			            EVENTS_SRC_LIBPFM);
	if (!ls.stop)
		list_sysfs(&ls);
	if (!ls.stop && tfs)
		list_tracepoints(&ls, tfs);
	return ls.count;
}

/* ---- tracepoint globs ---- */

/* Event j of to was written where event i of from was. */
static void events_list_copy_place(struct events_list *to, int j, const struct events_list *from,
                                   int i)
{
	to->src[j] = from->src[i];
	to->at[j] = from->at[i];
	to->len[j] = from->len[i];
	to->mods_at[j] = from->mods_at[i];
	to->mods_len[j] = from->mods_len[i];
}

struct glob_ctx {
	const struct events_list *in;
	int i; /* the glob's index in in */
	struct events_list *out;
	int group;        /* of the braces it stands in, -1 outside */
	const char *mods; /* ":u" or "" */
	int count;
	bool full;
};

static int glob_add(const char *name, const char *desc, enum events_source src, void *arg)
{
	struct glob_ctx *g = arg;
	struct events_list *l = g->out;

	g->count++;
	if (l->nr == EVENTS_LIST_MAX) {
		g->full = true;
		return 0; /* go on counting them, for the message */
	}
	snprintf(l->name[l->nr], EVENTS_NAME_MAX, "%s%s", name, g->mods);
	events_list_copy_place(l, l->nr, g->in, g->i);
	l->group[l->nr++] = g->group >= 0 ? g->group : l->nr_groups++;
	return 0;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

int events_expand_globs(const struct event_roots *r, struct events_list *l, char *err,
                        size_t errlen)
{
	struct events_list out = {.nr_groups = l->nr_groups};
	const char *tfs = events_tracefs(r);

	for (int i = 0; i < l->nr; i++) {
		char base[EVENTS_NAME_MAX], mods[24] = "";
		struct mods m;
		bool alone = true;

		snprintf(base, sizeof(base), "%s", l->name[i]);
		events_mods_strip(base, &m);
		if (!is_glob(base) || !strchr(base, ':') || strchr(base, '/')) {
			if (out.nr == EVENTS_LIST_MAX) {
				snprintf(err, errlen, "too many events (at most %d)",
				         EVENTS_LIST_MAX);
				events_list_caret(l, i, 0, 0, err, errlen);
				return -E2BIG;
			}
			snprintf(out.name[out.nr], EVENTS_NAME_MAX, "%s", l->name[i]);
			events_list_copy_place(&out, out.nr, l, i);
			out.group[out.nr++] = l->group[i];
			continue;
		}
		if (!tfs) {
			snprintf(err, errlen,
			         "'%s' names tracepoints, and tracefs is not mounted: run "
			         "'mount -t tracefs nodev /sys/kernel/tracing' as root",
			         l->name[i]);
			events_list_caret(l, i, 0, 0, err, errlen);
			return -ENODEV;
		}
		if (strlen(base) < strlen(l->name[i]))
			snprintf(mods, sizeof(mods), "%s", l->name[i] + strlen(base));
		for (int k = 0; k < l->nr; k++)
			alone &= k == i || l->group[k] != l->group[i];
		struct glob_ctx g = {l, i, &out, alone ? -1 : l->group[i], mods, 0, false};
		struct lister ls = {.roots = r, .glob = base, .cb = glob_add, .arg = &g};
		list_tracepoints(&ls, tfs);
		if (!g.count) {
			snprintf(err, errlen,
			         "no tracepoint matches '%s' (see pfmtop --list-events '%s')", base,
			         base);
			events_list_caret(l, i, 0, 0, err, errlen);
			return -ENOENT;
		}
		if (g.full) {
			snprintf(
			    err, errlen,
			    "'%s' matches %d tracepoints, more than the %d events pfmtop counts "
			    "at once: narrow the pattern",
			    base, g.count, EVENTS_LIST_MAX);
			events_list_caret(l, i, 0, 0, err, errlen);
			return -E2BIG;
		}
	}
	*l = out;
	return 0;
}
