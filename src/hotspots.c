/* hotspots: (pid, ip) sample aggregation in an open-addressing hash, queried for the top N. */
#include "hotspots.h"

#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The table never grows past this many slots (3/4 of them usable). */
#define HOTSPOTS_MAX_SLOTS (1u << 30)

_Static_assert(sizeof(struct hotspots_slot) == 64, "a slot is one cache line's worth");

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

/* One folded row of a query: the sums of its slots (the first one named). */
struct hotspots_acc {
	uint32_t slot; /* the first slot folded: the row's identity */
	int16_t cpu;   /* the row's CPU, -1 when folded over CPUs */
	bool by_sym;   /* key is a symbol's start, else an address */
	uint64_t key;
	uint64_t weight, samples;
};

/* The fewest slots that hold this many keys (at 3/4 load). */
static uint32_t slots_for(uint32_t keys)
{
	uint32_t cap = HOTSPOTS_INITIAL_SLOTS;

	while ((uint64_t)keys * 4 > (uint64_t)cap * 3 && cap < HOTSPOTS_MAX_SLOTS)
		cap <<= 1;
	return cap;
}

int hotspots_init(struct hotspots *h, unsigned flags, uint32_t max_entries, uint32_t soft_cap)
{
	memset(h, 0, sizeof(*h));
	h->max_entries = max_entries ? max_entries : HOTSPOTS_DEFAULT_MAX;
	if (h->max_entries > HOTSPOTS_MAX_SLOTS / 4 * 3)
		h->max_entries = HOTSPOTS_MAX_SLOTS / 4 * 3;
	h->soft_cap = soft_cap < h->max_entries ? soft_cap : 0;
	h->flags = flags;
	h->cap = HOTSPOTS_INITIAL_SLOTS;
	h->slots = calloc(h->cap, sizeof(*h->slots));
	h->slot_pid1 = calloc(h->cap, sizeof(*h->slot_pid1));
	if (!h->slots || !h->slot_pid1) {
		free(h->slots);
		free(h->slot_pid1);
		memset(h, 0, sizeof(*h));
		return -ENOMEM;
	}
	h->gen = 1;
	return 0;
}

void hotspots_fini(struct hotspots *h)
{
	for (int i = 0; i < HOTSPOTS_MAX_WATCH; i++)
		free(h->watch[i].ips);
	free(h->slots);
	free(h->slot_pid1);
	free(h->scratch);
	free(h->fold);
	memset(h, 0, sizeof(*h));
}

bool hotspots_kernel_mode(enum records_cpumode cpumode)
{
	return cpumode == RECORDS_CPUMODE_KERNEL || cpumode == RECORDS_CPUMODE_GUEST_KERNEL;
}

/* Move every key into a new array of ncap slots; 0 or -ENOMEM (the table
 * is left as it was). ncap must hold the keys. */
static int hotspots_rehash(struct hotspots *h, uint32_t ncap)
{
	struct hotspots_slot *ns, *old = h->slots;
	uint32_t *np1;
	const uint32_t ocap = h->cap;

	ns = calloc(ncap, sizeof(*ns));
	np1 = calloc(ncap, sizeof(*np1));
	if (!ns || !np1) {
		free(ns);
		free(np1);
		return -ENOMEM;
	}
	free(h->slot_pid1);
	h->slot_pid1 = np1;
	h->slots = ns;
	h->cap = ncap;
	for (uint32_t i = 0; i < ocap; i++) {
		if (!old[i].used)
			continue;
		uint32_t j = slot_index(h, &old[i]);

		while (ns[j].used)
			j = (j + 1) & (ncap - 1);
		ns[j] = old[i];
		np1[j] = old[i].pid + 1;
	}
	free(old);
	return 0;
}

/* Double the table; 0 or -ENOMEM (the table is left as it was). */
static int hotspots_grow(struct hotspots *h)
{
	const uint32_t ncap = h->cap << 1;

	if (ncap > HOTSPOTS_MAX_SLOTS || ncap < h->cap)
		return -ENOMEM;
	return hotspots_rehash(h, ncap);
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
	if (s->isamples != UINT32_MAX)
		s->isamples++;
}

