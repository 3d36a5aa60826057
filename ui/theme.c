/* theme: the slot table, theme files read with inih, and the theme search path. */
#include "theme.h"

#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define THEME_KEY(id, key, def8, def256) key,
static const char *const slot_keys[THEME_NR_SLOTS] = {THEME_SLOTS(THEME_KEY)};
#undef THEME_KEY
#define THEME_DEF8(id, key, def8, def256) def8,
static const char *const slot_def8[THEME_NR_SLOTS] = {THEME_SLOTS(THEME_DEF8)};
#undef THEME_DEF8
#define THEME_DEF256(id, key, def8, def256) def256,
static const char *const slot_def256[THEME_NR_SLOTS] = {THEME_SLOTS(THEME_DEF256)};
#undef THEME_DEF256

static const char *const color_names[8] = {"black", "red",     "green", "yellow",
                                           "blue",  "magenta", "cyan",  "white"};

static const struct {
	const char *name;
	unsigned bit;
} attr_names[] = {
    {"bold", THEME_BOLD},
    {"dim", THEME_DIM},
    {"reverse", THEME_REVERSE},
    {"underline", THEME_UNDERLINE},
    {"standout", THEME_STANDOUT},
    {"italic", THEME_ITALIC},
    {"normal", 0},
};

const char *theme_slot_key(enum theme_slot slot)
{
	return slot >= 0 && slot < THEME_NR_SLOTS ? slot_keys[slot] : NULL;
}

void theme_error_format(const struct theme_error *e, char *buf, size_t len)
{
	if (e->line > 0)
		snprintf(buf, len, "%s:%d: %s", e->file, e->line, e->msg);
	else
		snprintf(buf, len, "%s: %s", e->file, e->msg);
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return s;
}

static int parse_color(const char *s, bool allow256, short *out)
{
	char *end;
	long n;

	if (!strcmp(s, "default")) {
		*out = THEME_DEFAULT_COLOR;
		return 0;
	}
	for (int i = 0; i < 8; i++) {
		if (!strcmp(s, color_names[i])) {
			*out = (short)i;
			return 0;
		}
		if (allow256 && !strncmp(s, "bright-", 7) && !strcmp(s + 7, color_names[i])) {
			*out = (short)(i + 8);
			return 0;
		}
	}
	if (allow256 && !strncmp(s, "color", 5)) {
		errno = 0;
		n = strtol(s + 5, &end, 10);
		if (!errno && end != s + 5 && !*end && n >= 0 && n <= 255) {
			*out = (short)n;
			return 0;
		}
	}
	return -EINVAL;
}

int theme_parse_style(const char *text, bool allow256, struct theme_style *out)
{
	char buf[256], *save = NULL, *colors, *tok;
	struct theme_style st = {THEME_DEFAULT_COLOR, THEME_DEFAULT_COLOR, 0};
	bool first = true;

	if (strlen(text) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, text);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save), first = false) {
		tok = trim(tok);
		if (!first) {
			size_t k;
			for (k = 0; k < ARRAY_SIZE(attr_names); k++)
				if (!strcmp(tok, attr_names[k].name))
					break;
			if (k == ARRAY_SIZE(attr_names))
				return -EINVAL;
			st.attrs |= attr_names[k].bit;
			continue;
		}
		/* "FG", "FG on BG" or an attribute alone ("bold"). */
		colors = tok;
		char *on = strstr(colors, " on ");
		if (on) {
			*on = '\0';
			if (parse_color(trim(on + 4), allow256, &st.bg))
				return -EINVAL;
		}
		if (parse_color(trim(colors), allow256, &st.fg)) {
			size_t k;
			if (on)
				return -EINVAL;
			for (k = 0; k < ARRAY_SIZE(attr_names); k++)
				if (!strcmp(trim(colors), attr_names[k].name))
					break;
			if (k == ARRAY_SIZE(attr_names))
				return -EINVAL;
			st.attrs |= attr_names[k].bit;
		}
	}
	if (first)
		return -EINVAL;
	*out = st;
	return 0;
}

static bool style_is_mono(const struct theme_style *s)
{
	return s->fg == THEME_DEFAULT_COLOR && s->bg == THEME_DEFAULT_COLOR;
}

static void update_mono(struct theme *t)
{
	t->mono = true;
	for (int i = 0; i < THEME_NR_SLOTS; i++)
		t->mono &= style_is_mono(&t->c8[i]) && style_is_mono(&t->c256[i]);
}

