/* output: where batch snapshots go (-o FILE or standard output), a whole snapshot per write. */
#include "output.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* write() all of buf, through short writes and EINTR; 0 or -errno. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int refuse(const struct output *o, char *err, size_t errlen, int ret, const char *path,
                  const char *why)
{
	char shown[UTIL_PATH_SHOWN + 1];

	snprintf(err, errlen, "%s %s: %s", o->flag, util_path_elided(shown, sizeof(shown), path),
	         why);
	return ret;
}

/* A regular file that holds something, as mode says: kept (its end is
 * where the snapshots go), emptied, or refused. */
static int take_existing(struct output *o, off_t size, enum output_mode mode, char *err,
                         size_t errlen)
{
	char why[160];

	if (mode == OUTPUT_APPEND) {
		o->size = size;
		return 0;
	}
	if (mode == OUTPUT_REPLACE)
		return ftruncate(o->fd, 0) ? -errno : 0;
	snprintf(why, sizeof(why),
	         "exists and holds %lld bytes: --append adds to it, --force replaces it",
	         (long long)size);
	return refuse(o, err, errlen, -EEXIST, o->name, why);
}

/* Whether the directory that holds path lets another user replace what is in
 * it: writable by group or others, and not sticky (in a sticky directory only
 * an entry's owner may rename or remove it). */
static bool dir_open_to_others(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!slash)
		util_strlcpy(dir, ".", sizeof(dir));
	else if (slash == path)
		util_strlcpy(dir, "/", sizeof(dir));
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st))
		return true;
	return (st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX);
}

/*
 * What -o and --record may not write through (another user's link or file):
 * NULL when path may be opened, else why not. A symbolic link is followed
 * only when it is ours (or root's) and no other user can replace it; an
 * existing file must be ours, and not another name (a hard link) for a file
 * elsewhere in a directory others can write.
 */
static const char *foreign_target(const char *path, const struct stat *st, char *why, size_t len)
{
	struct stat l;
	uid_t me = geteuid();

	if (lstat(path, &l)) {
		snprintf(why, len, "%s", strerror(errno));
		return why;
	}
	if (S_ISLNK(l.st_mode) && ((l.st_uid != me && l.st_uid != 0) || dir_open_to_others(path))) {
		snprintf(why, len,
		         "a symbolic link %s: pfmtop writes through no link another user "
		         "made or can replace; remove it or name the file itself",
		         l.st_uid != me && l.st_uid != 0 ? "of another user"
		                                         : "in a shared directory");
		return why;
	}
	if (!S_ISLNK(l.st_mode) && (l.st_dev != st->st_dev || l.st_ino != st->st_ino)) {
		snprintf(why, len, "changed while it was opened: try again");
		return why;
	}
	if (!S_ISREG(st->st_mode))
		return NULL;
	if (st->st_uid != me) {
		snprintf(why, len,
		         "owned by another user (uid %u): pfmtop writes no file it does not own; "
		         "remove it or choose another name",
		         (unsigned)st->st_uid);
		return why;
	}
	if (st->st_nlink > 1 && dir_open_to_others(path)) {
		snprintf(
		    why, len,
		    "has %lu hard links in a shared directory: remove it or choose another name",
		    (unsigned long)st->st_nlink);
		return why;
	}
	return NULL;
}

int output_open(struct output *o, const char *path, enum output_mode mode, char *err, size_t errlen)
{
	return output_open_as(o, "-o", path, mode, err, errlen);
}

