/* preset_files: the preset set, the files and directories of the search path, and
 * the lookup of a preset for this machine. */
#include "preset_priv.h"

#include "model.h"
#include "presets_builtin.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PFMTOP_DATADIR_REL
#define PFMTOP_DATADIR_REL "share/pfmtop"
#endif

const char *preset_origin_name(enum preset_origin origin)
{
	switch (origin) {
	case PRESET_ORIGIN_BUILTIN:
		return "built-in";
	case PRESET_ORIGIN_DATADIR:
		return "datadir";
	case PRESET_ORIGIN_SYSCONF:
		return "system";
	case PRESET_ORIGIN_USER:
		return "user";
	case PRESET_ORIGIN_FILE:
		return "file";
	}
	return "?";
}

void preset_set_init(struct preset_set *set)
{
	memset(set, 0, sizeof(*set));
}

void preset_set_free(struct preset_set *set)
{
	for (int i = 0; i < set->nr; i++)
		util_big_free(set->p[i]);
	free(set->p);
	free(set->files);
	memset(set, 0, sizeof(*set));
}

int preset_error_format(const struct preset_error *err, char *buf, size_t len)
{
	return expr_error_format(buf, len, err->file[0] ? err->file : NULL, err->line, err->col,
	                         err->msg, err->src[0] ? err->src : NULL);
}

/* ---- files and the search path ---- */

static int file_error(struct preset_error *err, const char *path, int e, const char *what)
{
	memset(err, 0, sizeof(*err));
	util_path_elided(err->file, sizeof(err->file), path);
	snprintf(err->msg, sizeof(err->msg), "%s: %s", what, strerror(e));
	return -e;
}

/* A file's own complaint ("not a regular file"), without an errno text. */
static int file_why(struct preset_error *err, const char *path, int ret, const char *why)
{
	memset(err, 0, sizeof(*err));
	util_path_elided(err->file, sizeof(err->file), path);
	util_strlcpy(err->msg, why, sizeof(err->msg));
	return ret;
}

/* The name of a "[preset NAME" header on line l (n bytes), as far as a
 * tolerant look can tell: true with the name at l[*a, *b), and *variant
 * when a ':' (PMU patterns) follows it. */
static bool header_name(const char *l, size_t n, size_t *a, size_t *b, bool *variant)
{
	size_t i = 0;

	while (i < n && (preset_is_blank(l[i]) || (unsigned char)l[i] >= 0x80))
		i++; /* blanks, a BOM */
	if (i == n || l[i] != '[')
		return false;
	for (i++; i < n && preset_is_blank(l[i]); i++)
		;
	if (n - i < 7 || strncmp(l + i, "preset", 6) || !preset_is_blank(l[i + 6]))
		return false;
	for (i += 6; i < n && preset_is_blank(l[i]); i++)
		;
	for (*a = i; i < n && preset_name_char(l[i]); i++)
		;
	*b = i;
	if (i == *a || i - *a >= PRESET_NAME_MAX)
		return false;
	while (i < n && preset_is_blank(l[i]))
		i++;
	*variant = i < n && l[i] == ':';
	return true;
}

/* The next line of text (len bytes) from *off: its start, *n its length;
 * NULL at the end. */
static const char *next_line(const char *text, size_t len, size_t *off, size_t *n)
{
	const char *l = text + *off, *nl;

	if (*off >= len)
		return NULL;
	nl = memchr(l, '\n', len - *off);
	*n = nl ? (size_t)(nl - l) : len - *off;
	*off += *n + 1;
	return l;
}

/* Append the name s (len bytes, under PRESET_NAME_MAX) to names[0..*n)
 * unless it is there. False when it is not and names is full (max). */
static bool add_name(char (*names)[PRESET_NAME_MAX], int *n, int max, const char *s, size_t len)
{
	for (int k = 0; k < *n; k++)
		if (strlen(names[k]) == len && !strncmp(names[k], s, len))
			return true;
	if (*n == max || len >= PRESET_NAME_MAX)
		return false;
	memcpy(names[*n], s, len);
	names[(*n)++][len] = '\0';
	return true;
}