void theme_builtin(struct theme *t)
{
	memset(t, 0, sizeof(*t));
	util_strlcpy(t->name, "default", sizeof(t->name));
	util_strlcpy(t->description, "built-in", sizeof(t->description));
	util_strlcpy(t->origin, "built-in", sizeof(t->origin));
	for (int i = 0; i < THEME_NR_SLOTS; i++) {
		/* The table is checked by the unit tests: these never fail. */
		theme_parse_style(slot_def8[i], false, &t->c8[i]);
		if (!slot_def256[i][0] || theme_parse_style(slot_def256[i], true, &t->c256[i]))
			t->c256[i] = t->c8[i];
	}
	update_mono(t);
}

struct parse_ctx {
	struct theme *t;
	bool set8[THEME_NR_SLOTS], set256[THEME_NR_SLOTS];
	char msg[256];
	int err_line;
	int line;
};

static int slot_of(const char *key)
{
	for (int i = 0; i < THEME_NR_SLOTS; i++)
		if (!strcmp(key, slot_keys[i]))
			return i;
	return -1;
}

/* Keep the first error's sentence; returning 0 makes inih report its line. */
static int fail(struct parse_ctx *c, const char *what, const char *a, const char *b,
                const char *hint)
{
	if (!c->msg[0])
		snprintf(c->msg, sizeof(c->msg), "%s '%s'%s%s; %s", what, a, b[0] ? " in " : "", b,
		         hint);
	return 0;
}

static int on_entry(void *user, const char *section, const char *key, const char *value)
{
	struct parse_ctx *c = user;
	int slot;

	if (!key)
		return 1; /* a section header alone */
	if (!strcmp(section, "theme")) {
		if (!strcmp(key, "description"))
			util_strlcpy(c->t->description, value, sizeof(c->t->description));
		else if (strcmp(key, "name"))
			return fail(c, "unknown key", key, "[theme]", "use name or description");
		return 1;
	}
	if (strcmp(section, "colors") && strcmp(section, "colors256"))
		return fail(c, "unknown section", section, "",
		            "use [theme], [colors] and [colors256]");
	slot = slot_of(key);
	if (slot < 0)
		return fail(c, "unknown slot", key, section, "themes/default.ini lists the slots");
	bool is256 = !strcmp(section, "colors256");
	if (theme_parse_style(value, is256, is256 ? &c->t->c256[slot] : &c->t->c8[slot]))
		return fail(
		    c, "bad style", value, key,
		    is256 ? "write FG [on BG][, bold|dim|reverse|underline|standout|italic] "
		            "with colour names, bright-NAME or colorN"
		          : "write FG [on BG][, bold|dim|reverse|underline|standout|italic] "
		            "with the 8 colour names or default (colorN belongs in [colors256])");
	(is256 ? c->set256 : c->set8)[slot] = true;
	return 1;
}

static int finish(struct parse_ctx *c, int ret, const char *file, struct theme_error *e)
{
	struct theme *t = c->t;

	if (ret != 0 || c->msg[0]) {
		char name[THEME_NAME_MAX];
		util_strlcpy(name, t->name, sizeof(name));
		memset(e, 0, sizeof(*e));
		util_strlcpy(e->file, file, sizeof(e->file));
		e->line = ret > 0 ? ret : 0;
		if (c->msg[0])
			util_strlcpy(e->msg, c->msg, sizeof(e->msg));
		else if (ret == -2)
			util_strlcpy(e->msg, "out of memory", sizeof(e->msg));
		else if (ret == -1)
			snprintf(e->msg, sizeof(e->msg), "cannot read: %s", strerror(errno));
		else
			util_strlcpy(e->msg, "syntax error: expected [section] or key = value",
			             sizeof(e->msg));
		theme_builtin(t);
		return ret == -1 ? -ENOENT : -EINVAL;
	}
	/* A slot set for 8 colours only keeps that style on 256 colours too. */
	for (int i = 0; i < THEME_NR_SLOTS; i++)
		if (c->set8[i] && !c->set256[i])
			t->c256[i] = t->c8[i];
	update_mono(t);
	return 0;
}

static void start(struct parse_ctx *c, struct theme *t, const char *name, const char *origin)
{
	memset(c, 0, sizeof(*c));
	theme_builtin(t);
	c->t = t;
	util_strlcpy(t->name, name, sizeof(t->name));
	util_strlcpy(t->origin, origin, sizeof(t->origin));
	t->description[0] = '\0';
}

int theme_load_string(struct theme *t, const char *name, const char *origin, const char *text,
                      struct theme_error *e)
{
	struct parse_ctx c;