/* The slot of a key, or of the empty slot that ends its probe (*found false). */
static uint32_t probe(const struct hotspots *h, uint32_t pid, uint32_t tid, uint64_t ip,
                      uint8_t mode, int cpu, bool *found)
{
	const uint32_t mask = h->cap - 1;
	uint32_t i;

	for (i = (uint32_t)hotspots_hash(ip, pid, tid, cpu, mode) & mask;; i = (i + 1) & mask) {
		const struct hotspots_slot *s = &h->slots[i];

		if (!s->used) {
			*found = false;
			return i;
		}
		if (s->ip == ip && s->pid == pid && s->tid == tid && s->cpu == cpu &&
		    s->cpumode == mode) {
			*found = true;
			return i;
		}
	}
}

const struct hotspots_slot *hotspots_find(const struct hotspots *h, uint32_t pid, uint32_t tid,
                                          uint64_t ip, enum records_cpumode cpumode, int cpu)
{
	bool found;
	uint32_t i;

	if (!h->slots || cpu < -1 || cpu > HOTSPOTS_MAX_CPU)
		return NULL;
	if (!(h->flags & HOTSPOTS_BY_THREAD))
		tid = 0;
	i = probe(h, pid, tid, ip, (uint8_t)cpumode, cpu, &found);
	return found ? &h->slots[i] : NULL;
}

/* Slot i has just been filled with a new key. */
static void key_added(struct hotspots *h, uint32_t i)
{
	const uint32_t pid = h->slots[i].pid;

	h->slot_pid1[i] = pid + 1;
	h->pid_nkeys[pid % HOTSPOTS_SYM_EPOCHS]++;
}

int hotspots_add(struct hotspots *h, uint32_t pid, uint32_t tid, uint64_t ip,
                 enum records_cpumode cpumode, int cpu, uint64_t period)
{
	const uint64_t weight = period ? period : 1;
	const uint8_t mode = (uint8_t)cpumode;
	bool found;
	uint32_t i;

	if (h->nr_watch)
		hotspots_watch_sample(h, pid, ip, cpumode, weight);

	if (!(h->flags & HOTSPOTS_BY_THREAD))
		tid = 0;
	if (!h->slots || cpu < -1 || cpu > HOTSPOTS_MAX_CPU)
		goto overflow;
	i = probe(h, pid, tid, ip, mode, cpu, &found);
	if (found) {
		slot_count(h, &h->slots[i], weight);
		sums_add(&h->total, weight, false);
		sums_add(&h->interval, weight, false);
		return 0;
	}
	/* A new key. */
	if (h->used >= h->max_entries)
		goto overflow;
	if ((uint64_t)(h->used + 1) * 4 > (uint64_t)h->cap * 3) {
		if (hotspots_grow(h))
			goto overflow;
		i = probe(h, pid, tid, ip, mode, cpu, &found);
	}
	struct hotspots_slot *s = &h->slots[i];

