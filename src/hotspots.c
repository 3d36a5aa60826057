/* hotspots: (pid, ip) sample aggregation in an open-addressing hash, queried for the top N. */
#include "hotspots.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The table never grows past this many slots (3/4 of them usable). */
#define HOTSPOTS_MAX_SLOTS (1u << 30)

static uint64_t hotspots_hash(uint64_t ip, uint32_t pid, uint32_t tid, int32_t cpu, uint8_t cpumode)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)pid << 32 | tid) * 0xc2b2ae3d27d4eb4full;
	h ^= ((uint64_t)(uint32_t)cpu << 8 | cpumode) * 0x165667b19e3779f9ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return h;
}

static uint32_t slot_index(const struct hotspots *h, const struct hotspots_slot *s)
{
	return (uint32_t)hotspots_hash(s->ip, s->pid, s->tid, s->cpu, s->cpumode) & (h->cap - 1);
}

int hotspots_init(struct hotspots *h, unsigned flags, uint32_t max_entries)
{
	memset(h, 0, sizeof(*h));
	h->max_entries = max_entries ? max_entries : HOTSPOTS_DEFAULT_MAX;
	if (h->max_entries > HOTSPOTS_MAX_SLOTS / 4 * 3)
		h->max_entries = HOTSPOTS_MAX_SLOTS / 4 * 3;
	h->flags = flags;
	h->cap = HOTSPOTS_INITIAL_SLOTS;
	h->slots = calloc(h->cap, sizeof(*h->slots));
	if (!h->slots) {
		memset(h, 0, sizeof(*h));
		return -ENOMEM;
	}
	h->gen = 1;
	return 0;
}

void hotspots_fini(struct hotspots *h)
{
	free(h->slots);
	free(h->scratch);
	free(h->fold);
	memset(h, 0, sizeof(*h));
}

bool hotspots_kernel_mode(enum records_cpumode cpumode)
{
	return cpumode == RECORDS_CPUMODE_KERNEL || cpumode == RECORDS_CPUMODE_GUEST_KERNEL;
}

/* Double the table; 0 or -ENOMEM (the table is left as it was). */
static int hotspots_grow(struct hotspots *h)
{
	const uint32_t ncap = h->cap << 1;
	struct hotspots_slot *ns, *old = h->slots;
	const uint32_t ocap = h->cap;

	if (ncap > HOTSPOTS_MAX_SLOTS || ncap < h->cap)
		return -ENOMEM;
	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	h->slots = ns;
	h->cap = ncap;
	for (uint32_t i = 0; i < ocap; i++) {
		if (!old[i].used)
			continue;
		uint32_t j = slot_index(h, &old[i]);

		while (ns[j].used)
			j = (j + 1) & (ncap - 1);
		ns[j] = old[i];
	}
	free(old);
	return 0;
}

static void sums_add(struct hotspots_sums *s, uint64_t weight, bool overflow)
{
	s->weight += weight;
	s->samples++;
	if (overflow) {
		s->overflow_weight += weight;
		s->overflow_samples++;
	}
}

static void slot_count(struct hotspots *h, struct hotspots_slot *s, uint64_t weight)
{
	s->weight += weight;
	s->samples++;
	if (s->igen != h->gen) {
		s->igen = h->gen;
		s->iweight = 0;
		s->isamples = 0;
	}
	s->iweight += weight;
	s->isamples++;
}

int hotspots_add(struct hotspots *h, uint32_t pid, uint32_t tid, uint64_t ip,
		 enum records_cpumode cpumode, int cpu, uint64_t period)
{
	const uint64_t weight = period ? period : 1;
	const uint8_t mode = (uint8_t)cpumode;
	uint32_t i, mask;

	if (!(h->flags & HOTSPOTS_BY_THREAD))
		tid = 0;
	if (!h->slots)
		goto overflow;
	mask = h->cap - 1;
	for (i = (uint32_t)hotspots_hash(ip, pid, tid, cpu, mode) & mask;; i = (i + 1) & mask) {
		struct hotspots_slot *s = &h->slots[i];

		if (!s->used)
			break;
		if (s->ip == ip && s->pid == pid && s->tid == tid && s->cpu == cpu &&
		    s->cpumode == mode) {
			slot_count(h, s, weight);
			sums_add(&h->total, weight, false);
			sums_add(&h->interval, weight, false);
			return 0;
		}
	}
	/* A new key. */
	if (h->used >= h->max_entries)
		goto overflow;
	if ((uint64_t)(h->used + 1) * 4 > (uint64_t)h->cap * 3) {
		if (hotspots_grow(h))
			goto overflow;
		mask = h->cap - 1;
		i = (uint32_t)hotspots_hash(ip, pid, tid, cpu, mode) & mask;
		while (h->slots[i].used)
			i = (i + 1) & mask;
	}
	struct hotspots_slot *s = &h->slots[i];

