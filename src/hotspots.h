/* hotspots: samples aggregated by (pid, ip), weighted by period, for the top-IP view. */
#ifndef PFMTOP_HOTSPOTS_H
#define PFMTOP_HOTSPOTS_H

#include "records.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One open-addressing hash (linear probing, power-of-two capacity, grown by
 * rehash at 3/4 load) keyed by (pid, tid, ip, cpumode, cpu). Each slot holds
 * two tallies: since the start (or the last hotspots_clear()) and for the
 * current interval. The interval is a generation number, so
 * hotspots_interval_reset() is O(1): a slot's interval tally counts only
 * when its generation is the current one.
 *
 * hotspots_add() never allocates except to grow the table (amortised; the
 * table never shrinks until hotspots_clear()). The CPU is part of the key
 * so that queries can filter by CPU; a query over all CPUs folds the per-CPU
 * slots of one (pid, tid, ip, cpumode) together.
 *
 * Symbols are not this module's business: rows carry the raw ip and
 * cpumode, and the caller resolves the rows it shows. Many IPs map to one
 * symbol, so to rank by symbol:
 *
 *   n = hotspots_top(h, mode, &filter, rows, cap, &tot);  (cap >= rows shown;
 *                                   tot.rows says how many there were in all)
 *   symbolize rows[0..n), then
 *   n = hotspots_merge(rows, n, key_of_symbol, ctx, HOTSPOTS_MERGE_PID);
 *   show rows[0..shown).
 *
 * Ask for more rows than are shown (all of them, tot.rows, when that is
 * affordable): IPs below the cut that belong to a shown symbol are
 * otherwise missing from its weight.
 */

#define HOTSPOTS_DEFAULT_MAX   (1u << 18) /* distinct keys kept before overflow */
#define HOTSPOTS_INITIAL_SLOTS 1024u

/* Aggregate per thread (tid is part of the key) instead of per process. */
#define HOTSPOTS_BY_THREAD 0x1u

struct hotspots_slot {
	uint64_t ip;
	uint32_t pid, tid; /* tid is 0 unless HOTSPOTS_BY_THREAD */
	int32_t cpu;
	uint8_t cpumode; /* enum records_cpumode */
	uint8_t used;
	uint32_t igen;              /* generation of the interval tally */
	uint64_t weight, samples;   /* since the start */
	uint64_t iweight, isamples; /* this interval, valid when igen == gen */
};

/* Figures of one table, interval or since the start. */
struct hotspots_sums {
	uint64_t weight, samples;
	/* Samples (and their weight) that found no slot: the table was at
	 * max_entries, or could not grow. Included in weight/samples above,
	 * never in a row. */
	uint64_t overflow_weight, overflow_samples;
};

/* The aggregation. Fields are read-only for callers. */
struct hotspots {
	struct hotspots_slot *slots;
	uint32_t cap;  /* slots, a power of two */
	uint32_t used; /* distinct keys */
	uint32_t max_entries;
	unsigned flags;
	uint32_t gen;
	bool multi_cpu; /* slots exist for more than one CPU */
	int32_t first_cpu;
	struct hotspots_sums total, interval;
	/* Query scratch, grown on demand (never per sample). */
	struct hotspots_row *scratch;
	size_t scratch_cap;
	uint32_t *fold; /* scratch index by key without the CPU */
	size_t fold_cap;
};

enum hotspots_mode {
	HOTSPOTS_INTERVAL, /* since the last hotspots_interval_reset() */
	HOTSPOTS_TOTAL,    /* since the start (or the last hotspots_clear()) */
};

/* Query-time filter; -1 in a field means "any". */
struct hotspots_filter {
	int cpu;
	int64_t pid;
	int64_t tid; /* only meaningful with HOTSPOTS_BY_THREAD */
};

#define HOTSPOTS_FILTER_ALL ((struct hotspots_filter){.cpu = -1, .pid = -1, .tid = -1})

/* One row of a query. */
struct hotspots_row {
	uint32_t pid, tid;
	uint64_t ip;
	enum records_cpumode cpumode;
	bool kernel; /* cpumode is KERNEL or GUEST_KERNEL */
	int cpu;     /* the filter's CPU, or -1 when folded over CPUs */
	uint64_t weight, samples;
	double share; /* percent of the filtered total weight, 0..100 */
	uint64_t key; /* hotspots_merge(): the group key; 0 from hotspots_top() */
	int merged;   /* rows folded into this one (1 for a plain row) */
};

/* Totals a query reports beside its rows. */
struct hotspots_totals {
	uint64_t weight, samples; /* over the rows that passed the filter */
	size_t rows;              /* rows that passed the filter (after folding CPUs) */
	struct hotspots_sums all; /* the unfiltered table (mode's), overflow included */
};

/*
 * Set h up: flags is 0 or HOTSPOTS_BY_THREAD; max_entries bounds the
 * distinct keys (0 = HOTSPOTS_DEFAULT_MAX). Returns 0 or -ENOMEM.
 */
int hotspots_init(struct hotspots *h, unsigned flags, uint32_t max_entries);

/* Free everything; h may be initialised again. Safe on a zeroed h. */
void hotspots_fini(struct hotspots *h);

/* True for the cpumodes whose IPs are kernel addresses. */
bool hotspots_kernel_mode(enum records_cpumode cpumode);

/*
 * Count one sample: weight period (0 counts as 1: every sample weighs
 * something), in both tallies. cpumode is misc & PERF_RECORD_MISC_CPUMODE_MASK
 * (an enum, not bits). Returns 0, or -ENOSPC when the sample went to the
 * overflow figures (table at max_entries, or -ENOMEM growing it).
 */
int hotspots_add(struct hotspots *h, uint32_t pid, uint32_t tid, uint64_t ip,
		 enum records_cpumode cpumode, int cpu, uint64_t period);

/* Start a new interval: O(1). Call after the interval has been rendered. */
void hotspots_interval_reset(struct hotspots *h);

/* Forget everything (both tallies), keeping the table's memory. */
void hotspots_clear(struct hotspots *h);

/*
 * The n heaviest rows of mode that pass filter (NULL = all), heaviest
 * first; ties broken by pid, tid, ip, cpumode, so the order does not depend
 * on the hash layout. Without a CPU in the filter, the per-CPU slots of one
 * (pid, tid, ip, cpumode) are folded into one row (cpu -1). share is the
 * row's percentage of the filtered weight. tot (may be NULL) gets the
 * totals. Returns the number of rows written (<= n), or -ENOMEM (scratch).
 */
int hotspots_top(struct hotspots *h, enum hotspots_mode mode, const struct hotspots_filter *filter,
		 struct hotspots_row *out, int n, struct hotspots_totals *tot);

/* The group key of a row (e.g. a symbol's id after symbolization); rows
 * whose key is 0 are never merged. */
typedef uint64_t (*hotspots_key_fn)(const struct hotspots_row *row, void *arg);

/* Merge only rows of the same pid (and tid): group by (pid, key). */
#define HOTSPOTS_MERGE_PID 0x1u

/*
 * Merge rows[0..n) that share key (and pid/tid with HOTSPOTS_MERGE_PID)
 * into one row each: weight, samples and share summed, merged counting the
 * rows folded; ip, cpumode, kernel and pid/tid are those of the heaviest
 * row of the group, cpu is kept when all agree, else -1. The result is
 * re-sorted like hotspots_top() and sets each row's key. In place, no
 * allocation. Returns the new number of rows.
 */
int hotspots_merge(struct hotspots_row *rows, int n, hotspots_key_fn key, void *arg,
		   unsigned flags);

#endif
