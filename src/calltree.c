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

/* A distinct path through one target, with the samples of its chains. */
struct calltree_cand {
	uint64_t group; /* target << 1 | callee */
	uint64_t hash;  /* of the path's functions */
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
	if (t->slots)
		memset(t->slots, 0, t->cap_slots * sizeof(*t->slots));
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

static int grow_slots(struct calltree *t)
{
	const uint32_t cap = t->cap_slots ? t->cap_slots * 2 : 1024;
	uint32_t *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr_cand; i++) {
		uint32_t k = (uint32_t)(t->cand[i].hash ^ t->cand[i].group) & (cap - 1);

		while (s[k])
			k = (k + 1) & (cap - 1);
		s[k] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->cap_slots = cap;
	return 0;
}

/* The path of a chain through target k at pos, added to its distinct path
 * (made when new). Callers: from pos toward the root (up the array);
 * callees: from pos down to the leaf. */
static int add_cand(struct calltree *t, int k, bool callee, const uint32_t *funcs, uint32_t nr,
                    uint32_t pos, uint64_t samples)
{
	const uint32_t len = callee ? (pos + 1 < CALLTREE_DEPTH ? pos + 1 : CALLTREE_DEPTH)
	                            : (nr - pos < CALLTREE_DEPTH ? nr - pos : CALLTREE_DEPTH);
	const uint64_t group = (uint64_t)k << 1 | callee;
	uint64_t h = 0xcbf29ce484222325ull ^ len;
	struct calltree_cand *c;
	uint32_t slot;

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ funcs[callee ? pos - i : pos + i]) * 0x100000001b3ull;
	h ^= h >> 29;
	if (t->nr_cand >= UINT32_MAX - 1 || ((t->nr_cand + 1) * 2 > t->cap_slots && grow_slots(t)))
		return -ENOMEM;
	for (slot = (uint32_t)(h ^ group) & (t->cap_slots - 1); t->slots[slot];
	     slot = (slot + 1) & (t->cap_slots - 1)) {
		uint32_t i;

		c = &t->cand[t->slots[slot] - 1];
		if (c->group != group || c->hash != h || c->path.nr != len)
			continue;
		for (i = 0; i < len && c->path.func[i] == funcs[callee ? pos - i : pos + i]; i++)
			;
		if (i == len) {
			c->path.samples += samples;
			return 0;
		}
	}
	if (t->nr_cand == t->cap_cand) {
		size_t cap = t->cap_cand ? t->cap_cand * 2 : 256;
		struct calltree_cand *p = realloc(t->cand, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->cand = p;
		t->cap_cand = cap;
	}
	c = &t->cand[t->nr_cand];
	c->group = group;
	c->hash = h;
	c->path.samples = samples;
	c->path.nr = len;
	for (uint32_t i = 0; i < len; i++)
		c->path.func[i] = funcs[callee ? pos - i : pos + i];
	t->slots[slot] = (uint32_t)++t->nr_cand;
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
	/* In the order they were first met: of equal weights, the first. */
	for (size_t i = 0; i < t->nr_cand; i++) {
		const struct calltree_cand *c = &t->cand[i];
		struct calltree_result *r = &out[c->group >> 1];

		if (c->group & 1)
			offer(r->callees, &r->nr_callees, &c->path);
		else
			offer(r->callers, &r->nr_callers, &c->path);
	}
}

/* ---- every function of the chains ---- */

static uint32_t fn_hash(uint32_t func, uint64_t cls)
{
	uint64_t h = ((uint64_t)func ^ cls * 0xff51afd7ed558ccdull) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h ^ h >> 32);
}

void calltree_count_begin(struct calltree *t)
{
	t->nr_fn = 0;
	t->fn_chain = 0;
	t->fn_total = 0;
	if (t->fn_slots)
		memset(t->fn_slots, 0, t->cap_fn_slots * sizeof(*t->fn_slots));
}

static int grow_fn_slots(struct calltree *t)
{
	const uint32_t cap = t->cap_fn_slots ? t->cap_fn_slots * 2 : 1024;
	uint32_t *s;

	if (!cap)
		return -ENOMEM;
	s = calloc(cap, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->nr_fn; i++) {
		uint32_t k = fn_hash(t->fn[i].func, t->fn[i].cls) & (cap - 1);

		while (s[k])
			k = (k + 1) & (cap - 1);
		s[k] = i + 1;
	}
	free(t->fn_slots);
	t->fn_slots = s;
	t->cap_fn_slots = cap;
	return 0;
}

/* The slot of (func, cls): its own, or the empty one ending its probe. */
static uint32_t *fn_slot(const struct calltree *t, uint32_t func, uint64_t cls)
{
	uint32_t k = fn_hash(func, cls) & (t->cap_fn_slots - 1);

	while (t->fn_slots[k]) {
		const struct calltree_func *f = &t->fn[t->fn_slots[k] - 1];

		if (f->func == func && f->cls == cls)
			break;
		k = (k + 1) & (t->cap_fn_slots - 1);
	}
	return &t->fn_slots[k];
}

/* The entry of (func, cls), made when new (first met in pid's chain, at
 * a frame with word); NULL when out of memory. */
static struct calltree_func *fn_of(struct calltree *t, uint32_t func, uint64_t cls, uint32_t pid,
                                   uint64_t word)
{
	uint32_t *slot;

	if ((t->nr_fn + 1) * 2 > t->cap_fn_slots && grow_fn_slots(t))
		return NULL;
	slot = fn_slot(t, func, cls);
	if (*slot)
		return &t->fn[*slot - 1];
	if (t->nr_fn == t->cap_fn) {
		const uint32_t cap = t->cap_fn ? t->cap_fn * 2 : 256;
		struct calltree_func *p = cap ? realloc(t->fn, (size_t)cap * sizeof(*p)) : NULL;

		if (!p)
			return NULL;
		t->fn = p;
		t->cap_fn = cap;
	}
	t->fn[t->nr_fn] =
	    (struct calltree_func){.func = func, .cls = cls, .word = word, .pid = pid};
	*slot = ++t->nr_fn;
	return &t->fn[t->nr_fn - 1];
}

int calltree_count(struct calltree *t, const uint32_t *funcs, const uint64_t *words, uint32_t nr,
                   bool leaf, uint64_t cls, uint32_t pid, uint64_t samples)
{
	int ret = 0;

	t->fn_total += samples;
	if (++t->fn_chain == 0) { /* wrapped: no stamp may look current */
		for (uint32_t i = 0; i < t->nr_fn; i++)
			t->fn[i].stamp = 0;
		t->fn_chain = 1;
	}
	for (uint32_t i = 0; i < nr; i++) {
		struct calltree_func *f = fn_of(t, funcs[i], cls, pid, words ? words[i] : 0);

		if (!f) {
			ret = -ENOMEM;
			continue;
		}
		if (f->stamp == t->fn_chain)
			continue; /* recursion: once per chain */
		if (f->pid != pid)
			f->pids = true;
		f->stamp = t->fn_chain;
		f->children += samples;
		if (i == 0 && leaf)
			f->self += samples;
	}
	return ret;
}

const struct calltree_func *calltree_counted(const struct calltree *t, uint32_t func, uint64_t cls)
{
	const uint32_t *slot;

	if (!t->cap_fn_slots)
		return NULL;
	slot = fn_slot(t, func, cls);
	return *slot ? &t->fn[*slot - 1] : NULL;
}

void calltree_fini(struct calltree *t)
{
	free(t->tg);
	free(t->by_func);
	free(t->cand);
	free(t->slots);
	free(t->fn);
	free(t->fn_slots);
	memset(t, 0, sizeof(*t));
}
