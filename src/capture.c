/* capture: a pipe read into a bounded buffer that keeps the end. */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void capture_init(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->rfd = c->wfd = -1;
}

int capture_open(struct capture *c)
{
	int p[2];

	capture_init(c);
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	if (fcntl(p[0], F_SETFL, O_NONBLOCK) < 0) {
		int e = -errno;

		close(p[0]);
		close(p[1]);
		return e;
	}
	c->rfd = p[0];
	c->wfd = p[1];
	return 0;
}

void capture_close_writer(struct capture *c)
{
	if (c->wfd >= 0)
		close(c->wfd);
	c->wfd = -1;
}

/* The last whole line of what was just read, for the status line. */
static void note_last_line(struct capture *c)
{
	size_t end = c->len, start;

	while (end && c->buf[end - 1] == '\n')
		end--;
	for (start = end; start && c->buf[start - 1] != '\n'; start--)
		;
	if (end > start)
		snprintf(c->last, sizeof(c->last), "%.*s", (int)(end - start), c->buf + start);
}

/* Keep n more bytes, dropping the oldest past CAPTURE_MAX. */
static void keep(struct capture *c, const char *p, size_t n)
{
	if (n >= CAPTURE_MAX) {
		c->dropped += c->len + n - CAPTURE_MAX;
		p += n - CAPTURE_MAX;
		n = CAPTURE_MAX;
		c->len = 0;
	} else if (c->len + n > CAPTURE_MAX) {
		size_t drop = c->len + n - CAPTURE_MAX;

		memmove(c->buf, c->buf + drop, c->len - drop);
		c->len -= drop;
		c->dropped += drop;
	}
	memcpy(c->buf + c->len, p, n);
	c->len += n;
}

bool capture_read(struct capture *c)
{
	char chunk[16384];
	ssize_t n;

	if (c->rfd < 0)
		return true;
	if (!c->buf && !(c->buf = malloc(CAPTURE_MAX)))
		return false; /* no room yet: the pipe keeps it */
	while ((n = read(c->rfd, chunk, sizeof(chunk))) > 0)
		keep(c, chunk, (size_t)n);
	note_last_line(c);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	close(c->rfd);
	c->rfd = -1;
	return true;
}

void capture_flush(struct capture *c, int fd)
{
	char note[128];

	capture_read(c);
	if (!c->len)
		return;
	if (c->dropped) {
		int n = snprintf(note, sizeof(note),
		                 "pfmtop: the command's first %llu bytes of output are not kept; "
		                 "its last %zu follow\n",
		                 (unsigned long long)c->dropped, c->len);
		if (write(STDERR_FILENO, note, (size_t)n) < 0)
			return;
	}
	for (size_t off = 0; off < c->len;) {
		ssize_t n = write(fd, c->buf + off, c->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		off += (size_t)n;
	}
	c->len = 0;
}

void capture_fini(struct capture *c)
{
	capture_close_writer(c);
	if (c->rfd >= 0)
		close(c->rfd);
	free(c->buf);
	capture_init(c);
}
