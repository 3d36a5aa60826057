/* view_cmdline: the full command lines of the task rows on screen, read
 * from /proc/PID/cmdline when a row is first drawn, made safe, and kept
 * per process (PID and start time) while it stays on screen. */
#include "view_priv.h"

#include "procfs.h"
#include "untrusted.h"
#include "util.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define CMDLINES_MAX  256 /* processes remembered */
#define CMDLINE_BYTES 512 /* of a command line read (the rest is cut) */
#define READS_FRAME   64  /* files read per frame at most */

struct cmdline {
	pid_t pid;
	uint64_t start;
	uint64_t used;   /* frame last asked for */
	char text[CELL]; /* the command line, made safe */
	char shown[CELL];
};

struct view_cmdlines {
	struct procfs proc;
	int nr;
	uint64_t frame, frame_seq;
	int reads; /* this frame */
	/* e[0..nr) are in use; the rest is not cleared (each page first
	 * written is a page fault) but written as it is taken */
	struct cmdline e[CMDLINES_MAX];
};

void view_cmdlines_free(struct view_cmdlines *c)
{
	if (!c)
		return;
	procfs_close(&c->proc);
	free(c);
}

static struct cmdline *slot(struct view_cmdlines *c)
{
	struct cmdline *old = &c->e[0];

	if (c->nr < CMDLINES_MAX)
		return &c->e[c->nr++];
	for (int i = 1; i < c->nr; i++) /* the one unused the longest */
		if (c->e[i].used < old->used)
			old = &c->e[i];
	return old;
}

/* a, b and c one after the other in out (len bytes), cut to fit. */
static void join(char *out, size_t len, const char *a, const char *b, const char *c)
{
	const char *parts[] = {a, b, c};
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		for (const char *s = parts[i]; *s && n + 1 < len; s++)
			out[n++] = *s;
	out[n] = '\0';
}

/*
 * What the COMMAND cell shows of e for task t in width columns: the command
 * line; the program without its directory when the whole does not fit; the
 * task's name first when it renamed itself (its name is not the program's).
 */
static const char *shown(struct cmdline *e, const struct model_row *t, int width)
{
	const char *args = strchr(e->text, ' '), *prog = e->text;
	const char *end = args ? args : e->text + strlen(e->text);
	char name[sizeof(t->comm) * 4];

	for (const char *p = prog; p < end && *prog != '['; p++) /* the program, no directory */
		if (*p == '/')
			prog = p + 1;
	size_t plen = (size_t)(end - prog);
	untrusted_text(name, sizeof(name), t->comm);
	bool renamed =
	    e->text[0] != '[' && strncmp(prog, name, strlen(name) < plen ? strlen(name) : plen);
	join(e->shown, sizeof(e->shown), renamed ? name : "", renamed ? ": " : "", e->text);
	if (untrusted_width(e->shown) > width)
		join(e->shown, sizeof(e->shown), renamed ? name : "", renamed ? ": " : "", prog);
	return e->shown;
}

const char *view_cmdline(struct view *v, int r, int width)
{
	const struct model_row *t = &v->m->tasks[r];
	struct view_cmdlines *c = v->cmdlines;
	char raw[CMDLINE_BYTES];
	struct cmdline *e;

	/* A recording's PIDs are not this machine's; a thread row: its name. */
	if (v->cfg.replay || t->kind == MODEL_ROW_THREAD || t->pid <= 0)
		return t->comm;
	if (!c) {
		c = v->cmdlines = malloc(sizeof(*c));
		if (!c)
			return t->comm;
		memset(c, 0, offsetof(struct view_cmdlines, e));
		procfs_init(&c->proc, NULL);
	}
	if (c->frame_seq != v->m->seq) { /* a new interval: a new budget */
		c->frame_seq = v->m->seq;
		c->frame++;
		c->reads = 0;
	}
	for (int i = 0; i < c->nr; i++) {
		e = &c->e[i];
		if (e->pid == t->pid && e->start == t->start) {
			e->used = c->frame;
			return e->text[0] ? shown(e, t, width) : t->comm;
		}
	}
	if (c->reads >= READS_FRAME || t->exited)
		return t->comm;
	c->reads++;
	e = slot(c);
	e->pid = t->pid;
	e->start = t->start;
	e->used = c->frame;
	e->text[0] = '\0';
	if (procfs_cmdline(&c->proc, t->pid, raw, sizeof(raw)) == 0)
		untrusted_text(e->text, sizeof(e->text), raw);
	return e->text[0] ? shown(e, t, width) : t->comm;
}
