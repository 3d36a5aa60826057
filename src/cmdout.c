/* cmdout: where a command's output goes: a file while the viewer owns the terminal, or
 * standard error while batch snapshots are on standard output. */
#include "cmdout.h"

#include "launch.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TAIL_READ 4096 /* bytes of the end read for the last line */

void cmdout_init(struct cmdout *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* $XDG_RUNTIME_DIR when it is a directory of ours that no one else may
 * write, else /tmp (where mkstemp's O_EXCL keeps the name ours). */
static const char *default_dir(void)
{
	const char *d = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	char why[96];

	if (d && d[0] == '/' && !stat(d, &st) && S_ISDIR(st.st_mode) &&
	    !util_untrusted(&st, geteuid(), false, why, sizeof(why)) && !access(d, W_OK))
		return d;
	return "/tmp";
}

static int make_default(struct cmdout *c, char *err, size_t errlen)
{
	const char *dir = default_dir();

	if (snprintf(c->path, sizeof(c->path), "%s/pfmtop-command-XXXXXX.log", dir) >=
	    (int)sizeof(c->path)) {
		snprintf(err, errlen, "$XDG_RUNTIME_DIR is too long a path; set --command-output");
		return -ENAMETOOLONG;
	}
	c->fd = mkostemps(c->path, 4, O_CLOEXEC | O_APPEND); /* mode 0600, O_EXCL */
	if (c->fd < 0) {
		int e = -errno;

		snprintf(err, errlen,
		         "cannot make a file for the command's output in %s: %s; name one with "
		         "--command-output FILE",
		         dir, strerror(-e));
		c->path[0] = '\0';
		return e;
	}
	c->made = c->regular = true;
	return 0;
}

int cmdout_open(struct cmdout *c, const char *path, char *err, size_t errlen)
{
	char shown[UTIL_PATH_SHOWN + 1];
	struct stat st;
	int e;

	cmdout_init(c);
	if (path && !strcmp(path, "-"))
		return 0;
	if (!path)
		return make_default(c, err, errlen);
	util_strlcpy(c->path, path, sizeof(c->path));
	c->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_APPEND,
	             0600);
	if (c->fd >= 0) {
		c->made = c->regular = true;
		return 0;
	}
	e = -errno;
	if (e == -EEXIST && !stat(path, &st) && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		/* a device or a FIFO is written as it is (/dev/null, a terminal);
		 * a FIFO nobody reads is refused, not waited on */
		c->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
		if (c->fd >= 0) {
			fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) & ~O_NONBLOCK);
			return 0;
		}
		e = -errno;
	}
	if (e == -EEXIST)
		snprintf(
		    err, errlen,
		    "--command-output %s: it exists, and pfmtop writes a command's output only "
		    "into a file it makes: name a new file (or remove this one)",
		    util_path_elided(shown, sizeof(shown), path));
	else
		snprintf(err, errlen, "--command-output %s: %s",
		         util_path_elided(shown, sizeof(shown), path), strerror(-e));
	cmdout_init(c);
	return e;
}

int cmdout_choose(struct cmdout *c, const char *path, bool batch, const char *snapshots, bool text,
                  int *out, char *err, size_t errlen)
{
	cmdout_init(c);
	*out = -1;
	if (!batch && path && !strcmp(path, "-")) {
		snprintf(err, errlen,
		         "--command-output -: the view owns the terminal; add -b to keep "
		         "the command's output on it");
		return -EINVAL;
	}
	if (path || !batch) {
		int e = cmdout_open(c, path, err, errlen);

		*out = c->fd;
		return e;
	}
	/* Batch without a file: as perf stat keeps its report apart from
	 * the command's output, the snapshots on standard output are kept
	 * apart from it; text on a terminal is for a person, as it is. */
	if ((snapshots && strcmp(snapshots, "-")) || (text && isatty(STDOUT_FILENO)))
		return 0;
	c->to_stderr = true;
	*out = LAUNCH_OUT_STDERR;
	return 0;
}

void cmdout_notice(const struct cmdout *c)
{
	if (c->to_stderr)
		fputs(
		    "pfmtop: the command's standard output goes to standard error, apart from "
		    "the snapshots on standard output (--command-output FILE puts it in a file)\n",
		    stderr);
}

off_t cmdout_size(const struct cmdout *c)
{
	struct stat st;

	if (c->fd < 0 || !c->regular || fstat(c->fd, &st))
		return -1;
	return st.st_size;
}

bool cmdout_poll(struct cmdout *c)
{
	char buf[TAIL_READ + 1], *end, *start;
	off_t size = cmdout_size(c), from;
	ssize_t n;

	if (size < 0 || size == c->seen)
		return false;
	c->seen = size;
	from = size > TAIL_READ ? size - TAIL_READ : 0;
	n = pread(c->fd, buf, TAIL_READ, from);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* the last line that holds anything; a progress bar's \r ends one too */
	end = buf + n;
	while (end > buf && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	*end = '\0';
	for (start = end; start > buf && start[-1] != '\n' && start[-1] != '\r'; start--)
		;
	if (start == end || !strcmp(c->last, start))
		return false;
	util_strlcpy(c->last, start, sizeof(c->last));
	return true;
}

void cmdout_close(struct cmdout *c)
{
	off_t size = cmdout_size(c);

	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (c->made && size == 0 && !unlink(c->path))
		c->path[0] = '\0';
}
