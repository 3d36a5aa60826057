/* stacks: call chains (PERF_SAMPLE_CALLCHAIN) aggregated per process, for folded output. */
#include "stacks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define STACKS_DEFAULT_MAX 65536

struct stacks_slot {
	uint32_t hash; /* of the chain (its low half) */
	uint32_t pid;
	uint32_t off; /* the chain's first frame in the arena */
	uint16_t nr;
	bool used;
	uint64_t samples;
	/* Never written by stacks_add(): zero for a new key (the slots come
	 * from calloc and are never reused), moved along when the table grows. */
	uint64_t base; /* samples at the last stacks_interval_reset() */
	uint64_t user; /* the caller's word (stacks_walk()) */
};

_Static_assert(sizeof(struct stacks_slot) == 40, "a key is 40 bytes");

int stacks_init(struct stacks *t, uint32_t max)
{
	memset(t, 0, sizeof(*t));
	t->max = max ? max : STACKS_DEFAULT_MAX;
	return 0;
}

void stacks_fini(struct stacks *t)
{
	free(t->slots);
	free(t->arena);
	memset(t, 0, sizeof(*t));
}

size_t stacks_bytes(const struct stacks *t)
{
	return (size_t)t->cap * sizeof(*t->slots) + t->arena_cap * sizeof(*t->arena);
}

static uint64_t hash_chain(uint32_t pid, const uint64_t *ips, uint32_t nr)
{
	uint64_t h = 0xcbf29ce484222325ull ^ pid;

	for (uint32_t i = 0; i < nr; i++) {
		h ^= ips[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

/* Twice the keys at most, by doubling; 0 or -ENOMEM (the table as it was). */
static int grow(struct stacks *t)
{
	const uint32_t cap = t->cap ? t->cap * 2 : 1024;
	struct stacks_slot *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->cap; i++) {
		uint32_t k;

		if (!t->slots[i].used)
			continue;
		for (k = (uint32_t)t->slots[i].hash & (cap - 1); s[k].used; k = (k + 1) & (cap - 1))
			;
		s[k] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->cap = cap;
	return 0;
}

static int arena_put(struct stacks *t, const uint64_t *ips, uint32_t nr, uint32_t *off)
{
	if (t->arena_used + nr > UINT32_MAX)
		return -ENOMEM; /* offsets are 32-bit: far past any bound on keys */
	*off = (uint32_t)t->arena_used;
	if (!nr)
		return 0;
	if (t->arena_used + nr > t->arena_cap) {
		size_t cap = t->arena_cap ? t->arena_cap * 2 : 16384;
		uint64_t *a;

		while (cap < t->arena_used + nr)
			cap *= 2;
		a = realloc(t->arena, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		t->arena = a;
		t->arena_cap = cap;
	}
	memcpy(t->arena + t->arena_used, ips, nr * sizeof(*ips));
	t->arena_used += nr;
	return 0;
}

void stacks_add(struct stacks *t, uint32_t pid, const uint64_t *ips, uint64_t nr64)
{
	const uint32_t nr = nr64 > STACKS_MAX_FRAMES ? STACKS_MAX_FRAMES : (uint32_t)nr64;
	const uint64_t h = hash_chain(pid, ips, nr);
	uint32_t k;

	t->samples++;
	if ((t->used + 1) * 2 > t->cap && t->used < t->max)
		grow(t); /* failing, old keys still count and new ones are dropped */
	if (!t->cap) {
		t->dropped++;
		return;
	}
	for (k = (uint32_t)h & (t->cap - 1); t->slots[k].used; k = (k + 1) & (t->cap - 1)) {
		struct stacks_slot *s = &t->slots[k];

		if (s->hash == (uint32_t)h && s->pid == pid && s->nr == nr &&
		    (!nr || !memcmp(t->arena + s->off, ips, nr * sizeof(*ips)))) {
			s->samples++;
			return;
		}
	}
	/* A new key: only below the bound and while the table has room. */
	if (t->used >= t->max || (t->used + 1) * 2 > t->cap ||
	    arena_put(t, ips, nr, &t->slots[k].off)) {
		t->dropped++;
		return;
	}
	t->slots[k].hash = (uint32_t)h;
	t->slots[k].pid = pid;
	t->slots[k].nr = (uint16_t)nr;
	t->slots[k].samples = 1;
	t->slots[k].used = true;
	t->used++;
}

void stacks_for_each(const struct stacks *t, stacks_fn fn, void *arg)
{
	static const uint64_t none[1];

	for (uint32_t i = 0; i < t->cap; i++)
		if (t->slots[i].used)
			fn(t->slots[i].pid, t->slots[i].nr ? t->arena + t->slots[i].off : none,
			   t->slots[i].nr, t->slots[i].samples, arg);
}

void stacks_interval_reset(struct stacks *t)
{
	for (uint32_t i = 0; i < t->cap; i++)
		t->slots[i].base = t->slots[i].samples;
	t->interval_base = t->samples;
}

void stacks_walk(struct stacks *t, bool interval, stacks_walk_fn fn, void *arg)
{
	static const uint64_t none[1];

	for (uint32_t i = 0; i < t->cap; i++) {
		struct stacks_slot *s = &t->slots[i];
		const uint64_t n = interval ? s->samples - s->base : s->samples;

		if (s->used && n)
			fn(s->pid, s->nr ? t->arena + s->off : none, s->nr, n, &s->user, arg);
	}
}
