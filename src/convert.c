/* convert: a JSON Lines recording written again as text, JSON or CSV. */
#include "convert.h"

#include "model_json.h"
#include "timeline.h"
#include "untrusted.h"
#include "util.h"

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

/* What a file that is not a regular one is, for a message. */
static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode)    ? "a directory"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISSOCK(mode) ? "a socket"
	       : S_ISCHR(mode)  ? "a character device"
	       : S_ISBLK(mode)  ? "a block device"
	                        : "not a file";
}

int convert_open(const char *flag, const char *path)
{
	char shown[UTIL_PATH_SHOWN + 1];
	struct stat st;
	/* O_NONBLOCK: a FIFO or a terminal named here is refused below, never
	 * waited on first */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	util_path_elided(shown, sizeof(shown), path);
	if (fd < 0) {
		untrusted_complain("%s %s: %s\n", flag, shown, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		untrusted_complain("%s %s: %s\n", flag, shown, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		untrusted_complain("%s %s: not a regular file (%s); give a recording file\n", flag,
		                   shown, file_kind(st.st_mode));
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		untrusted_complain("%s %s: %s\n", flag, shown, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* The recording as a stream ("-": standard input). NULL with a message. */
static FILE *open_recording(const char *flag, const char *path)
{
	int fd;
	FILE *f;

	if (!strcmp(path, "-"))
		return stdin;
	fd = convert_open(flag, path);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f) {
		untrusted_complain("%s: %s\n", path, strerror(errno));
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

/* A snapshot written to out. 0, 1 (stop: said why), or -EPIPE (no one
 * reads any more: stop quietly). */
static int write_model(const struct model *m, enum snapshot_format fmt,
                       const struct convert_cut *cut, struct output *out)
{
	struct model shown = model_cut_hot(m, cut->hot_rows);
	size_t n = 0;

	shown.top_n = cut->top_n;
	char *buf = snapshot_render_run(&shown, fmt, &out->text, out->size == 0, &n);
	int ret = buf ? output_write(out, buf, n) : -errno;

	free(buf);
	if (ret == -EPIPE)
		return ret;
	if (ret) {
		untrusted_complain("cannot write %s: %s\n", out->name, strerror(-ret));
		return 1;
	}
	return 0;
}

/* One line: a snapshot written to out (see write_model()). */
static int convert_line(const char *path, long lineno, const char *line, size_t len,
                        enum snapshot_format fmt, const struct convert_cut *cut, struct output *out)
{
	struct model m;
	char err[256];
	int ret;

	if (model_from_json(&m, line, len, err, sizeof(err))) {
		untrusted_complain("%s:%ld: %s\n", path, lineno, err);
		return 1;
	}
	ret = write_model(&m, fmt, cut, out);
	model_fini(&m);
	return ret;
}

/* What a recording lost, in one line each: damaged frames, a torn end. */
void convert_losses(const char *path, const struct pfr_reader *r)
{
	if (r->bad_bytes)
		untrusted_complain("%s: %llu bytes of damaged frames left out\n", path,
		                   (unsigned long long)r->bad_bytes);
	if (r->torn)
		untrusted_complain("%s: the last frame is cut short (%llu bytes: the recording "
		                   "stopped while writing it); left out\n",
		                   path, (unsigned long long)r->torn);
}

/* A recording (--record): every frame written to out. */
static int convert_frames(const char *path, int fd, enum snapshot_format fmt,
                          const struct convert_cut *cut, struct output *out)
{
	struct timeline t;
	char err[320];
	int status = 0;
	long written = 0;

	if (timeline_open_file(&t, fd, err, sizeof(err))) {
		untrusted_complain("%s: %s\n", path, err);
		return 1;
	}
	convert_losses(path, &t.r);
	for (long i = 0; i < timeline_len(&t) && !status; i++) {
		const struct model *m = timeline_show(&t, i, err, sizeof(err));

		if (!m) {
			untrusted_complain("%s: frame %ld: %s; left out\n", path, i + 1, err);
			continue;
		}
		status = write_model(m, fmt, cut, out);
		written += !status;
	}
	if (!status && !timeline_len(&t)) {
		untrusted_complain("%s: no snapshot in it\n", path);
		status = 1;
	} else if (!status && !written) {
		untrusted_complain("%s: none of its %ld frames could be read: nothing written\n",
		                   path, timeline_len(&t));
		status = 1;
	}
	timeline_close(&t);
	return status == -EPIPE ? 0 : status;
}

int convert_load(const char *path, int fd, struct timeline *t)
{
	FILE *f;
	char *line = NULL, err[256];
	size_t cap = 0;
	long lineno = 0;
	ssize_t n;
	int status = 0;

	if (timeline_open_history(t, UINT64_MAX))
		return 1;
	fd = dup(fd);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		untrusted_complain("%s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	while (!status && (n = read_line(f, &line, &cap)) > 0) {
		struct model m;

		lineno++;
		if (line[n - 1] != '\n') {
			untrusted_complain("%s:%ld: the last line is cut short; left out\n", path,
			                   lineno);
		} else if (n > 1 && model_from_json(&m, line, (size_t)n, err, sizeof(err))) {
			untrusted_complain("%s:%ld: %s\n", path, lineno, err);
			status = 1;
		} else if (n > 1) {
			status = timeline_add(t, &m) ? 1 : 0;
			model_fini(&m);
		}
	}
	if (n < 0) {
		untrusted_complain("%s:%ld: %s\n", path, lineno + 1,
		                   n == -EFBIG ? "a line longer than any snapshot"
		                               : strerror((int)-n));
		status = 1;
	}
	free(line);
	fclose(f);
	return status;
}

int convert_run(const char *flag, const char *path, enum snapshot_format fmt,
                const struct convert_cut *cut, struct output *out)
{
	FILE *f = open_recording(flag, path);
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0, snapshots = 0;
	ssize_t n;
	int status = 0;
	bool gone = false; /* out's reader went away */

	if (!f)
		return 2;
	if (pfr_is_recording(fileno(f)) == 1) {
		status = convert_frames(path, fileno(f), fmt, cut, out);
		if (f != stdin)
			fclose(f);
		return status;
	}
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
			int ret = convert_line(path, lineno, line, (size_t)n, fmt, cut, out);

			gone = ret == -EPIPE;
			status = gone ? 0 : ret;
			snapshots += !ret;
		}
	}
	if (!status && ferror(f)) {
		untrusted_complain("%s %s: %s\n", flag, path, strerror(errno));
		status = 1;
	} else if (!status && !gone && !snapshots) {
		untrusted_complain("%s %s: no snapshot in it (record one with -b --format "
		                   "json -o FILE)\n",
		                   flag, path);
		status = 1;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return status;
}
