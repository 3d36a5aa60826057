/* rowhist: a ring of the last intervals per row id, found through a hash. */
#include "rowhist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	int64_t id;
	uint64_t start;
	uint64_t seen; /* the interval it was last pushed in */
	int head;      /* where the next entry goes */
	int count;
};

struct rowhist {
	int ns, len, forget;
	uint64_t gen;
	struct slot *slots;
	/* Entry k of slot i's ring: ns floats at vals + (k * cap + i) * ns. The
	 * rows' entries of one interval are side by side: an interval of a few
	 * hundred rows writes a few pages, not one page per row (each page
	 * first touched is a page fault). */
	float *vals;
	int nr, cap;
	/* Ring entries 0..filled-1 have been written in some row: the others
	 * hold nothing yet, and are not copied (nor their pages touched) when
	 * the rings move. */
	int filled;
	uint32_t *hash; /* slot index + 1, 0 empty; linear probing */
	uint32_t hmask;
	bool pinned;
	int64_t pin_id;
};

static uint32_t mix(int64_t id)
{
	uint64_t z = (uint64_t)id + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(z ^ (z >> 31));
}

static float *entry(const struct rowhist *h, int slot, int k)
{
	return h->vals + ((size_t)k * (size_t)h->cap + (size_t)slot) * (size_t)h->ns;
}

/* The hash made again for the slots there are, sized for cap of them. */
static int rehash(struct rowhist *h)
{
	uint32_t size = 16;
	uint32_t *t;

	while (size < 2u * (uint32_t)h->cap)
		size *= 2;
	t = calloc(size, sizeof(*t));
	if (!t)
		return -1;
	free(h->hash);
	h->hash = t;
	h->hmask = size - 1;
	for (int i = 0; i < h->nr; i++) {
		uint32_t k = mix(h->slots[i].id) & h->hmask;
		while (h->hash[k])
			k = (k + 1) & h->hmask;
		h->hash[k] = (uint32_t)i + 1;
	}
	return 0;
}

/* Slot index of id, or -1; *at: the hash position it has or would take. */
static int find(const struct rowhist *h, int64_t id, uint32_t *at)
{
	uint32_t k;

	if (!h->hash)
		return -1;
	k = mix(id) & h->hmask;
	while (h->hash[k]) {
		if (h->slots[h->hash[k] - 1].id == id) {
			if (at)
				*at = k;
			return (int)h->hash[k] - 1;
		}
		k = (k + 1) & h->hmask;
	}
	if (at)
		*at = k;
	return -1;
}

/* Room for cap slots (at least nr; more or fewer than now). */
static int resize(struct rowhist *h, int cap)
{
	const size_t ns = (size_t)h->ns;
	struct slot *s;
	float *v;

	v = malloc((size_t)cap * (size_t)h->len * ns * sizeof(*v));
	if (!v)
		return -1;
	for (int k = 0; k < h->filled && h->nr; k++)
		memcpy(v + (size_t)k * (size_t)cap * ns, entry(h, 0, k),
		       (size_t)h->nr * ns * sizeof(*v));
	s = realloc(h->slots, (size_t)cap * sizeof(*s));
	if (!s) {
		free(v);
		return -1;
	}
	h->slots = s;
	free(h->vals);
	h->vals = v;
	h->cap = cap;
	return rehash(h);
}

struct rowhist *rowhist_new(int nseries, int len, int forget_after)
{
	struct rowhist *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->ns = nseries > 0 ? nseries : 1;
	h->len = len > 0 ? len : ROWHIST_LEN;
	h->forget = forget_after > 0 ? forget_after : ROWHIST_FORGET;
	return h;
}

void rowhist_free(struct rowhist *h)
{
	if (!h)
		return;
	free(h->slots);
	free(h->vals);
	free(h->hash);
	free(h);
}

void rowhist_reset(struct rowhist *h, int nseries)
{
	free(h->slots);
	free(h->vals);
	free(h->hash);
	h->slots = NULL;
	h->vals = NULL;
	h->hash = NULL;
	h->nr = h->cap = h->filled = 0;
	h->ns = nseries > 0 ? nseries : 1;
}

int rowhist_nseries(const struct rowhist *h)
{
	return h->ns;
}

int rowhist_len(const struct rowhist *h)
{
	return h->len;
}

void rowhist_begin(struct rowhist *h)
{
	h->gen++;
}

float *rowhist_push(struct rowhist *h, int64_t id, uint64_t start)
{
	uint32_t at = 0;
	int i = find(h, id, &at);
	struct slot *s;
	float *e;

	if (i < 0) {
		if (h->nr == h->cap) {
			if (resize(h, h->cap ? h->cap * 2 : 64))
				return NULL;
			find(h, id, &at); /* the hash is new */
		}
		i = h->nr++;
		h->slots[i] = (struct slot){.id = id, .start = start, .seen = h->gen - 1};
		h->hash[at] = (uint32_t)i + 1;
	}
	s = &h->slots[i];
	if (s->start != start) { /* the id of another row now */
		s->start = start;
		s->count = s->head = 0;
	} else if (s->seen == h->gen && s->count) {
		return entry(h, i, (s->head + h->len - 1) % h->len);
	}
	e = entry(h, i, s->head);
	for (int k = 0; k < h->ns; k++)
		e[k] = NAN;
	if (s->head >= h->filled)
		h->filled = s->head + 1;
	s->head = (s->head + 1) % h->len;
	if (s->count < h->len)
		s->count++;
	s->seen = h->gen;
	return e;
}

void rowhist_end(struct rowhist *h)
{
	int j = 0;

	for (int i = 0; i < h->nr; i++) {
		const struct slot *s = &h->slots[i];
		bool keep =
		    h->gen - s->seen < (uint64_t)h->forget || (h->pinned && s->id == h->pin_id);
		if (!keep)
			continue;
		if (j != i) {
			h->slots[j] = *s;
			for (int k = 0; k < h->filled; k++)
				memcpy(entry(h, j, k), entry(h, i, k),
				       (size_t)h->ns * sizeof(float));
		}
		j++;
	}
	if (j == h->nr)
		return;
	h->nr = j;
	/* Give back memory once most rows have gone; else just rehash. */
	if (h->cap > 64 && h->nr < h->cap / 4) {
		if (!resize(h, 2 * h->nr > 64 ? 2 * h->nr : 64))
			return;
	}
	if (rehash(h)) { /* no memory for the hash: start again empty */
		h->nr = 0;
		rehash(h);
	}
}

void rowhist_pin(struct rowhist *h, bool pin, int64_t id)
{
	h->pinned = pin;
	h->pin_id = id;
}

int rowhist_get(const struct rowhist *h, int64_t id, int s, float *out, int max, bool *fresh)
{
	int i = find(h, id, NULL), n;
	const struct slot *sl;

	if (fresh)
		*fresh = false;
	if (i < 0 || s < 0 || s >= h->ns)
		return 0;
	sl = &h->slots[i];
	n = sl->count < max ? sl->count : max;
	for (int k = 0; k < n; k++) {
		int at = (sl->head - n + k + 2 * h->len) % h->len;
		out[k] = entry(h, i, at)[s];
	}
	if (fresh)
		*fresh = sl->seen == h->gen;
	return n;
}

int rowhist_rows(const struct rowhist *h)
{
	return h->nr;
}

size_t rowhist_bytes(const struct rowhist *h)
{
	return sizeof(*h) +
	       (size_t)h->cap *
	           (sizeof(struct slot) + (size_t)h->len * (size_t)h->ns * sizeof(float)) +
	       (h->hash ? (size_t)(h->hmask + 1) * sizeof(uint32_t) : 0);
}