	*s = (struct hotspots_slot){
		.ip = ip, .pid = pid, .tid = tid, .cpu = cpu, .cpumode = mode, .used = 1};
	slot_count(h, s, weight);
	if (!h->used)
		h->first_cpu = cpu;
	else if (cpu != h->first_cpu)
		h->multi_cpu = true;
	h->used++;
	sums_add(&h->total, weight, false);
	sums_add(&h->interval, weight, false);
	return 0;

overflow:
	sums_add(&h->total, weight, true);
	sums_add(&h->interval, weight, true);
	return -ENOSPC;
}

void hotspots_interval_reset(struct hotspots *h)
{
	memset(&h->interval, 0, sizeof(h->interval));
	if (++h->gen == 0) {
		/* Wrapped after 2^32 intervals: make every old tally stale. */
		for (uint32_t i = 0; i < h->cap; i++)
			h->slots[i].igen = 0;
		h->gen = 1;
	}
}

void hotspots_clear(struct hotspots *h)
{
	if (h->slots)
		memset(h->slots, 0, (size_t)h->cap * sizeof(*h->slots));
	h->used = 0;
	h->multi_cpu = false;
	h->gen = 1;
	memset(&h->total, 0, sizeof(h->total));
	memset(&h->interval, 0, sizeof(h->interval));
}

/* Identity order: pid, tid, ip, cpumode. */
static int row_cmp_key(const struct hotspots_row *a, const struct hotspots_row *b)
{
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->ip != b->ip)
		return a->ip < b->ip ? -1 : 1;
	if (a->cpumode != b->cpumode)
		return a->cpumode < b->cpumode ? -1 : 1;
	return 0;
}

static int row_cmp_ident(const void *pa, const void *pb)
{
	const struct hotspots_row *a = pa, *b = pb;
	int c = row_cmp_key(a, b);

	if (c)
		return c;
	return a->cpu == b->cpu ? 0 : (a->cpu < b->cpu ? -1 : 1);
}

/* Heaviest first, then the identity order: total, hash-independent. */
static int row_cmp_weight(const void *pa, const void *pb)
{
	const struct hotspots_row *a = pa, *b = pb;

	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return row_cmp_ident(a, b);
}