	start(&c, t, name, origin);
	return finish(&c, ini_parse_string(text, on_entry, &c), origin, e);
}

#define THEME_FILE_MAX (1 << 20)

/* Read file (relative to dfd), called path, as theme_load_file() does. */
static int load_at(struct theme *t, int dfd, const char *file, const char *path,
                   struct theme_error *e)
{
	struct parse_ctx c;
	char name[THEME_NAME_MAX], why[160], *text;
	const char *base = strrchr(path, '/');
	size_t n, len;
	int ret;

	util_strlcpy(name, base ? base + 1 : path, sizeof(name));
	n = strlen(name);
	if (n > 4 && !strcmp(name + n - 4, ".ini"))
		name[n - 4] = '\0';
	start(&c, t, name, path);
	/* Not blocking on a FIFO, not from a file others can change. */
	ret = util_read_config(dfd, file, true, THEME_FILE_MAX, &text, &len, why, sizeof(why));
	if (ret) {
		memset(e, 0, sizeof(*e));
		util_strlcpy(e->file, path, sizeof(e->file));
		if (why[0])
			util_strlcpy(e->msg, why, sizeof(e->msg));
		else
			snprintf(e->msg, sizeof(e->msg), "cannot read: %s", strerror(-ret));
		theme_builtin(t);
		return ret;
	}
	if (strlen(text) != len) {
		memset(e, 0, sizeof(*e));
		util_strlcpy(e->file, path, sizeof(e->file));
		util_strlcpy(e->msg, "NUL byte in theme file", sizeof(e->msg));
		free(text);
		theme_builtin(t);
		return -EINVAL;
	}
	ret = finish(&c, ini_parse_string(text, on_entry, &c), path, e);
	free(text);
	return ret;
}

int theme_load_file(struct theme *t, const char *path, struct theme_error *e)
{
	return load_at(t, AT_FDCWD, path, path, e);
}

void theme_paths_default(struct theme_paths *p)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char exe[PATH_MAX];
	ssize_t n;

	memset(p, 0, sizeof(*p));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		/* <prefix>/bin/pfmtop -> <prefix>/share/pfmtop/themes */
		for (int k = 0; k < 2; k++) {
			char *slash = strrchr(exe, '/');
			if (slash)
				*slash = '\0';
		}
		if (snprintf(p->datadir, sizeof(p->datadir), "%s/%s/themes", exe,
		             PFMTOP_DATADIR_REL) >= (int)sizeof(p->datadir))
			p->datadir[0] = '\0'; /* too long to be a path: no share dir */
	}
	if (xdg && xdg[0] == '/' && strlen(xdg) + 20 < sizeof(p->userdir))
		snprintf(p->userdir, sizeof(p->userdir), "%s/pfmtop/themes", xdg);
	else if (home && home[0] && strlen(home) + 30 < sizeof(p->userdir))
		snprintf(p->userdir, sizeof(p->userdir), "%s/.config/pfmtop/themes", home);
}

int theme_set_find(const struct theme_set *set, const char *name)
{
	for (int i = 0; i < set->nr; i++)
		if (!strcmp(set->t[i].name, name))
			return i;
	return -1;
}

/* Put t into set, replacing one of the same name; its index, or -1 when full. */
static int set_add(struct theme_set *set, const struct theme *t)
{
	int i = theme_set_find(set, t->name);

	if (i < 0) {
		if (set->nr == THEME_MAX)
			return -1;
		i = set->nr++;
	}
	set->t[i] = *t;
	return i;
}

static void set_error(struct theme_set *set, const struct theme_error *e)
{
	if (!set->nr_errors++)
		set->error = *e;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_dir(struct theme_set *set, const char *dir)
{
	char *names[THEME_MAX], path[PATH_MAX];
	struct theme_error e;
	struct dirent *d;
	int nr = 0, dfd, fd;
	DIR *dh;

	if (!dir[0])
		return;
	dfd = util_open_config_dir(dir, e.msg, sizeof(e.msg));
	if (dfd == -EPERM) {
		/* Not ours: nobody else may choose our colours (or stall us). */
		util_strlcpy(e.file, dir, sizeof(e.file));
		e.line = 0;
		set_error(set, &e);
		return;
	}
	if (dfd < 0)
		return;
	fd = dup(dfd);
	if (fd < 0 || !(dh = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		close(dfd);
		return;
	}
	while ((d = readdir(dh)) && nr < THEME_MAX) {
		size_t n = strlen(d->d_name);
		if (d->d_name[0] == '.' || n < 5 || strcmp(d->d_name + n - 4, ".ini"))
			continue;
		names[nr] = strdup(d->d_name);
		if (names[nr])
			nr++;
	}
	closedir(dh);
	qsort(names, (size_t)nr, sizeof(names[0]), cmp_str);
	for (int i = 0; i < nr; i++) {
		struct theme *t = malloc(sizeof(*t));
		if (t &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]) < sizeof(path)) {
			if (load_at(t, dfd, names[i], path, &e))
				set_error(set, &e);
			else
				set_add(set, t);
		}
		free(t);
		free(names[i]);
	}
	close(dfd);
}