/* The names of the [preset NAME...] headers in text, as far as a tolerant
 * look can tell (the file did not parse): what it means to declare. */
static void scan_names(struct preset_file *f, const char *text, size_t len)
{
	size_t off = 0, n, a, b;
	const char *l;
	bool variant;

	while ((l = next_line(text, len, &off, &n)))
		if (header_name(l, n, &a, &b, &variant) &&
		    !add_name(f->names, &f->nr_names, PRESET_FILE_NAMES, l + a, b - a)) {
			f->more_names = true;
			return;
		}
}

/* Note in set->files what became of path. 0 or -ENOMEM. */
static int record_file(struct preset_set *set, const char *path, enum preset_origin origin, int ret,
                       const struct preset_error *err, const char *text, size_t len)
{
	struct preset_file *f;

	if (util_grow(&set->files, set->nr_files, &set->cap_files, sizeof(*set->files), 16))
		return -ENOMEM;
	f = &set->files[set->nr_files++];
	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->origin = origin;
	f->ret = ret;
	if (ret && err)
		f->err = *err;
	if (ret && text)
		scan_names(f, text, len);
	return 0;
}

/* Read name (relative to dfd) called path in messages, and parse it; with
 * record, note the outcome in set->files. */
static int load_at(struct preset_set *set, int dfd, const char *name, const char *path,
                   enum preset_origin origin, struct preset_error *err, bool record)
{
	char why[160], *text = NULL;
	size_t len = 0;
	int ret;

	ret = util_read_config(dfd, name, true, FILE_MAX, &text, &len, why, sizeof(why));
	if (ret == -EFBIG)
		file_error(err, path, EFBIG, "preset file too large");
	else if (ret && why[0])
		file_why(err, path, ret, why);
	else if (ret && ret != -ENOMEM)
		file_error(err, path, -ret, "cannot open preset file");
	else if (!ret)
		ret = preset_parse(set, text, len, path, origin, err);
	if (record && ret != -ENOMEM && record_file(set, path, origin, ret, err, text, len))
		ret = -ENOMEM;
	free(text);
	return ret;
}

int preset_load_file(struct preset_set *set, const char *path, enum preset_origin origin,
                     struct preset_error *err)
{
	return load_at(set, AT_FDCWD, path, path, origin, err, false);
}

static int ini_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 4 && !strcmp(d->d_name + n - 4, ".ini");
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int preset_load_dir(struct preset_set *set, const char *dir, enum preset_origin origin,
                    struct preset_error *err)
{
	struct dirent **ents;
	char path[PATH_MAX], why[160];
	struct stat st;
	int n, dfd, ret = 0;

	dfd = util_open_config_dir(dir, why, sizeof(why));
	/* A search-path directory that is not there, or not ours to read
	 * (HOME of another user under su/setpriv), holds no presets. */
	if (dfd == -ENOENT || dfd == -ENOTDIR || dfd == -EACCES)
		return 0;
	if (dfd < 0) {
		if (why[0]) {
			file_why(err, dir, dfd, why);
		} else {
			file_error(err, dir, -dfd, "cannot read preset directory");
		}
		return record_file(set, dir, origin, dfd, err, NULL, 0);
	}
	n = scandirat(dfd, ".", &ents, ini_file, by_name);
	if (n < 0) {
		ret = file_error(err, dir, errno, "cannot read preset directory");
		ret = record_file(set, dir, origin, ret, err, NULL, 0);
		close(dfd);
		return ret;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (ret != -ENOMEM &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) < sizeof(path) &&
		    fstatat(dfd, name, &st, 0) == 0 && !S_ISDIR(st.st_mode)) {
			if (!S_ISREG(st.st_mode)) /* not even opened */
				ret =
				    record_file(set, path, origin,
				                file_why(err, path, -EINVAL, "not a regular file"),
				                err, NULL, 0);
			else
				ret = load_at(set, dfd, name, path, origin, err, true);
		}
		free(ents[i]);
	}
	free(ents);
	close(dfd);
	return ret == -ENOMEM ? ret : 0;
}