static int scratch_reserve(struct hotspots *h, size_t n, bool fold)
{
	size_t cap = h->scratch_cap ? h->scratch_cap : 256;

	while (cap < n)
		cap *= 2;
	if (cap > h->scratch_cap) {
		struct hotspots_row *p = realloc(h->scratch, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		h->scratch = p;
		h->scratch_cap = cap;
	}
	/* The fold index: at most half full. */
	if (fold && h->fold_cap < 2 * cap) {
		uint32_t *p = realloc(h->fold, 2 * cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		h->fold = p;
		h->fold_cap = 2 * cap;
	}
	return 0;
}

static bool passes(const struct hotspots_slot *s, const struct hotspots_filter *f)
{
	return (f->cpu < 0 || s->cpu == f->cpu) && (f->pid < 0 || s->pid == (uint64_t)f->pid) &&
	       (f->tid < 0 || s->tid == (uint64_t)f->tid);
}

/* The row of slot s's key in the fold index; a new one (*fresh, contents
 * undefined) is appended at scratch[*nr]. */
static struct hotspots_row *fold_row(struct hotspots *h, const struct hotspots_slot *s, size_t *nr,
				     bool *fresh)
{
	const size_t mask = h->fold_cap - 1;
	size_t i = hotspots_hash(s->ip, s->pid, s->tid, -1, s->cpumode) & mask;

	for (;; i = (i + 1) & mask) {
		struct hotspots_row *r;

		if (h->fold[i] == UINT32_MAX) {
			h->fold[i] = (uint32_t)*nr;
			*fresh = true;
			return &h->scratch[(*nr)++];
		}
		r = &h->scratch[h->fold[i]];
		if (r->ip == s->ip && r->pid == s->pid && r->tid == s->tid &&
		    r->cpumode == (enum records_cpumode)s->cpumode) {
			*fresh = false;
			return r;
		}
	}
}

/* True when a ranks after b (lighter, or equal and later in identity order). */
static bool row_after(const struct hotspots_row *a, const struct hotspots_row *b)
{
	return row_cmp_weight(a, b) > 0;
}

/* Restore the heap property below i in heap[0..k): root = the row ranked last. */
static void heap_down(struct hotspots_row *heap, size_t k, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct hotspots_row tmp;

		if (l < k && row_after(&heap[l], &heap[m]))
			m = l;
		if (r < k && row_after(&heap[r], &heap[m]))
			m = r;
		if (m == i)
			return;
		tmp = heap[i];
		heap[i] = heap[m];
		heap[m] = tmp;
		i = m;
	}
}

static void heap_up(struct hotspots_row *heap, size_t i)
{
	while (i) {
		size_t parent = (i - 1) / 2;
		struct hotspots_row tmp;

		if (!row_after(&heap[i], &heap[parent]))
			return;
		tmp = heap[i];
		heap[i] = heap[parent];
		heap[parent] = tmp;
		i = parent;
	}
}

int hotspots_top(struct hotspots *h, enum hotspots_mode mode, const struct hotspots_filter *filter,
		 struct hotspots_row *out, int n, struct hotspots_totals *tot)
{
	const struct hotspots_filter all = HOTSPOTS_FILTER_ALL;
	const struct hotspots_filter *f = filter ? filter : &all;
	const bool interval = mode == HOTSPOTS_INTERVAL;
	/* Fold the per-CPU slots of one key unless the filter picked a CPU. */
	const bool fold = f->cpu < 0 && h->multi_cpu;
	struct hotspots_totals t = {.all = interval ? h->interval : h->total};
	size_t nr = 0, k = 0;

	if (tot)
		*tot = t;
	if (n < 0)
		return -EINVAL;
	if (scratch_reserve(h, h->used ? h->used : 1, fold))
		return -ENOMEM;
	if (fold)
		memset(h->fold, 0xff, h->fold_cap * sizeof(*h->fold));
	for (uint32_t i = 0; i < h->cap; i++) {
		const struct hotspots_slot *s = &h->slots[i];
		struct hotspots_row *r;
		bool fresh = true;
		uint64_t w, c;

		if (!s->used || !passes(s, f))
			continue;
		if (interval) {
			if (s->igen != h->gen)
				continue;
			w = s->iweight;
			c = s->isamples;
		} else {
			w = s->weight;
			c = s->samples;
		}
		if (!c)
			continue;
		t.weight += w;
		t.samples += c;
		r = fold ? fold_row(h, s, &nr, &fresh) : &h->scratch[nr++];
		if (!fresh) { /* a key seen on another CPU */
			r->weight += w;
			r->samples += c;
			continue;
		}
		*r = (struct hotspots_row){
			.pid = s->pid,
			.tid = s->tid,
			.ip = s->ip,
			.cpumode = (enum records_cpumode)s->cpumode,
			.kernel = hotspots_kernel_mode((enum records_cpumode)s->cpumode),
			.cpu = f->cpu < 0 ? -1 : s->cpu,
			.weight = w,
			.samples = c,
			.merged = 1,
		};
	}
	t.rows = nr;
	/* The n heaviest: a heap in out[] whose root is the lightest kept. */
	for (size_t i = 0; i < nr && n > 0; i++) {
		if (k < (size_t)n) {
			out[k] = h->scratch[i];
			heap_up(out, k++);
		} else if (row_after(&out[0], &h->scratch[i])) {
			out[0] = h->scratch[i];
			heap_down(out, k, 0);
		}
	}
	qsort(out, k, sizeof(*out), row_cmp_weight);
	for (size_t i = 0; i < k; i++)
		out[i].share = t.weight ? 100.0 * (double)out[i].weight / (double)t.weight : 0.0;
	if (tot)
		*tot = t;
	return (int)k;
}

/* Group order: key, then (with MERGE_PID) pid and tid, heaviest first within. */
static int row_cmp_group(const struct hotspots_row *a, const struct hotspots_row *b, unsigned fl)
{
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (fl & HOTSPOTS_MERGE_PID) {
		if (a->pid != b->pid)
			return a->pid < b->pid ? -1 : 1;
		if (a->tid != b->tid)
			return a->tid < b->tid ? -1 : 1;
	}
	return 0;
}

static int row_cmp_group_pid(const void *pa, const void *pb)
{
	int c = row_cmp_group(pa, pb, HOTSPOTS_MERGE_PID);

	return c ? c : row_cmp_weight(pa, pb);
}

static int row_cmp_group_any(const void *pa, const void *pb)
{
	int c = row_cmp_group(pa, pb, 0);

	return c ? c : row_cmp_weight(pa, pb);
}

int hotspots_merge(struct hotspots_row *rows, int n, hotspots_key_fn key, void *arg, unsigned flags)
{
	int k = 0;

	if (n <= 0 || !key)
		return n < 0 ? 0 : n;
	for (int i = 0; i < n; i++)
		rows[i].key = key(&rows[i], arg);
	qsort(rows, (size_t)n, sizeof(*rows),
	      flags & HOTSPOTS_MERGE_PID ? row_cmp_group_pid : row_cmp_group_any);
	for (int i = 0; i < n; i++) {
		struct hotspots_row *g = k ? &rows[k - 1] : NULL;

		/* Sorted heaviest first within a group: g is its representative. */
		if (g && rows[i].key && !row_cmp_group(g, &rows[i], flags)) {
			g->weight += rows[i].weight;
			g->samples += rows[i].samples;
			g->share += rows[i].share;
			g->merged += rows[i].merged;
			if (g->cpu != rows[i].cpu)
				g->cpu = -1;
		} else {
			rows[k++] = rows[i];
		}
	}
	qsort(rows, (size_t)k, sizeof(*rows), row_cmp_weight);
	return k;
}
