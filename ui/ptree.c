/* ptree: rows in tree order by parent id, with ASCII tree glyphs; missing parents and cycles make
 * roots. */
#include "ptree.h"

#include <stdlib.h>
#include <string.h>

struct key {
	int id, i;
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->id != y->id)
		return (x->id > y->id) - (x->id < y->id);
	return (x->i > y->i) - (x->i < y->i);
}

static bool is_folded(int id, const int *folded, int nr)
{
	for (int k = 0; k < nr; k++)
		if (folded[k] == id)
			return true;
	return false;
}

/* Row x's glyphs (under tree parent p, -1 for a root) and what its
 * children's glyphs continue from. */
static void glyphs(int x, int p, bool fold, bool last, char (*cont)[PTREE_PFX],
                   char (*pfx)[PTREE_PFX])
{
	size_t l;

	if (p < 0) {
		cont[x][0] = '\0';
		if (pfx)
			strcpy(pfx[x], fold ? "+ " : "");
		return;
	}
	l = strlen(cont[p]);
	if (pfx) {
		memcpy(pfx[x], cont[p], l);
		memcpy(pfx[x] + l, last ? (fold ? "`+ " : "`- ") : (fold ? "|+ " : "|- "), 4);
	}
	memcpy(cont[x], cont[p], l + 1);
	/* deeper than the glyphs hold: they stay at that depth */
	if (l + 7 < PTREE_PFX)
		memcpy(cont[x] + l, last ? "   " : "|  ", 4);
}

int ptree_order(const int *id, const int *parent, int n, const int *folded, int nr_folded,
                int *order, char (*pfx)[PTREE_PFX], int *kids)
{
	struct key *keys = calloc((size_t)n + 1, sizeof(*keys));
	int *par = calloc((size_t)n + 1, sizeof(int)), *start = calloc((size_t)n + 2, sizeof(int));
	int *child = calloc((size_t)n + 1, sizeof(int)),
	    *stack = calloc((size_t)n + 1, sizeof(int));
	int *tp = calloc((size_t)n + 1, sizeof(int));
	bool *seen = calloc((size_t)n + 1, sizeof(bool)),
	     *last = calloc((size_t)n + 1, sizeof(bool));
	char(*cont)[PTREE_PFX] = calloc((size_t)n + 1, sizeof(*cont));
	int m = 0, ret = -1;

	if (!keys || !par || !start || !child || !stack || !tp || !seen || !last || !cont) {
		for (int i = 0; i < n; i++)
			order[i] = i;
		goto out;
	}
	for (int i = 0; i < n; i++)
		keys[i] = (struct key){id[i], i};
	qsort(keys, (size_t)n, sizeof(*keys), cmp_key);
	/* each row's parent row: the first row with that id */
	for (int i = 0; i < n; i++) {
		struct key k = {parent[i], -1}, *f;
		int lo = 0, hi = n;
		while (lo < hi) { /* the first key with id >= parent[i] */
			int mid = (lo + hi) / 2;
			if (keys[mid].id < parent[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		f = lo < n && keys[lo].id == k.id ? &keys[lo] : NULL;
		par[i] = f && f->i != i && parent[i] != id[i] ? f->i : -1;
	}
	/* children of each row, in the rows' order (counting sort) */
	for (int i = 0; i < n; i++)
		if (par[i] >= 0)
			start[par[i] + 1]++;
	for (int i = 0; i < n; i++)
		start[i + 1] += start[i];
	{
		int *fill = tp; /* borrowed: reset below */
		memcpy(fill, start, (size_t)n * sizeof(int));
		for (int i = 0; i < n; i++)
			if (par[i] >= 0)
				child[fill[par[i]]++] = i;
	}
	for (int i = 0; i < n; i++) {
		tp[i] = -1;
		if (kids)
			kids[i] = start[i + 1] - start[i];
		if (start[i + 1] > start[i])
			last[child[start[i + 1] - 1]] = true;
	}
	/* roots first (rows without a parent among the rows), then what a
	 * cycle left unreached */
	for (int pass = 0; pass < 2; pass++)
		for (int r = 0; r < n; r++) {
			int sp = 0;
			if (seen[r] || (pass == 0 && par[r] >= 0))
				continue;
			tp[r] = -1;
			stack[sp++] = r;
			while (sp) {
				int x = stack[--sp], p;
				bool hide = x < 0, fold;
				if (hide)
					x = ~x; /* under a folded row: not shown */
				if (seen[x])
					continue;
				seen[x] = true;
				p = tp[x];
				fold = hide || (start[x + 1] > start[x] &&
				                is_folded(id[x], folded, nr_folded));
				if (!hide) {
					order[m++] = x;
					glyphs(x, p, fold, last[x], cont, pfx);
				}
				for (int c = start[x + 1] - 1; c >= start[x]; c--)
					if (!seen[child[c]]) {
						tp[child[c]] = x;
						stack[sp++] = fold ? ~child[c] : child[c];
					}
			}
		}
	ret = m;
out:
	free(keys);
	free(par);
	free(start);
	free(child);
	free(stack);
	free(tp);
	free(seen);
	free(last);
	free(cont);
	return ret;
}
