/* rcfile: the view's settings remembered between runs ($XDG_CONFIG_HOME/pfmtop/pfmtoprc). */
#include "rcfile.h"

#include "options.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RC_MAX_BYTES (64u << 10)
#define RC_SECTION   "view"

int rcfile_path(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int n;

	/* XDG: a relative XDG_CONFIG_HOME is to be ignored */
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/pfmtop/" RCFILE_NAME, xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.config/pfmtop/" RCFILE_NAME, home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

struct parse {
	struct rcfile *rc;
	char msg[200]; /* the first error */
};

static bool parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no",
	                                                                            "off", "0"};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcmp(v, yes[i]))
			return (*out = true);
		if (!strcmp(v, no[i]))
			return !(*out = false);
	}
	return false;
}

/* A name (theme, sort column): printable, no blanks, short enough. */
static bool parse_word(const char *v, char *out, size_t len)
{
	if (!v[0] || strlen(v) >= len)
		return false;
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p <= ' ' || *p == 0x7f)
			return false;
	util_strlcpy(out, v, len);
	return true;
}

__attribute__((format(printf, 2, 3))) static int set_error(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->msg[0]) {
		va_start(ap, fmt);
		vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
		va_end(ap);
	}
	return 0; /* inih: an error on this line */
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	struct rcfile *rc = p->rc;

	if (strcmp(section, RC_SECTION))
		return set_error(
		    p, "unknown section [%.60s]; the settings are under [" RC_SECTION "]", section);
	if (!strcmp(name, "theme")) {
		if (!(rc->have_theme = parse_word(value, rc->theme, sizeof(rc->theme))))
			return set_error(p, "theme = %.60s: not a theme name", value);
	} else if (!strcmp(name, "delay")) {
		if (!(rc->have_delay = !util_parse_seconds(value, &rc->interval_ns)))
			return set_error(p, "delay = %.60s: not seconds from 0.01 to 86400", value);
	} else if (!strcmp(name, "view")) {
		for (int i = 0; i < OPTIONS_NR_VIEWS && !rc->have_view; i++)
			if (!strcmp(value, options_view_names[i])) {
				rc->view = i;
				rc->have_view = true;
			}
		if (!rc->have_view)
			return set_error(p, "view = %.60s: not cpus, tasks, hotspots or events",
			                 value);
	} else if (!strcmp(name, "sort")) {
		if (!(rc->have_sort = parse_word(value, rc->sort, sizeof(rc->sort))))
			return set_error(p, "sort = %.60s: not a column name", value);
	} else if (!strcmp(name, "hide_kernel") || !strcmp(name, "hide_user")) {
		bool k = name[5] == 'k';

		if (!parse_bool(value, k ? &rc->hide_kernel : &rc->hide_user))
			return set_error(p, "%s = %.60s: not true or false", name, value);
		*(k ? &rc->have_hide_kernel : &rc->have_hide_user) = true;
	} else if (!strcmp(name, "columns")) {
		if (strlen(value) >= sizeof(rc->columns))
			return set_error(p, "columns: too long (over %zu bytes)",
			                 sizeof(rc->columns) - 1);
		util_strlcpy(rc->columns, value, sizeof(rc->columns));
		rc->have_columns = true;
	} else {
		return set_error(
		    p,
		    "unknown setting '%.60s' (known: theme, delay, view, sort, columns, "
		    "hide_kernel, hide_user)",
		    name);
	}
	return 1;
}

int rcfile_parse(struct rcfile *rc, const char *text, const char *file, char *err, size_t errlen)
{
	struct parse p = {.rc = rc};
	int line;

	memset(rc, 0, sizeof(*rc));
	err[0] = '\0';
	line = ini_parse_string(text, on_entry, &p);
	if (!line)
		return 0;
	memset(rc, 0, sizeof(*rc));
	if (line < 0)
		snprintf(err, errlen, "%s: out of memory", file);
	else
		snprintf(err, errlen, "%s:%d: %s", file, line,
		         p.msg[0] ? p.msg : "not an INI line (name = value, or [view])");
	return -EINVAL;
}

int rcfile_load(struct rcfile *rc, const char *path, char *err, size_t errlen)
{
	char why[160] = "", *text = NULL;
	size_t len = 0;
	int ret;

	memset(rc, 0, sizeof(*rc));
	err[0] = '\0';
	ret = util_read_config(AT_FDCWD, path, true, RC_MAX_BYTES, &text, &len, why, sizeof(why));
	if (ret == -ENOENT)
		return ret;
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, why[0] ? why : strerror(-ret));
		return ret;
	}
	if (strlen(text) != len) {
		snprintf(err, errlen, "%s: a NUL byte: not a settings file", path);
		free(text);
		return -EINVAL;
	}
	ret = rcfile_parse(rc, text, path, err, errlen);
	free(text);
	return ret;
}