/* Whether text (a built-in file: well formed) has a [preset name] or
 * [preset name:PMUS] section. */
static bool builtin_declares(const char *text, const char *name)
{
	size_t off = 0, len = strlen(text), n, a, b;
	const char *l;
	bool variant;

	while ((l = next_line(text, len, &off, &n)))
		if (header_name(l, n, &a, &b, &variant) && strlen(name) == b - a &&
		    !strncmp(name, l + a, b - a))
			return true;
	return false;
}

/* The built-in files, each parsed unless only is set and it declares no
 * preset called only (then its presets are left out and set->partial
 * says so). Every file is noted in set->files as loaded. */
static int load_builtin(struct preset_set *set, const char *only, struct preset_error *err)
{
	char file[PRESET_PATH_MAX];
	int ret;

	for (int i = 0; i < presets_builtin_count; i++) {
		const char *text = presets_builtin[i].text;

		snprintf(file, sizeof(file), "builtin:%s", presets_builtin[i].name);
		if (only && !builtin_declares(text, only)) {
			set->partial = true;
			ret = 0;
		} else {
			ret =
			    preset_parse(set, text, strlen(text), file, PRESET_ORIGIN_BUILTIN, err);
		}
		if (!ret)
			ret = record_file(set, file, PRESET_ORIGIN_BUILTIN, 0, NULL, NULL, 0);
		if (ret)
			return ret;
	}
	return 0;
}

int preset_load_builtin(struct preset_set *set, struct preset_error *err)
{
	return load_builtin(set, NULL, err);
}

int preset_base_names(const struct preset_set *set, char (*names)[PRESET_NAME_MAX], int max)
{
	size_t off, len, n, a, b;
	const char *l;
	bool variant;
	int nr = 0;

	/* Built-in presets come first in a set, in file order; one from a
	 * later place takes the place of the one it overrides, and new names
	 * follow in load order. A partial set lacks some built-in presets:
	 * their headers give their names and places. */
	for (int i = 0; set->partial && i < presets_builtin_count; i++) {
		const char *text = presets_builtin[i].text;

		len = strlen(text);
		for (off = 0; (l = next_line(text, len, &off, &n));)
			if (header_name(l, n, &a, &b, &variant) && !variant)
				add_name(names, &nr, max, l + a, b - a);
	}
	for (int i = 0; i < set->nr; i++)
		if (!set->p[i]->pmu[0])
			add_name(names, &nr, max, set->p[i]->name, strlen(set->p[i]->name));
	return nr;
}

/* A path, or "" (the place is skipped) when it does not fit. */
__attribute__((format(printf, 3, 4))) static void path_fmt(char *buf, size_t len, const char *fmt,
                                                           ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		buf[0] = '\0';
}

void preset_paths_default(struct preset_paths *paths)
{
	char exe[PATH_MAX], *slash;
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	ssize_t n;

	memset(paths, 0, sizeof(*paths));
	paths->builtin = true;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		/* <prefix>/bin/pfmtop -> <prefix>/share/pfmtop/presets */
		for (int k = 0; k < 2; k++) {
			slash = strrchr(exe, '/');
			if (slash)
				*slash = '\0';
		}
		path_fmt(paths->datadir, sizeof(paths->datadir), "%s/%s/presets", exe,
		         PFMTOP_DATADIR_REL);
	}
	snprintf(paths->sysconfdir, sizeof(paths->sysconfdir), "/etc/pfmtop/presets.d");
	if (xdg && xdg[0] == '/')
		path_fmt(paths->userdir, sizeof(paths->userdir), "%s/pfmtop/presets.d", xdg);
	else if (home && home[0])
		path_fmt(paths->userdir, sizeof(paths->userdir), "%s/.config/pfmtop/presets.d",
		         home);
}

