/* view_ptree: F5, the Tasks view as a tree by parent process, folded with + and -. */
#include "view_priv.h"

#include "ptree.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A task row's id in the tree, and its parent's: a thread (-H) other than
 * the main one hangs under its process's main thread. */
static int row_id(const struct model *m, int r)
{
	return view_thread_rows(m) ? m->tasks[r].tid : m->tasks[r].pid;
}

static int row_parent(const struct model *m, int r)
{
	const struct model_row *t = &m->tasks[r];

	if (view_thread_rows(m) && t->tid != t->pid)
		return t->pid;
	return t->ppid;
}

/* v->idx[0..nr_idx) (task rows, sorted) in tree order. */
void view_ptree_rows(struct view *v)
{
	const struct model *m = v->m;
	int n = v->nr_idx, *id, *par, *order;
	char(*pfx)[PTREE_PFX];

	v->ptree_ready = false;
	if (n < 1)
		return;
	if (m->nr_tasks > v->cap_pfx) {
		void *p = realloc(v->ptree_pfx, (size_t)m->nr_tasks * sizeof(*v->ptree_pfx));
		if (!p)
			return;
		v->ptree_pfx = p;
		v->cap_pfx = m->nr_tasks;
	}
	id = malloc((size_t)n * sizeof(int));
	par = malloc((size_t)n * sizeof(int));
	order = malloc((size_t)n * sizeof(int));
	pfx = malloc((size_t)n * sizeof(*pfx));
	if (id && par && order && pfx) {
		for (int i = 0; i < n; i++) {
			id[i] = row_id(m, v->idx[i]);
			par[i] = row_parent(m, v->idx[i]);
		}
		int nf = v->nr_folded, folded[64];
		for (int k = 0; k < nf; k++)
			folded[k] = v->folded[k];
		int k = ptree_order(id, par, n, folded, nf, order, pfx, NULL);
		if (k >= 0) {
			/* order holds positions in idx: the rows they name, in order */
			for (int i = 0; i < n; i++)
				util_strlcpy(v->ptree_pfx[v->idx[i]], pfx[i],
				             sizeof(v->ptree_pfx[0]));
			for (int i = 0; i < k; i++)
				id[i] = v->idx[order[i]];
			memcpy(v->idx, id, (size_t)k * sizeof(int));
			v->nr_idx = k;
			v->ptree_ready = true;
		}
	}
	free(id);
	free(par);
	free(order);
	free(pfx);
}

const char *view_ptree_prefix(const struct view *v, int r)
{
	if (!v->ptree_ready || view_table_kind(v) != VIEW_TASKS || r < 0 || r >= v->cap_pfx)
		return "";
	return v->ptree_pfx[r];
}

unsigned view_ptree_toggle(struct view *v)
{
	v->set.tree = !v->set.tree;
	if (v->set.tree && view_table_kind(v) != VIEW_TASKS) {
		v->kind = VIEW_TASKS;
		v->filter[0] = '\0';
	}
	snprintf(v->status, sizeof(v->status), "%s",
	         v->set.tree ? "tasks as a tree by parent (- folds, + unfolds, F5 a list)"
	                     : "tasks as a list");
	return VIEW_REDRAW;
}

/* + and - on a task in the tree: show or hide what it started. */
unsigned view_ptree_fold(struct view *v, int ch)
{
	int s = v->sel[v->kind], r, id, k;
	bool fold = ch == '-';

	if (s < 0 || s >= v->nr_idx || (r = v->idx[s]) < 0 || !v->m)
		return VIEW_REDRAW;
	id = row_id(v->m, r);
	for (k = 0; k < v->nr_folded && v->folded[k] != id; k++)
		;
	if (fold && k == v->nr_folded && v->nr_folded < (int)ARRAY_SIZE(v->folded))
		v->folded[v->nr_folded++] = id;
	else if (!fold && k < v->nr_folded)
		v->folded[k] = v->folded[--v->nr_folded];
	view_remember_selection(v);
	return VIEW_REDRAW;
}
