/* view_cmdline: the full command lines of the task rows on screen, read
 * from /proc/PID/cmdline when a row is first drawn, made safe, and kept
 * per process (PID and start time) while it stays on screen. */
#include "view_priv.h"

#include "procfs.h"
#include "untrusted.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define CMDLINES_MAX  256 /* processes remembered */
#define CMDLINE_BYTES 512 /* of a command line read (the rest is cut) */
#define READS_FRAME   64  /* files read per frame at most */

struct cmdline {
	pid_t pid;
	uint64_t start;
	uint64_t used; /* frame last asked for */
	char text[CELL];
};

struct view_cmdlines {
	struct procfs proc;
	struct cmdline e[CMDLINES_MAX];
	int nr;
	uint64_t frame, frame_seq;
	int reads; /* this frame */
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

const char *view_cmdline(struct view *v, int r)
{
	const struct model_row *t = &v->m->tasks[r];
	struct view_cmdlines *c = v->cmdlines;
	char raw[CMDLINE_BYTES];
	struct cmdline *e;

	/* A recording's PIDs are not this machine's; a thread row: its name. */
	if (v->cfg.replay || t->kind == MODEL_ROW_THREAD || t->pid <= 0)
		return t->comm;
	if (!c) {
		c = v->cmdlines = calloc(1, sizeof(*c));
		if (!c)
			return t->comm;
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
			return e->text[0] ? e->text : t->comm;
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
	return e->text[0] ? e->text : t->comm;
}