int preset_load_all(struct preset_set *set, const struct preset_paths *paths,
                    struct preset_error *err)
{
	const struct {
		const char *dir;
		enum preset_origin origin;
	} dirs[] = {
	    {paths->datadir, PRESET_ORIGIN_DATADIR},
	    {paths->sysconfdir, PRESET_ORIGIN_SYSCONF},
	    {paths->userdir, PRESET_ORIGIN_USER},
	};
	int ret;

	if (paths->builtin) {
		ret = load_builtin(set, paths->only, err);
		if (ret)
			return ret;
	}
	for (size_t k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++) {
		if (!dirs[k].dir[0])
			continue;
		ret = preset_load_dir(set, dirs[k].dir, dirs[k].origin, err);
		if (ret)
			return ret;
	}
	if (paths->file[0])
		return load_at(set, AT_FDCWD, paths->file, paths->file, PRESET_ORIGIN_FILE, err,
		               true);
	return 0;
}

const struct preset_file *preset_broken_file(const struct preset_set *set, const char *name)
{
	int at = preset_group_find(set, name), from = 0;

	/* A broken file before the one that defines name would have been
	 * overridden by it anyway. */
	for (int i = 0; at >= 0 && i < set->nr_files; i++)
		if (!set->files[i].ret && !strcmp(set->files[i].path, set->p[at]->file))
			from = i + 1;
	for (int i = from; i < set->nr_files; i++) {
		const struct preset_file *f = &set->files[i];

		if (!f->ret)
			continue;
		if (f->more_names)
			return f;
		for (int k = 0; k < f->nr_names; k++)
			if (!strcmp(f->names[k], name))
				return f;
	}
	return NULL;
}

/* ---- lookup ---- */

/* Best score of the patterns that match one of pmus: the number of
 * non-wildcard characters; -1 when none matches. */
static int pmu_score(const char *patterns, const char *const *pmus, int nr_pmus)
{
	char pat[PRESET_PMU_MAX];
	int best = -1;

	for (const char *p = patterns; *p;) {
		size_t n = strcspn(p, ",");
		int score = 0;

		snprintf(pat, sizeof(pat), "%.*s", (int)n, p);
		for (const char *c = pat; *c; c++)
			score += !strchr("*?", *c);
		for (int k = 0; k < nr_pmus; k++)
			if (pmus[k] && !fnmatch(pat, pmus[k], 0) && score > best)
				best = score;
		p += n;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return best;
}

const struct preset *preset_find(const struct preset_set *set, const char *name,
                                 const char *const *pmus, int nr_pmus)
{
	int at = preset_group_find(set, name), end, best = -1, pick;

	if (at < 0)
		return NULL;
	pick = at;
	end = preset_group_end(set, at);
	for (int i = at + 1; i < end; i++) {
		int score = pmu_score(set->p[i]->pmu, pmus, nr_pmus);

		if (score > best) {
			best = score;
			pick = i;
		}
	}
	return set->p[pick];
}

void preset_list_print(const struct preset_set *set, FILE *out)
{
	for (int i = 0; i < set->nr; i++) {
		const struct preset *p = set->p[i];
		char where[PRESET_PATH_MAX + 16];

		snprintf(where, sizeof(where), "%s:%d", p->file, p->line);
		if (p->pmu[0]) {
			fprintf(out, "  %-14s %-9s %s\n", "", "variant", p->pmu);
			fprintf(out, "  %-14s %-9s %s\n", "", "", where);
			continue;
		}
		fprintf(out, "%-16s %-9s %s%s%s\n", p->name, preset_origin_name(p->origin), where,
		        p->overrides ? ", overrides " : "",
		        p->overrides ? preset_origin_name(p->overridden) : "");
		if (p->description[0])
			fprintf(out, "  %-14s %-9s %s\n", "", "", p->description);
	}
}

void preset_events_list(const struct preset *p, struct events_list *out)
{
	memset(out, 0, sizeof(*out));
	out->nr = p->nr_events;
	out->nr_groups = p->nr_groups;
	for (int i = 0; i < p->nr_events; i++) {
		snprintf(out->name[i], sizeof(out->name[i]), "%s", p->ev[i].name);
		out->group[i] = p->ev[i].group;
	}
}