int output_open_as(struct output *o, const char *flag, const char *path, enum output_mode mode,
                   char *err, size_t errlen)
{
	const int flags = O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC | O_NONBLOCK;
	struct stat st;
	char why[200];
	int fd;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->flag = flag;
	if (!path || !strcmp(path, "-")) {
		o->fd = STDOUT_FILENO;
		util_strlcpy(o->name, "standard output", sizeof(o->name));
		return 0;
	}
	util_strlcpy(o->name, path, sizeof(o->name));
	/* O_NONBLOCK: a FIFO nobody reads is refused (ENXIO), not waited for. */
	fd = open(path, flags);
	if (fd < 0 && errno == ENOENT) {
		if (!lstat(path, &st))
			return refuse(o, err, errlen, -ENOENT, path,
			              "a symbolic link to nothing: pfmtop makes no file through a "
			              "link; remove it or name the file it should make");
		fd = open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
	}
	if (fd < 0) {
		int e = errno;

		switch (e) {
		case EISDIR:
			return refuse(o, err, errlen, -e, path, "a directory: name a file in it");
		case ENXIO:
			return refuse(o, err, errlen, -e, path,
			              "a FIFO that no one reads: start its reader first");
		case ENOENT:
			return refuse(o, err, errlen, -e, path,
			              "its directory does not exist: create it first");
		case EACCES:
		case EPERM:
		case EROFS:
			return refuse(o, err, errlen, -e, path,
			              e == EROFS
			                  ? "on a read-only file system"
			                  : "permission denied: choose a file you may write");
		default:
			return refuse(o, err, errlen, -e, path, strerror(e));
		}
	}
	if (fstat(fd, &st) || fcntl(fd, F_SETFL, (fcntl(fd, F_GETFL) & ~O_NONBLOCK)) < 0) {
		int e = -errno;

		close(fd);
		return refuse(o, err, errlen, e, path, strerror(-e));
	}
	if (foreign_target(path, &st, why, sizeof(why))) {
		close(fd);
		return refuse(o, err, errlen, -EPERM, path, why);
	}
	o->fd = fd;
	o->own = true;
	o->regular = S_ISREG(st.st_mode);
	if (o->regular && st.st_size > 0) {
		int e = take_existing(o, st.st_size, mode, err, errlen);

		if (e) {
			output_close(o);
			return e == -EEXIST ? e : refuse(o, err, errlen, e, path, strerror(-e));
		}
	}
	return 0;
}

int output_write(struct output *o, const char *buf, size_t len)
{
	int ret;

	if (o->fd < 0)
		return -EPIPE;
	ret = write_all(o->fd, buf, len);
	if (!ret) {
		o->size += (off_t)len;
		return 0;
	}
	if (ret == -EPIPE) {
		output_close(o);
		return ret;
	}
	/* Never half a snapshot: what was written of this one goes. */
	if (o->regular && ftruncate(o->fd, o->size))
		ret = ret ? ret : -errno;
	return ret;
}

int output_close(struct output *o)
{
	int ret = 0;

	if (o->fd >= 0 && o->own && close(o->fd))
		ret = -errno;
	o->fd = -1;
	return ret;
}

/* path's directory ("." for a bare name) and base name. */
static int split_path(const char *path, char *dir, size_t dirlen, const char **base)
{
	const char *slash = strrchr(path, '/');

	*base = slash ? slash + 1 : path;
	if (!**base)
		return -EISDIR;
	if (!slash)
		return snprintf(dir, dirlen, ".") >= (int)dirlen ? -ENAMETOOLONG : 0;
	if ((size_t)(slash - path) + 2 > dirlen)
		return -ENAMETOOLONG;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash == path ? 1 : slash - path] = '\0';
	if (slash == path)
		dir[0] = '/';
	return 0;
}

int output_replace_check(const char *path, bool force, char *err, size_t errlen)
{
	char dir[PATH_MAX], head[16] = "", shown[UTIL_PATH_SHOWN + 1], dshown[UTIL_PATH_SHOWN + 1];
	const char *base;
	struct stat st;
	int fd;

	util_path_elided(shown, sizeof(shown), path);
	if (split_path(path, dir, sizeof(dir), &base)) {
		snprintf(err, errlen, "-o %s: give a file name", shown);
		return -EINVAL;
	}
	if (access(dir, W_OK | X_OK)) {
		snprintf(err, errlen, "-o %s: cannot write in %s: %s", shown,
		         util_path_elided(dshown, sizeof(dshown), dir), strerror(errno));
		return -errno;
	}
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "-o %s: %s", shown, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(
		    err, errlen,
		    "-o %s is not a regular file (a directory, a link or a device): it would be "
		    "replaced at every refresh; give another name",
		    shown);
		return -EEXIST;
	}
	if (force || st.st_size == 0)
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, head, sizeof(head) - 1) < 0)
			head[0] = '\0';
		close(fd);
	}
	if (strncmp(head, "# HELP pfmtop_", strlen("# HELP pfmtop_"))) {
		snprintf(err, errlen,
		         "-o %s holds something pfmtop did not write and would be replaced: add "
		         "--force, or give another name",
		         shown);
		return -EEXIST;
	}
	return 0;
}

int output_replace(const char *path, const char *buf, size_t len)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	const char *base;
	mode_t mask;
	int fd, ret = split_path(path, dir, sizeof(dir), &base);

	if (ret)
		return ret;
	if (snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, base) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	mask = umask(0);
	umask(mask);
	ret = fchmod(fd, 0666 & ~mask) ? -errno : 0;
	if (!ret)
		ret = write_all(fd, buf, len);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

int output_new_file(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666);
	int ret;

	if (fd < 0)
		return -errno;
	ret = write_all(fd, buf, len);
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		unlink(path);
	return ret;
}