char *rcfile_render(const struct rcfile *rc, size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	fprintf(f, "# pfmtop's settings, written when the view quits (pfmtop --no-config\n"
	           "# neither reads nor writes this file; options given override it).\n"
	           "[" RC_SECTION "]\n");
	if (rc->have_theme)
		fprintf(f, "theme = %s\n", rc->theme);
	if (rc->have_delay)
		fprintf(f, "delay = %.9g\n", (double)rc->interval_ns / 1e9);
	if (rc->have_view && rc->view >= 0 && rc->view < OPTIONS_NR_VIEWS)
		fprintf(f, "view = %s\n", options_view_names[rc->view]);
	if (rc->have_sort)
		fprintf(f, "sort = %s\n", rc->sort);
	if (rc->have_columns)
		fprintf(f, "columns = %s\n", rc->columns);
	if (rc->have_hide_kernel)
		fprintf(f, "hide_kernel = %s\n", rc->hide_kernel ? "true" : "false");
	if (rc->have_hide_user)
		fprintf(f, "hide_user = %s\n", rc->hide_user ? "true" : "false");
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	*len = size;
	return buf;
}

/* A directory that is ours: not a link, owned by us, written by no one else. */
static int dir_ours(const char *path, bool create, char *why, size_t whylen)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdir(path, 0700) && errno != EEXIST) {
			snprintf(why, whylen, "cannot make %s: %s", path, strerror(errno));
			return -errno;
		}
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		int e = -errno;

		snprintf(why, whylen, "%s: %s", path,
		         e == -ELOOP || e == -ENOTDIR ? "a symbolic link or not a directory"
		                                      : strerror(-e));
		return e;
	}
	char phrase[128];
	const char *bad = fstat(fd, &st)
	                      ? strerror(errno)
	                      : util_untrusted(&st, geteuid(), false, phrase, sizeof(phrase));
	if (bad) {
		snprintf(why, whylen, "%s: %s", path, bad);
		close(fd);
		return -EPERM;
	}
	return fd;
}

int rcfile_save(const struct rcfile *rc, const char *path, char *err, size_t errlen)
{
	char dir[4096], parent[4096], tmp[64], why[4096 + 160] = "";
	const char *base, *slash = strrchr(path, '/');
	struct stat st;
	size_t len = 0;
	char *text;
	int dfd, fd, ret = 0;

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir)) {
		snprintf(err, errlen, "%s: not a path in a directory", path);
		return -EINVAL;
	}
	base = slash + 1;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	/* ~/.config may be missing too: made as the XDG spec says (0700) */
	util_strlcpy(parent, dir, sizeof(parent));
	if (strrchr(parent, '/') && strrchr(parent, '/') != parent) {
		*strrchr(parent, '/') = '\0';
		if (access(parent, F_OK) && errno == ENOENT && mkdir(parent, 0700) &&
		    errno != EEXIST) {
			snprintf(err, errlen, "cannot make %s: %s", parent, strerror(errno));
			return -errno;
		}
	}
	dfd = dir_ours(dir, true, why, sizeof(why));
	if (dfd < 0) {
		snprintf(err, errlen, "%.600s: settings not saved", why);
		return dfd;
	}
	/* the settings file itself: replaced only when it is a file of ours */
	if (!fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) &&
	    (!S_ISREG(st.st_mode) || util_untrusted(&st, geteuid(), false, why, sizeof(why)))) {
		snprintf(err, errlen, "%s: %s: settings not saved", path,
		         S_ISLNK(st.st_mode)   ? "a symbolic link"
		         : S_ISREG(st.st_mode) ? why
		                               : "not a regular file");
		close(dfd);
		return -EPERM;
	}
	text = rcfile_render(rc, &len);
	if (!text) {
		close(dfd);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	for (int i = 0; i < 100; i++) {
		snprintf(tmp, sizeof(tmp), ".%s.%d.%d", RCFILE_NAME, (int)getpid(), i);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		ret = -errno;
	for (size_t off = 0; !ret && off < len;) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ret = n < 0 ? -errno : -EIO;
		else
			off += (size_t)n;
	}
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(dfd, tmp, dfd, base))
		ret = -errno;
	if (ret && fd >= 0)
		unlinkat(dfd, tmp, 0);
	if (ret)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-ret));
	free(text);
	close(dfd);
	return ret;
}

void rcfile_apply(const struct rcfile *rc, struct options *o)
{
	if (rc->have_theme && !o->theme)
		o->theme = rc->theme;
	if (rc->have_delay && !o->delay_given)
		o->session.interval_ns = rc->interval_ns;
	if (rc->have_view && o->view < 0)
		o->view = rc->view;
	if (rc->have_sort && !o->sort_given)
		util_strlcpy(o->session.sort, rc->sort, sizeof(o->session.sort));
	/* -K and -U only ever hide */
	if (rc->have_hide_kernel && rc->hide_kernel)
		o->session.profile.hide_kernel = true;
	if (rc->have_hide_user && rc->hide_user)
		o->session.profile.hide_user = true;
}
