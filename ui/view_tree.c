/* view_tree: an expanded hotspot row's call paths (-g) drawn as an indented tree. */
#include "view_priv.h"

#include "cells.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TREE_MAX_LINES 64
#define TREE_MAX_PATHS 32

static const char *frame_label(const struct model *m, const struct model_frame *f)
{
	const char *sym = model_frame_symbol(m, f), *mod = model_frame_module(m, f);

	return sym[0] ? sym : mod[0] ? mod : "[unknown]";
}

static bool same_frame(const struct model *m, const struct model_frame *a,
                       const struct model_frame *b)
{
	return !strcmp(model_frame_symbol(m, a), model_frame_symbol(m, b)) &&
	       !strcmp(model_frame_module(m, a), model_frame_module(m, b)) &&
	       a->kernel == b->kernel;
}

/* Lines for the paths set[0..n) (model path indices, heaviest first) that
 * share their frames before depth d: one node per distinct frame at d, in
 * order of first appearance (so heaviest first), each followed by its own
 * subtree. */
static void emit(struct view *v, const int *set, int n, int d)
{
	const struct model *m = v->m;
	bool done[TREE_MAX_PATHS] = {false};

	for (int i = 0; i < n && v->nr_tree < TREE_MAX_LINES; i++) {
		const struct model_callpath *pi = &m->paths[set[i]];
		int sub[TREE_MAX_PATHS], ns = 0;
		double share = 0;

		if (done[i] || pi->nr <= d)
			continue;
		const struct model_frame *f = &m->frames[pi->first + d];
		for (int j = i; j < n; j++) {
			const struct model_callpath *pj = &m->paths[set[j]];
			if (done[j] || pj->nr <= d || !same_frame(m, f, &m->frames[pj->first + d]))
				continue;
			done[j] = true;
			share += pj->share;
			sub[ns++] = set[j];
		}
		struct view_tree_line *l = &v->tree[v->nr_tree++];
		l->depth = d;
		l->share = share;
		util_strlcpy(l->name, frame_label(m, f), sizeof(l->name));
		emit(v, sub, ns, d + 1);
	}
}

int view_tree_build(struct view *v, int r)
{
	const struct model *m = v->m;
	int set[TREE_MAX_PATHS] = {0}, n = 0;

	v->nr_tree = 0;
	if (!v->tree) {
		v->tree = calloc(TREE_MAX_LINES, sizeof(*v->tree));
		if (!v->tree)
			return 0;
		v->cap_tree = TREE_MAX_LINES;
	}
	for (int i = 0; i < m->nr_paths && n < TREE_MAX_PATHS; i++) {
		const struct model_callpath *p = &m->paths[i];
		if (p->hot == r && p->callee == v->callees && p->first >= 0 &&
		    p->first + p->nr <= m->nr_frames)
			set[n++] = i;
	}
	/* Callees: a path of the function alone is its samples in itself. */
	double self = 0;
	bool has_self = false;
	for (int i = 0; i < n; i++)
		if (m->paths[set[i]].nr == 1 && v->callees) {
			self += m->paths[set[i]].share;
			has_self = true;
		}
	if (has_self) {
		struct view_tree_line *l = &v->tree[v->nr_tree++];
		l->depth = 1;
		l->share = self;
		util_strlcpy(l->name, "(itself: sampled in it)", sizeof(l->name));
	}
	emit(v, set, n, 1); /* frame 0 is the row's own function */
	if (!n && v->nr_tree < TREE_MAX_LINES) {
		struct view_tree_line *l = &v->tree[v->nr_tree++];
		l->depth = 1;
		l->share = -1;
		util_strlcpy(l->name,
		             m->sampling.callchain
		                 ? "no call paths for this row (chains are per process: "
		                   "not with tid or cpu keys or a CPU filter)"
		                 : "no call chains: run with -g",
		             sizeof(l->name));
	}
	return v->nr_tree;
}

void view_tree_text(const struct view *v, int k, int width, char *buf, size_t len)
{
	const struct view_tree_line *l = &v->tree[k];
	char name[160];
	int indent = 2 * l->depth, n;

	if (indent > 24)
		indent = 24;
	if (l->share < 0)
		n = snprintf(buf, len, "%*s", indent + 8, "");
	else
		n = snprintf(buf, len, "%*s%5.1f%% %s ", indent, "", l->share,
		             v->callees ? "\\_" : "<-");
	if (n < 0 || (size_t)n >= len)
		return;
	cells_elide(l->name, width - n > 5 ? width - n : 5, name, sizeof(name));
	snprintf(buf + n, len - (size_t)n, "%s", name);
}
