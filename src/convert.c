/* convert: a JSON Lines recording written again as text, JSON or CSV. */
#include "convert.h"

#include "model_json.h"
#include "untrusted.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* No snapshot line is near this: a longer one is not pfmtop's. */
#define LINE_MAX_BYTES (64u << 20)

/* The recording as a stream: opened without waiting on a FIFO that has no
 * writer yet, never a directory. NULL with a message. */
static FILE *open_recording(const char *path)
{
	struct stat st;
	int fd;
	FILE *f;

	if (!strcmp(path, "-"))
		return stdin;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		untrusted_complain("--convert %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		untrusted_complain("--convert %s: %s\n", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		untrusted_complain("--convert %s: a directory: name a recording\n", path);
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		untrusted_complain("--convert %s: %s\n", path, strerror(errno));
		close(fd);
	}
	return f;
}

/* The next line of f into *buf (grown as needed, never past LINE_MAX_BYTES:
 * what a hostile file holds is not all read into memory). Its length with
 * the newline; 0 at the end; -EFBIG for a longer line. */
static ssize_t read_line(FILE *f, char **buf, size_t *cap)
{
	size_t len = 0;
	int c;

	do {
		if (len + 1 >= *cap) {
			size_t ncap = *cap ? *cap * 2 : 65536;
			char *nb;

			if (len >= LINE_MAX_BYTES)
				return -EFBIG;
			nb = realloc(*buf, ncap);
			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*cap = ncap;
		}
		c = getc_unlocked(f);
		if (c != EOF)
			(*buf)[len++] = (char)c;
	} while (c != EOF && c != '\n');
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

/* One line: a snapshot written to out. 0, 1 (stop: said why), or -EPIPE
 * (no one reads any more: stop quietly). */
static int convert_line(const char *path, long lineno, const char *line, size_t len,
                        enum snapshot_format fmt, struct output *out)
{
	struct model m;
	char err[256], *buf;
	size_t n = 0;
	int ret;

	if (model_from_json(&m, line, len, err, sizeof(err))) {
		untrusted_complain("%s:%ld: %s\n", path, lineno, err);
		return 1;
	}
	buf = snapshot_render(&m, fmt, out->size == 0, &n);
	ret = buf ? output_write(out, buf, n) : -errno;
	free(buf);
	model_fini(&m);
	if (ret == -EPIPE)
		return ret;
	if (ret) {
		untrusted_complain("cannot write %s: %s\n", out->name, strerror(-ret));
		return 1;
	}
	return 0;
}

int convert_run(const char *path, enum snapshot_format fmt, struct output *out)
{
	FILE *f = open_recording(path);
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0, snapshots = 0;
	ssize_t n;
	int status = 0;
	bool gone = false; /* out's reader went away */

	if (!f)
		return 2;
	while (!status && !gone && (n = read_line(f, &line, &cap)) != 0) {
		lineno++;
		if (n < 0) {
			untrusted_complain("%s:%ld: %s\n", path, lineno,
			                   n == -EFBIG ? "a line longer than any snapshot"
			                               : strerror((int)-n));
			status = 1;
		} else if (memchr(line, '\0', (size_t)n - (line[n - 1] == '\n'))) {
			untrusted_complain("%s:%ld: a NUL byte: not a JSON snapshot\n", path,
			                   lineno);
			status = 1;
		} else if (line[n - 1] != '\n') {
			untrusted_complain("%s:%ld: the last line is cut short (%zd bytes: the "
			                   "recording stopped while writing it); left out\n",
			                   path, lineno, n);
		} else if (n > 1) {
			int ret = convert_line(path, lineno, line, (size_t)n, fmt, out);

			gone = ret == -EPIPE;
			status = gone ? 0 : ret;
			snapshots += !ret;
		}
	}
	if (!status && ferror(f)) {
		untrusted_complain("--convert %s: %s\n", path, strerror(errno));
		status = 1;
	} else if (!status && !gone && !snapshots) {
		untrusted_complain("--convert %s: no snapshot in it (record one with -b --format "
		                   "json -o FILE)\n",
		                   path);
		status = 1;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return status;
}
