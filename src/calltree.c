/* calltree: children and self shares of functions over call chains, and their top call paths. */
#include "calltree.h"

#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct calltree_target {
	uint32_t func;
	uint64_t cls;
	int next;       /* the next target of the same function, -1 none */
	uint32_t stamp; /* the chain it was last counted in, + 1 */
	uint64_t children, self;
};

/* One chain's path through one target. */
struct calltree_cand {
	int target;
	bool callee;
	struct calltree_path path;
};

int calltree_begin(struct calltree *t, uint32_t nr_funcs, const uint32_t *func, const uint64_t *cls,
                   int nr)
{
	if (nr < 0)
		return -EINVAL;
	if (nr_funcs > t->cap_funcs) {
		int32_t *p = realloc(t->by_func, (size_t)nr_funcs * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->by_func = p;
		t->cap_funcs = nr_funcs;
	}
	if (nr > t->cap_targets) {
		struct calltree_target *p = realloc(t->tg, (size_t)nr * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->tg = p;
		t->cap_targets = nr;
	}
	t->nr_funcs = nr_funcs;
	t->nr_targets = nr;
	t->chain = 0;
	t->total = 0;
	t->nr_cand = 0;
	for (uint32_t i = 0; i < nr_funcs; i++)
		t->by_func[i] = -1;
	/* Pushed in reverse so that each function's list is in target order. */
	for (int i = nr - 1; i >= 0; i--) {
		t->tg[i] = (struct calltree_target){.func = func[i], .cls = cls[i], .next = -1};
		if (func[i] < nr_funcs) {
			t->tg[i].next = t->by_func[func[i]];
			t->by_func[func[i]] = i;
		}
	}
	return 0;
}

static int add_cand(struct calltree *t, int target, bool callee, const uint32_t *funcs, uint32_t nr,
                    uint32_t pos, uint64_t samples)
{
	struct calltree_cand *c;

	if (t->nr_cand == t->cap_cand) {
		size_t cap = t->cap_cand ? t->cap_cand * 2 : 256;
		struct calltree_cand *p = realloc(t->cand, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->cand = p;
		t->cap_cand = cap;
	}
	c = &t->cand[t->nr_cand++];
	memset(c, 0, sizeof(*c));
	c->target = target;
	c->callee = callee;
	c->path.samples = samples;
	/* Callers: from pos toward the root (up the array); callees: from pos
	 * down to the leaf. */
	for (uint32_t i = pos; c->path.nr < CALLTREE_DEPTH; i = callee ? i - 1 : i + 1) {
		c->path.func[c->path.nr++] = funcs[i];
		if (callee ? i == 0 : i + 1 >= nr)
			break;
	}
	return 0;
}

int calltree_add(struct calltree *t, const uint32_t *funcs, uint32_t nr, uint64_t cls,
                 uint64_t samples)
{
	int ret = 0;

	t->total += samples;
	t->chain++;
	for (uint32_t i = 0; i < nr; i++) {
		if (funcs[i] >= t->nr_funcs)
			continue;
		for (int k = t->by_func[funcs[i]]; k >= 0; k = t->tg[k].next) {
			struct calltree_target *g = &t->tg[k];

			if (g->cls != cls || g->stamp == t->chain)
				continue;
			g->stamp = t->chain; /* once per chain: its first place from the leaf */
			g->children += samples;
			if (i == 0)
				g->self += samples;
			if (add_cand(t, k, false, funcs, nr, i, samples) ||
			    add_cand(t, k, true, funcs, nr, i, samples))
				ret = -ENOMEM;
		}
	}
	return ret;
}

/* By target, direction and path, so that equal paths are neighbours. */
static int cand_cmp_path(const void *pa, const void *pb)
{
	const struct calltree_cand *a = pa, *b = pb;

	if (a->target != b->target)
		return a->target < b->target ? -1 : 1;
	if (a->callee != b->callee)
		return a->callee ? 1 : -1;
	if (a->path.nr != b->path.nr)
		return a->path.nr < b->path.nr ? -1 : 1;
	return memcmp(a->path.func, b->path.func, a->path.nr * sizeof(a->path.func[0]));
}

/* Keep p in the top list (heaviest first; ties: the first one found). */
static void offer(struct calltree_path *top, int *n, const struct calltree_path *p)
{
	int i = *n < CALLTREE_PATHS ? (*n)++ : CALLTREE_PATHS;

	while (i > 0 && top[i - 1].samples < p->samples) {
		if (i < CALLTREE_PATHS)
			top[i] = top[i - 1];
		i--;
	}
	if (i < CALLTREE_PATHS)
		top[i] = *p;
}

void calltree_finish(struct calltree *t, struct calltree_result *out)
{
	for (int k = 0; k < t->nr_targets; k++)
		out[k] =
		    (struct calltree_result){.children = t->tg[k].children, .self = t->tg[k].self};
	if (t->nr_cand > 1)
		qsort(t->cand, t->nr_cand, sizeof(*t->cand), cand_cmp_path);
	for (size_t i = 0; i < t->nr_cand;) {
		struct calltree_path sum = t->cand[i].path;
		struct calltree_result *r = &out[t->cand[i].target];
		size_t j = i + 1;

		for (; j < t->nr_cand && !cand_cmp_path(&t->cand[i], &t->cand[j]); j++)
			sum.samples += t->cand[j].path.samples;
		if (t->cand[i].callee)
			offer(r->callees, &r->nr_callees, &sum);
		else
			offer(r->callers, &r->nr_callers, &sum);
		i = j;
	}
}

void calltree_fini(struct calltree *t)
{
	free(t->tg);
	free(t->by_func);
	free(t->cand);
	memset(t, 0, sizeof(*t));
}