	*s = (struct hotspots_slot){
	    .ip = ip, .pid = pid, .tid = tid, .cpu = (int16_t)cpu, .cpumode = mode, .used = 1};
	slot_count(h, s, weight);
	key_added(h, i);
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
	if (h->slots) {
		memset(h->slots, 0, (size_t)h->cap * sizeof(*h->slots));
		memset(h->slot_pid1, 0, (size_t)h->cap * sizeof(*h->slot_pid1));
	}
	memset(h->pid_nkeys, 0, sizeof(h->pid_nkeys));
	h->used = 0;
	h->multi_cpu = false;
	h->gen = 1;
	for (int i = 0; i < HOTSPOTS_MAX_WATCH; i++) {
		struct hotspots_watch *w = &h->watch[i];

		if (!w->used)
			continue;
		memset(w->ips, 0, HOTSPOTS_WATCH_IPS * sizeof(*w->ips));
		w->nr = 0;
		w->weight = w->samples = w->overflow = 0;
	}
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
int hotspots_row_cmp_weight(const void *pa, const void *pb)
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
		struct hotspots_acc *p = realloc(h->scratch, cap * sizeof(*p));

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

/* The sums of slot i's key (without its CPU) in the fold index; a new one
 * (*fresh, contents undefined) is appended at scratch[*nr]. */
/* The accumulator of slot's (pid, tid, cpumode) with key and cpu: the
 * slot's address (folding its per-CPU slots), or its symbol's start. */
static struct hotspots_acc *fold_acc(struct hotspots *h, uint32_t slot, int cpu, uint64_t key,
                                     bool by_sym, size_t *nr, bool *fresh)
{
	const struct hotspots_slot *s = &h->slots[slot];
	const size_t mask = h->fold_cap - 1;
	size_t i = hotspots_hash(key ^ by_sym, s->pid, s->tid, cpu, s->cpumode) & mask;

	for (;; i = (i + 1) & mask) {
		const struct hotspots_slot *o;
		struct hotspots_acc *a;

		if (h->fold[i] == UINT32_MAX) {
			h->fold[i] = (uint32_t)*nr;
			*fresh = true;
			a = &h->scratch[(*nr)++];
			*a = (struct hotspots_acc){
			    .slot = slot, .cpu = (int16_t)cpu, .by_sym = by_sym, .key = key};
			return a;
		}
		a = &h->scratch[h->fold[i]];
		o = &h->slots[a->slot];
		if (a->key == key && a->by_sym == by_sym && a->cpu == cpu && o->pid == s->pid &&
		    o->tid == s->tid && o->cpumode == s->cpumode) {
			*fresh = false;
			return a;
		}
	}
}

/* True when a ranks after b (lighter, or equal and later in identity order). */
static bool row_after(const struct hotspots_row *a, const struct hotspots_row *b)
{
	return hotspots_row_cmp_weight(a, b) > 0;
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

/* Keep r if it is among the n heaviest: a heap in out[0..*k) whose root is
 * the lightest kept; with room for every row (all), no heap: they are
 * sorted once at the end. */
static void heap_offer(struct hotspots_row *out, size_t *k, size_t n, const struct hotspots_row *r,
                       bool all)
{
	if (all && *k < n) {
		out[(*k)++] = *r;
	} else if (*k < n) {
		out[*k] = *r;
		heap_up(out, (*k)++);
	} else if (n && row_after(&out[0], r)) {
		out[0] = *r;
		heap_down(out, *k, 0);
	}
}

/* The row of slot i (cpu: the row's, -1 when folded over CPUs). */
static void slot_row(const struct hotspots *h, uint32_t i, int cpu, uint64_t weight,
                     uint64_t samples, struct hotspots_row *r)
{
	const struct hotspots_slot *s = &h->slots[i];

	*r = (struct hotspots_row){
	    .pid = s->pid,
	    .tid = s->tid,
	    .ip = s->ip,
	    .cpumode = (enum records_cpumode)s->cpumode,
	    .kernel = hotspots_kernel_mode((enum records_cpumode)s->cpumode),
	    .cpu = cpu,
	    .weight = weight,
	    .samples = samples,
	    .merged = 1,
	    .slot = i,
	};
}

int hotspots_top(struct hotspots *h, enum hotspots_mode mode, const struct hotspots_filter *filter,
                 struct hotspots_row *out, int n, struct hotspots_totals *tot)
{
	const struct hotspots_filter all = HOTSPOTS_FILTER_ALL;
	const struct hotspots_filter *f = filter ? filter : &all;
	const bool interval = mode == HOTSPOTS_INTERVAL;
	/* Fold the per-CPU slots of one key unless the filter picked a CPU. */
	const bool fold = f->cpu < 0 && h->multi_cpu && !f->by_cpu;
	struct hotspots_totals t = {.all = interval ? h->interval : h->total};
	struct hotspots_row row;
	size_t nr = 0, k = 0;
	/* Room for a row per key: nothing to choose, the heap is not needed. */
	const bool keep_all = n >= 0 && (size_t)n >= h->used;

	if (tot)
		*tot = t;
	if (n < 0)
		return -EINVAL;
	if (fold) {
		if (scratch_reserve(h, h->used ? h->used : 1, true))
			return -ENOMEM;
		memset(h->fold, 0xff, h->fold_cap * sizeof(*h->fold));
	}
	for (uint32_t i = 0; i < h->cap; i++) {
		const struct hotspots_slot *s = &h->slots[i];
		struct hotspots_acc *a;
		bool fresh;
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
		if (!fold) { /* one slot, one row */
			nr++;
			slot_row(h, i, f->cpu < 0 && !f->by_cpu ? -1 : s->cpu, w, c, &row);
			heap_offer(out, &k, (size_t)n, &row, keep_all);
			continue;
		}
		a = fold_acc(h, i, -1, s->ip, false, &nr, &fresh);
		a->weight += w; /* fresh ones start at 0; else a key seen on another CPU */
		a->samples += c;
	}
	if (fold) {
		for (size_t i = 0; i < nr; i++) {
			slot_row(h, h->scratch[i].slot, -1, h->scratch[i].weight,
			         h->scratch[i].samples, &row);
			heap_offer(out, &k, (size_t)n, &row, keep_all);
		}
	}
	t.rows = nr;
	qsort(out, k, sizeof(*out), hotspots_row_cmp_weight);
	for (size_t i = 0; i < k; i++)
		out[i].share = t.weight ? 100.0 * (double)out[i].weight / (double)t.weight : 0.0;
	if (tot)
		*tot = t;
	return (int)k;
}

int hotspots_top_all(struct hotspots *h, enum hotspots_mode mode, const struct hotspots_filter *f,
                     hotspots_sym_fn sym, void *arg, struct hotspots_row **rows, int *cap,
                     int reserve, struct hotspots_totals *tot)
{
	const bool interval = mode == HOTSPOTS_INTERVAL;
	const bool fold_cpus = f->cpu < 0 && !f->by_cpu;
	struct hotspots_totals t = {.all = interval ? h->interval : h->total};
	size_t nr = 0;

	if (tot)
		*tot = t;
	if (reserve < 0 || scratch_reserve(h, h->used ? h->used : 1, true))
		return -ENOMEM;
	memset(h->fold, 0xff, h->fold_cap * sizeof(*h->fold));
	for (uint32_t i = 0; i < h->cap; i++) {
		const struct hotspots_slot *s = &h->slots[i];
		const int cpu = fold_cpus ? -1 : s->cpu;

		uint64_t w, c, key = s->ip, start;
		bool by_sym = false, fresh;
		struct hotspots_row r;
		struct hotspots_acc *a;

		if (!s->used || !passes(s, f) || (interval && s->igen != h->gen))
			continue;
		w = interval ? s->iweight : s->weight;
		c = interval ? s->isamples : s->samples;
		if (!c)
			continue;
		t.weight += w;
		t.samples += c;
		if (sym) { /* the symbol, cached in the slot: resolved once */
			slot_row(h, i, cpu, w, c, &r);
			if (hotspots_symbol(h, &r, sym, arg, &start) == HOTSPOTS_SYM_FOUND) {
				key = start;
				by_sym = true;
			}
		}
		a = fold_acc(h, i, cpu, key, by_sym, &nr, &fresh);
		a->weight += w;
		a->samples += c;
	}
	/* Room for every row and the caller's reserve: grown by a quarter,
	 * given back when far more than needed. */
	const size_t need = nr + (size_t)reserve, want = need + need / 4 + 1024;
	if (want > INT_MAX)
		return -ENOMEM;
	if (need > (size_t)*cap || (size_t)*cap > 2 * want) {
		struct hotspots_row *m = realloc(*rows, want * sizeof(*m));

		if (!m && need > (size_t)*cap)
			return -ENOMEM;
		if (m) {
			*rows = m;
			*cap = (int)want;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		const struct hotspots_acc *a = &h->scratch[i];

		slot_row(h, a->slot, a->cpu, a->weight, a->samples, &(*rows)[i]);
	}
	qsort(*rows, nr, sizeof(**rows), hotspots_row_cmp_weight);
	for (size_t i = 0; i < nr; i++)
		(*rows)[i].share =
		    t.weight ? 100.0 * (double)(*rows)[i].weight / (double)t.weight : 0.0;
	t.rows = nr;
	if (tot)
		*tot = t;
	return (int)nr;
}

/* ---- cached symbols ---- */

void hotspots_symbols_changed(struct hotspots *h, uint32_t pid)
{
	if (++h->sym_clock == 0) {
		/* Wrapped after 2^32 changes: old epochs may come back, so
		 * forget every cached symbol. */
		memset(h->sym_epochs, 0, sizeof(h->sym_epochs));
		for (uint32_t i = 0; i < h->cap; i++)
			h->slots[i].sym_state = 0;
		h->sym_clock = 1;
	}
	h->sym_epochs[pid % HOTSPOTS_SYM_EPOCHS] = h->sym_clock;
}

/* The symbol of slot i, whose row is r (NULL: made from the slot when
 * needed): cached, or asked of sym and cached. An UNKNOWN one is asked
 * again once it is old, if retry. */
static enum hotspots_sym slot_symbol(struct hotspots *h, uint32_t i, const struct hotspots_row *r,
                                     hotspots_sym_fn sym, void *arg, bool retry, uint64_t *start)
{
	struct hotspots_slot *s = &h->slots[i];
	const uint32_t epoch = h->sym_epochs[s->pid % HOTSPOTS_SYM_EPOCHS];
	struct hotspots_row own;
	enum hotspots_sym st;
	uint64_t at = 0;

	if (s->sym_state && s->sym_epoch == epoch) {
		st = (enum hotspots_sym)(s->sym_state - 1);
		if (st == HOTSPOTS_SYM_FOUND)
			*start = s->sym;
		if (st != HOTSPOTS_SYM_UNKNOWN || !retry ||
		    h->gen - (uint32_t)s->sym < HOTSPOTS_RETRY_INTERVALS)
			return st;
	}
	if (!sym)
		return HOTSPOTS_SYM_UNKNOWN;
	if (!r) {
		slot_row(h, i, s->cpu, s->weight, s->samples, &own);
		r = &own;
	}
	st = sym(r, &at, arg);
	switch (st) {
	case HOTSPOTS_SYM_FOUND:
		*start = at;
		s->sym = at;
		break;
	case HOTSPOTS_SYM_NONE:
		s->sym = 0;
		break;
	default:
		st = HOTSPOTS_SYM_UNKNOWN;
		s->sym = h->gen; /* when it was asked */
		break;
	}
	s->sym_state = (uint8_t)(st + 1);
	s->sym_epoch = epoch;
	return st;
}

enum hotspots_sym hotspots_symbol(struct hotspots *h, const struct hotspots_row *row,
                                  hotspots_sym_fn sym, void *arg, uint64_t *start)
{
	if (h->slots && row->slot < h->cap) {
		struct hotspots_slot *s = &h->slots[row->slot];

		if (s->used && s->ip == row->ip && s->pid == row->pid && s->tid == row->tid &&
		    s->cpumode == (uint8_t)row->cpumode)
			return slot_symbol(h, row->slot, row, sym, arg, true, start);
	}
	if (!sym)
		return HOTSPOTS_SYM_UNKNOWN;
	return sym(row, start, arg);
}

/* ---- trimming ---- */

static bool idle_for(const struct hotspots *h, const struct hotspots_slot *s, uint32_t intervals)
{
	return h->gen - s->igen >= intervals;
}

/* Remove the key in slot i by backward-shift deletion: the keys after it in
 * its probe run move back so that every key stays reachable, with no
 * tombstone. Only keys of that run move, and only towards i. */
static void slot_delete(struct hotspots *h, uint32_t i)
{
	const uint32_t mask = h->cap - 1;

	h->pid_nkeys[h->slots[i].pid % HOTSPOTS_SYM_EPOCHS]--;
	for (uint32_t j = (i + 1) & mask; h->slots[j].used; j = (j + 1) & mask) {
		const uint32_t home = slot_index(h, &h->slots[j]);

		/* The hole at i is on j's probe path from home: j may move there. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			h->slots[i] = h->slots[j];
			h->slot_pid1[i] = h->slot_pid1[j];
			i = j;
		}
	}
	memset(&h->slots[i], 0, sizeof(h->slots[i]));
	h->slot_pid1[i] = 0;
	h->used--;
}

/* Add the since-start tallies of src (removed from the table) to the key
 * (src's pid, tid, cpumode and CPU; ip to), created if need be: there is
 * room, src's slot having just been freed. */
static void fold_into(struct hotspots *h, const struct hotspots_slot *src, uint64_t to)
{
	bool found;
	uint32_t i = probe(h, src->pid, src->tid, to, src->cpumode, src->cpu, &found);

	if (found) {
		h->slots[i].weight += src->weight;
		h->slots[i].samples += src->samples;
		return;
	}
	/* A new key, as idle as src; its symbol starts at its own ip. */
	h->slots[i] = (struct hotspots_slot){
	    .ip = to,
	    .pid = src->pid,
	    .tid = src->tid,
	    .cpu = src->cpu,
	    .cpumode = src->cpumode,
	    .used = 1,
	    .sym_state = HOTSPOTS_SYM_FOUND + 1,
	    .igen = src->igen,
	    .sym_epoch = h->sym_epochs[src->pid % HOTSPOTS_SYM_EPOCHS],
	    .weight = src->weight,
	    .samples = src->samples,
	    .sym = to,
	};
	key_added(h, i);
	h->used++;
}

/* The slot after some empty one: a scan that starts there and deletes by
 * backward shift sees every key that was not deleted (keys only move
 * towards the scan's position, never behind it). There is always an empty
 * slot: the table is at most 3/4 full. */
static uint32_t scan_start(const struct hotspots *h)
{
	uint32_t i = 0;

	while (h->slots[i].used)
		i = (i + 1) & (h->cap - 1);
	return (i + 1) & (h->cap - 1);
}

/* Fold every key idle for at least intervals whose symbol is known and
 * starts below its ip (all of them: keys made by folding stay put). With
 * until_cap, stop once the table is down to the soft cap. */
static void fold_idle(struct hotspots *h, uint32_t intervals, bool until_cap, hotspots_sym_fn sym,
                      void *arg)
{
	const uint32_t mask = h->cap - 1;
	uint32_t i = scan_start(h);

	for (uint32_t steps = 0; steps < h->cap;) {
		struct hotspots_slot *s = &h->slots[i];
		uint64_t start;

		if (until_cap && h->used <= h->soft_cap)
			return;
		if (s->used && idle_for(h, s, intervals)) {
			/* Keys known to have no symbol are not asked again
			 * here: that is for the rows shown. */
			if (slot_symbol(h, i, NULL, sym, arg, false, &start) ==
			        HOTSPOTS_SYM_FOUND &&
			    start < s->ip) {
				const struct hotspots_slot src = *s;

				slot_delete(h, i);
				fold_into(h, &src, start);
				h->folded++;
				continue; /* slot i holds another key now, or none */
			}
		}
		i = (i + 1) & mask;
		steps++;
	}
}

/* The weight of rank k (0: the lightest) in a[0..n): quickselect, O(n)
 * on average, reordering a. */
static uint64_t kth_weight(struct hotspots_acc *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		/* Median of three as the pivot, then a three-way partition. */
		const size_t mid = lo + (hi - lo) / 2;
		uint64_t x = a[lo].weight, y = a[mid].weight, z = a[hi].weight;
		const uint64_t pivot =
		    x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
		size_t lt = lo, i = lo, gt = hi;

		while (i <= gt) {
			struct hotspots_acc t;

			if (a[i].weight < pivot) {
				t = a[lt], a[lt++] = a[i], a[i++] = t;
			} else if (a[i].weight > pivot) {
				t = a[gt], a[gt] = a[i], a[i] = t;
				if (gt-- == 0)
					break;
			} else {
				i++;
			}
		}
		/* a[lo..lt) < pivot, a[lt..gt] == pivot, a(gt..hi] > pivot */
		if (k < lt)
			hi = lt - 1;
		else if (k > gt)
			lo = gt + 1;
		else
			return pivot;
	}
	return a[k].weight;
}

/* Drop the lightest idle keys into the overflow figures until no more than
 * keep are left. */
static void drop_coldest(struct hotspots *h, uint32_t keep)
{
	const uint32_t mask = h->cap - 1;
	size_t m = 0, below = 0;
	uint64_t cut;
	uint32_t i, k;

	if (scratch_reserve(h, h->used, false))
		return;
	for (i = 0; i < h->cap; i++)
		if (h->slots[i].used && idle_for(h, &h->slots[i], 1))
			h->scratch[m++] =
			    (struct hotspots_acc){.slot = i, .weight = h->slots[i].weight};
	if (m <= keep)
		return;
	k = (uint32_t)(m - keep);
	cut = kth_weight(h->scratch, m, k - 1);
	for (size_t j = 0; j < m; j++)
		below += h->scratch[j].weight < cut;
	/* Drop every idle key lighter than cut, and k - below of those at cut. */
	k -= (uint32_t)below;
	i = scan_start(h);
	for (uint32_t steps = 0; steps < h->cap;) {
		struct hotspots_slot *s = &h->slots[i];

		if (s->used && idle_for(h, s, 1) &&
		    (s->weight < cut || (s->weight == cut && k > 0))) {
			const struct hotspots_slot src = *s;

			if (s->weight == cut)
				k--;
			h->dropped++;
			slot_delete(h, i);
			if (h->drop) {
				h->drop(&src, h->drop_arg);
			} else {
				h->total.overflow_weight += src.weight;
				h->total.overflow_samples += src.samples;
			}
			continue;
		}
		i = (i + 1) & mask;
		steps++;
	}
}

uint32_t hotspots_trim(struct hotspots *h, hotspots_sym_fn sym, void *arg)
{
	const uint32_t before = h->used;
	uint32_t want;

	if (!h->slots || !h->soft_cap || h->used <= h->soft_cap)
		return 0;
	/* Long idle keys all fold; then, if need be, those idle this interval. */
	fold_idle(h, HOTSPOTS_IDLE_INTERVALS, false, sym, arg);
	if (h->used > h->soft_cap)
		fold_idle(h, 1, true, sym, arg);
	/* Dropping loses figures: only the idle keys' share of the cap, so
	 * that a burst of busy keys does not push the history out, and the
	 * table holds at most the cap plus this interval's keys. */
	if (h->used > h->soft_cap)
		drop_coldest(h, h->soft_cap);
	/* Give memory back after a burst, but not to grow again next time:
	 * only from more than twice the size the cap needs, and to no less
	 * than that size, at most half full. */
	want = slots_for(h->soft_cap);
	if (h->cap > 2 * want) {
		uint32_t ncap = h->cap;

		while (ncap / 2 >= want && (uint64_t)h->used * 2 <= ncap / 2)
			ncap /= 2;
		if (ncap < h->cap && hotspots_rehash(h, ncap) == 0) {
			/* The query scratch was sized for the old table. */
			free(h->scratch);
			free(h->fold);
			h->scratch = NULL;
			h->fold = NULL;
			h->scratch_cap = h->fold_cap = 0;
		}
	}
	return before - h->used;
}

size_t hotspots_user_pids(const struct hotspots *h, uint32_t *out, size_t max)
{
	/* The pids last taken, by pid modulo its size: a table of thousands
	 * of keys has a few pids, each taken about once before the sort. */
	uint32_t seen[256];
	size_t n = 0, k = 0;

	memset(seen, 0xff, sizeof(seen)); /* no pid is UINT32_MAX */
	for (uint32_t i = 0; h->slots && i < h->cap && n < max; i++) {
		const struct hotspots_slot *s = &h->slots[i];
		uint32_t *last = &seen[s->pid % ARRAY_SIZE(seen)];

		if (!s->used || hotspots_kernel_mode((enum records_cpumode)s->cpumode) ||
		    *last == s->pid)
			continue;
		*last = s->pid;
		out[n++] = s->pid;
	}
	qsort(out, n, sizeof(*out), util_u32_cmp);
	for (size_t i = 0; i < n; i++)
		if (!k || out[k - 1] != out[i])
			out[k++] = out[i];
	return k;
}

bool hotspots_may_have_pid(const struct hotspots *h, uint32_t pid)
{
	return h->pid_nkeys[pid % HOTSPOTS_SYM_EPOCHS] != 0;
}

uint32_t hotspots_take_pids(struct hotspots *h, const uint32_t *pids, size_t nr_pids,
                            hotspots_take_fn take, void *arg)
{
	/* The pids as a bitmap by pid modulo its size, then the exact test;
	 * the keys of those residues, seen once each, end the scan. */
	uint64_t bits[HOTSPOTS_SYM_EPOCHS / 64] = {0};
	uint32_t taken = 0, left = 0;

	if (!h->slots || !nr_pids)
		return 0;
	for (size_t i = 0; i < nr_pids; i++) {
		const uint32_t b = pids[i] % HOTSPOTS_SYM_EPOCHS;

		if (!(bits[b / 64] >> (b % 64) & 1))
			left += h->pid_nkeys[b];
		bits[b / 64] |= 1ull << (b % 64);
	}
	const uint32_t mask = h->cap - 1;
	const uint32_t one = nr_pids == 1 ? pids[0] + 1 : 0;
	uint32_t i = scan_start(h);
	for (uint32_t steps = 0; left && steps < h->cap;) {
		const uint32_t p1 = h->slot_pid1[i];
		const uint32_t b = (p1 - 1) % HOTSPOTS_SYM_EPOCHS;

		if (!p1 || !(bits[b / 64] >> (b % 64) & 1)) {
			i = (i + 1) & mask;
			steps++;
			continue;
		}
		left--;
		if (one ? p1 == one
		        : bsearch(&(uint32_t){p1 - 1}, pids, nr_pids, sizeof(*pids),
		                  util_u32_cmp) != NULL) {
			const struct hotspots_slot src = h->slots[i];

			slot_delete(h, i);
			if (take)
				take(&src, arg);
			taken++;
			continue; /* slot i holds another key now, or none */
		}
		i = (i + 1) & mask;
		steps++;
	}
	return taken;
}
