/* capture: a command's output kept while the viewer owns the terminal, given back after. */
#ifndef PFMTOP_CAPTURE_H
#define PFMTOP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CAPTURE_MAX (256u << 10) /* bytes kept: the end of the output */

struct capture {
	int rfd, wfd; /* the pipe: pfmtop reads, the command writes (-1: closed) */
	char *buf;    /* the last CAPTURE_MAX bytes at most */
	size_t len;
	uint64_t dropped; /* bytes of the start that did not fit */
	char last[256];   /* the last whole line, for the status line */
};

/* Set c up with no pipe: every other call is then a no-op. */
void capture_init(struct capture *c);

/* The pipe (close-on-exec, the read end non-blocking); 0 or -errno. */
int capture_open(struct capture *c);

/* Once the command has its copy: pfmtop's write end is closed, so that the
 * read end sees EOF when the command (and what it started) is done. */
void capture_close_writer(struct capture *c);

/* Read what is there. true at EOF (the read end is then closed). */
bool capture_read(struct capture *c);

/* Write what was kept to fd (after what is still in the pipe), with a line
 * before it saying how much of the start was dropped, if any. */
void capture_flush(struct capture *c, int fd);

void capture_fini(struct capture *c);

#endif