void theme_set_load(struct theme_set *set, const struct theme_paths *p)
{
	struct theme *t = malloc(sizeof(*t));
	struct theme_error e;

	/* t[nr..] is never read: not cleared (each page written is a page
	 * fault, and the set is large) */
	set->nr = 0;
	set->nr_errors = 0;
	memset(&set->error, 0, sizeof(set->error));
	if (!t)
		return;
	theme_builtin(t);
	set_add(set, t); /* "default", replaced by themes/default.ini below */
	for (int i = 0; i < themes_builtin_count; i++) {
		char name[THEME_NAME_MAX], origin[THEME_NAME_MAX + 16];
		util_strlcpy(name, themes_builtin[i].name, sizeof(name));
		char *dot = strrchr(name, '.');
		if (dot)
			*dot = '\0';
		snprintf(origin, sizeof(origin), "built-in %s", themes_builtin[i].name);
		if (theme_load_string(t, name, origin, themes_builtin[i].text, &e))
			set_error(set, &e);
		else
			set_add(set, t);
	}
	free(t);
	if (p) {
		load_dir(set, p->datadir);
		load_dir(set, p->userdir);
	}
}

static bool is_file(const char *arg)
{
	size_t n = strlen(arg);

	return strchr(arg, '/') || (n > 4 && !strcmp(arg + n - 4, ".ini"));
}

static int default_index(struct theme_set *set, bool mono_only)
{
	int i = theme_set_find(set, mono_only ? "mono" : "default");
	struct theme t;

	if (i >= 0)
		return i;
	theme_builtin(&t);
	i = set_add(set, &t);
	return i < 0 ? 0 : i;
}

int theme_set_choose(struct theme_set *set, const char *arg, bool mono_only, char *err,
                     size_t errlen)
{
	struct theme_error e;
	int i;

	err[0] = '\0';
	if (!arg)
		return default_index(set, mono_only);
	if (is_file(arg)) {
		struct theme *t = malloc(sizeof(*t));
		if (!t)
			return default_index(set, mono_only);
		if (theme_load_file(t, arg, &e)) {
			char buf[PATH_MAX + 300];
			theme_error_format(&e, buf, sizeof(buf));
			snprintf(err, errlen, "%s (using the built-in theme)", buf);
			free(t);
			return default_index(set, mono_only);
		}
		i = set_add(set, t);
		free(t);
		if (i < 0)
			return default_index(set, mono_only);
	} else {
		i = theme_set_find(set, arg);
		if (i < 0) {
			snprintf(err, errlen, "no theme '%s' (using the built-in theme)", arg);
			return default_index(set, mono_only);
		}
	}
	if (mono_only && !set->t[i].mono)
		return default_index(set, true);
	return i;
}

int theme_check(const char *arg, char *err, size_t errlen)
{
	struct theme_set *set = malloc(sizeof(*set));
	struct theme_paths paths;
	int ret = 0;

	err[0] = '\0';
	if (!set)
		return 0; /* the view finds out again */
	if (is_file(arg)) {
		struct theme_error e;

		if (theme_load_file(&set->t[0], arg, &e)) {
			theme_error_format(&e, err, errlen);
			ret = -EINVAL;
		}
		free(set);
		return ret;
	}
	theme_paths_default(&paths);
	theme_set_load(set, &paths);
	if (theme_set_find(set, arg) < 0) {
		size_t n =
		    (size_t)snprintf(err, errlen, "--theme %s: no such theme; there are", arg);

		for (int i = 0; i < set->nr && n < errlen; i++)
			n += (size_t)snprintf(err + n, errlen - n, "%s %s", i ? "," : "",
			                      set->t[i].name);
		if (n < errlen)
			snprintf(err + n, errlen - n, " (or give a FILE)");
		ret = -ENOENT;
	}
	free(set);
	return ret;
}
