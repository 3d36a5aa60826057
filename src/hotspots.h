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
 * hotspots_add() never allocates except to grow the table (amortised). The
 * CPU is part of the key so that queries can filter by CPU; a query over
 * all CPUs folds the per-CPU slots of one (pid, tid, ip, cpumode) together.
 *
 * Symbols are not this module's business: rows carry the raw ip and
 * cpumode, and the caller resolves the rows it shows. Many IPs map to one
 * symbol, so to rank by symbol:
 *
 *   n = hotspots_top(h, mode, &filter, rows, cap, &tot);  (cap >= rows shown;
 *                                   tot.rows says how many there were in all)
 *   n = hotspots_merge(rows, n, key_of_symbol, ctx, HOTSPOTS_MERGE_PID);
 *   name rows[0..shown), show them; then hotspots_trim(), then
 *   hotspots_interval_reset().
 *
 * Ask for more rows than are shown (all of them, tot.rows, when that is
 * affordable): IPs below the cut that belong to a shown symbol are
 * otherwise missing from its weight. key_of_symbol can use
 * hotspots_symbol(), which remembers each slot's symbol so that a key is
 * resolved once, not on every query.
 *
 * Bounded memory: with a soft cap (hotspots_init()), hotspots_trim() folds
 * keys that have been idle for a few intervals into the key of their
 * symbol's first address (same pid, tid, cpumode and CPU), so that the
 * table stays near the cap while the since-start figures of each symbol
 * stay exact. Idle keys it cannot fold (no symbol) are, when more than the
 * cap, dropped into the overflow figures, coldest first.
 */

#define HOTSPOTS_DEFAULT_MAX   (1u << 18) /* distinct keys kept before overflow */
#define HOTSPOTS_INITIAL_SLOTS 1024u
#define HOTSPOTS_MAX_CPU       INT16_MAX /* higher CPU numbers go to the overflow figures */
/* hotspots_trim() folds keys first after this many intervals without a sample. */
#define HOTSPOTS_IDLE_INTERVALS 3u
/* A key whose symbol was HOTSPOTS_SYM_UNKNOWN is asked again after this many intervals. */
#define HOTSPOTS_RETRY_INTERVALS 4u
/* Symbol generations, one per pid modulo this (hotspots_symbols_changed()). */
#define HOTSPOTS_SYM_EPOCHS 4096u

/* Aggregate per thread (tid is part of the key) instead of per process. */
#define HOTSPOTS_BY_THREAD 0x1u

/* One key and its tallies: 64 bytes. */
struct hotspots_slot {
	uint64_t ip;
	uint32_t pid, tid;  /* tid is 0 unless HOTSPOTS_BY_THREAD */
	uint32_t igen;      /* generation of the interval tally */
	uint32_t isamples;  /* this interval, valid when igen == gen (saturates) */
	uint32_t sym_epoch; /* the pid's symbol epoch when sym was cached */
	int16_t cpu;        /* -1 .. HOTSPOTS_MAX_CPU */
	uint8_t cpumode;    /* enum records_cpumode */
	uint8_t used : 1;
	uint8_t sym_state : 2;    /* the cached symbol: 0 = none, else enum hotspots_sym + 1 */
	uint64_t weight, samples; /* since the start */
	uint64_t iweight;         /* this interval, valid when igen == gen */
	uint64_t sym;             /* FOUND: the symbol's start; UNKNOWN: the gen asked */
};

/* Figures of one table, interval or since the start. */
struct hotspots_sums {
	uint64_t weight, samples;
	/* Samples (and their weight) that found no slot (the table was at
	 * max_entries, or could not grow) or whose key hotspots_trim()
	 * dropped. Included in weight/samples above, never in a row. */
	uint64_t overflow_weight, overflow_samples;
};

struct hotspots_acc; /* query scratch: one folded row's sums */

/*
 * Per-instruction histograms for annotate: a watch counts, beside the
 * table, every sample whose ip falls in [lo, hi) (user addresses of one
 * pid, or kernel addresses of any), by exact ip. Only the few functions
 * being annotated are watched, so a sample costs one test when there is no
 * watch. A watch keeps HOTSPOTS_WATCH_IPS distinct addresses at most (a
 * function's instructions); samples past that go to its overflow count.
 */
#define HOTSPOTS_MAX_WATCH 8
#define HOTSPOTS_WATCH_IPS 4096u /* a power of two */

struct hotspots_watch_ip {
	uint64_t ip, weight, samples; /* samples 0: an empty slot */
};

struct hotspots_watch {
	bool used;
	bool kernel;  /* kernel addresses of every pid; else user addresses of pid */
	bool partial; /* counted only from its start: the table had folded or dropped
	               * keys by then, so it could not give the past exactly */
	uint32_t pid;
	uint64_t lo, hi;
	struct hotspots_watch_ip *ips; /* HOTSPOTS_WATCH_IPS slots, open addressing */
	uint32_t nr;                   /* distinct addresses */
	uint64_t weight, samples;      /* since the start (or its start) */
	uint64_t overflow;             /* samples that found no room */
};

/* A key leaving the table with its since-start tallies (hotspots_take_pids(),
 * and hotspots_trim() when drop is set): the caller keeps its figures. */
typedef void (*hotspots_take_fn)(const struct hotspots_slot *s, void *arg);

/* The aggregation. Fields are read-only for callers, but for drop. */
struct hotspots {
	struct hotspots_slot *slots;
	uint32_t *slot_pid1; /* each slot's pid + 1, 0 when empty: a pid's keys
	                      * are found without reading whole slots */
	uint32_t cap;        /* slots, a power of two */
	uint32_t used;       /* distinct keys */
	uint32_t max_entries;
	uint32_t soft_cap; /* hotspots_trim() target, 0 = none */
	unsigned flags;
	uint32_t gen;
	bool multi_cpu; /* slots exist for more than one CPU */
	int32_t first_cpu;
	struct hotspots_sums total, interval;
	/* Query scratch, grown on demand (never per sample). */
	struct hotspots_acc *scratch;
	size_t scratch_cap;
	uint32_t *fold; /* scratch index by key without the CPU */
	size_t fold_cap;
	/* Cached symbols: a slot's is valid while sym_epochs[pid % N] is the
	 * value it was cached with. */
	uint32_t sym_clock;
	uint32_t sym_epochs[HOTSPOTS_SYM_EPOCHS];
	/* Keys in the table by pid % HOTSPOTS_SYM_EPOCHS. */
	uint32_t pid_nkeys[HOTSPOTS_SYM_EPOCHS];
	/* What hotspots_trim() did, since hotspots_init() (for tests and figures). */
	uint64_t folded, dropped;
	struct hotspots_watch watch[HOTSPOTS_MAX_WATCH];
	int nr_watch; /* watches in use */
	/* Set by the caller: hotspots_trim() hands the keys it drops to it
	 * instead of adding them to the overflow figures. */
	hotspots_take_fn drop;
	void *drop_arg;
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
	bool by_cpu; /* a row per CPU (cpu set) even when cpu is -1 */
};

#define HOTSPOTS_FILTER_ALL ((struct hotspots_filter){.cpu = -1, .pid = -1, .tid = -1})

/* Values a row is grouped by in hotspots_group(). */
#define HOTSPOTS_GROUP_MAX 8

/* hotspots_row.mixed: the rows folded into one differ in this field. */
#define HOTSPOTS_MIXED_PID    0x1u
#define HOTSPOTS_MIXED_TID    0x2u
#define HOTSPOTS_MIXED_ATTR   0x4u
#define HOTSPOTS_MIXED_KERNEL 0x8u

/* One row of a query. */
struct hotspots_row {
	uint32_t pid, tid;
	uint64_t ip;
	enum records_cpumode cpumode;
	bool kernel; /* cpumode is KERNEL or GUEST_KERNEL */
	int cpu;     /* the filter's CPU, or -1 when folded over CPUs */
	uint64_t weight, samples;
	double share;  /* percent of the filtered total weight, 0..100 */
	uint64_t key;  /* hotspots_merge(): the group key; 0 from hotspots_top() */
	int merged;    /* rows folded into this one (1 for a plain row) */
	uint32_t slot; /* a slot of the row, for hotspots_symbol(); valid until
	                * the table next changes */
	/* hotspots_group(): the group's values, the distinct pids folded, the
	 * caller's attribute (e.g. a name's id), and which of pid, tid, attr
	 * and kernel differ between the rows folded (HOTSPOTS_MIXED_*). */
	uint64_t group[HOTSPOTS_GROUP_MAX];
	uint32_t pids;
	uint64_t attr;
	unsigned mixed;
	uint32_t retired; /* the caller's: 1 + its entry for a row not of the table, else 0 */
};

/* Totals a query reports beside its rows. */
struct hotspots_totals {
	uint64_t weight, samples; /* over the rows that passed the filter */
	size_t rows;              /* rows that passed the filter (after folding CPUs) */
	struct hotspots_sums all; /* the unfiltered table (mode's), overflow included */
};

/*
 * Set h up: flags is 0 or HOTSPOTS_BY_THREAD; max_entries bounds the
 * distinct keys (0 = HOTSPOTS_DEFAULT_MAX); soft_cap is the number of keys
 * hotspots_trim() brings the table back to (0: never trim). Returns 0 or
 * -ENOMEM.
 */
int hotspots_init(struct hotspots *h, unsigned flags, uint32_t max_entries, uint32_t soft_cap);

/* hotspots_watch.c: count one sample in the watches that take it (from
 * hotspots_add(), when there are watches). */
void hotspots_watch_sample(struct hotspots *h, uint32_t pid, uint64_t ip,
                           enum records_cpumode cpumode, uint64_t weight);

/* Free everything; h may be initialised again. Safe on a zeroed h. */
void hotspots_fini(struct hotspots *h);

/* True for the cpumodes whose IPs are kernel addresses. */
bool hotspots_kernel_mode(enum records_cpumode cpumode);

/*
 * Count one sample: weight period (0 counts as 1: every sample weighs
 * something), in both tallies. cpumode is misc & PERF_RECORD_MISC_CPUMODE_MASK
 * (an enum, not bits); cpu is -1 .. HOTSPOTS_MAX_CPU. Returns 0, or -ENOSPC
 * when the sample went to the overflow figures (table at max_entries,
 * -ENOMEM growing it, or a CPU out of range).
 */
int hotspots_add(struct hotspots *h, uint32_t pid, uint32_t tid, uint64_t ip,
                 enum records_cpumode cpumode, int cpu, uint64_t period);

/* The slot holding a key (tid is ignored without HOTSPOTS_BY_THREAD), or
 * NULL: what hotspots_add() would count the sample in. Valid until the
 * table next changes. */
const struct hotspots_slot *hotspots_find(const struct hotspots *h, uint32_t pid, uint32_t tid,
                                          uint64_t ip, enum records_cpumode cpumode, int cpu);

/* Start a new interval: O(1). Call after the interval has been rendered. */
void hotspots_interval_reset(struct hotspots *h);

/* Forget everything (both tallies and cached symbols), keeping the table's memory. */
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

/* qsort() order of rows: heaviest first, then by identity. */
int hotspots_row_cmp_weight(const void *pa, const void *pb);

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

/* Fill group[0..HOTSPOTS_GROUP_MAX) (zeroed before the call) with the
 * values row is grouped by, and may set row->attr. */
typedef void (*hotspots_group_fn)(struct hotspots_row *row, uint64_t *group, void *arg);

/*
 * Merge rows[0..n) whose group values are equal into one row each: the
 * general form of hotspots_merge(), for grouping keys such as perf's
 * --sort (symbol, module, command, pid, tid, cpu; the caller turns each
 * into numbers). weight, samples, share and merged are summed, so shares
 * stay exact: a group's share is the sum of its rows'. pids counts the
 * distinct pids folded (rows given with pids 0 count as 1 pid each time:
 * pass rows of hotspots_top() or of an earlier hotspots_group()). ip,
 * cpumode, slot, pid and tid are those of the heaviest row of the group;
 * mixed says which of pid, tid, attr and kernel were not the same in all,
 * kernel is true only when all were kernel rows, cpu is kept when all
 * agree, else -1. Re-sorted like hotspots_top(). In place; returns the new
 * number of rows.
 */
int hotspots_group(struct hotspots_row *rows, int n, hotspots_group_fn fn, void *arg);

/* hotspots_group() with the rows left in no particular order: for a
 * caller that groups them again. */
int hotspots_group_any_order(struct hotspots_row *rows, int n, hotspots_group_fn fn, void *arg);

/* What a caller knows of the symbol of a row (hotspots_sym_fn). */
enum hotspots_sym {
	HOTSPOTS_SYM_FOUND,   /* *start: the symbol's first address, <= row->ip */
	HOTSPOTS_SYM_NONE,    /* no symbol, for as long as the pid's symbols stay */
	HOTSPOTS_SYM_UNKNOWN, /* no symbol yet (mappings or a JIT map may come): ask again later */
};

/* Resolve the symbol of a row (pid, ip, cpumode and kernel are set). It
 * must not change the table. */
typedef enum hotspots_sym (*hotspots_sym_fn)(const struct hotspots_row *row, uint64_t *start,
                                             void *arg);

/*
 * The symbol of row, a row of h from hotspots_top() (or hotspots_merge()
 * of such rows, before h changes): the one cached in the row's slot, else
 * sym()'s answer, then cached. A cached answer is used until
 * hotspots_symbols_changed() of the row's pid; an UNKNOWN one only for
 * HOTSPOTS_RETRY_INTERVALS intervals. A row that does not match its slot
 * (h changed) is asked of sym() and nothing is cached. *start is set when
 * FOUND.
 */
enum hotspots_sym hotspots_symbol(struct hotspots *h, const struct hotspots_row *row,
                                  hotspots_sym_fn sym, void *arg, uint64_t *start);

/*
 * Every row of mode that passes f, heaviest first, into *rows (grown, or
 * given back when far too big, to hold them and reserve more; *cap is its
 * size): as hotspots_top() with room for all, but with sym (may be NULL)
 * the slots of one (pid, tid, cpumode, CPU) in one symbol are folded into
 * one row, so that the rows are as many as the functions, not the
 * addresses. Returns the number of rows, or -ENOMEM.
 */
int hotspots_top_all(struct hotspots *h, enum hotspots_mode mode, const struct hotspots_filter *f,
                     hotspots_sym_fn sym, void *arg, struct hotspots_row **rows, int *cap,
                     int reserve, struct hotspots_totals *tot);

/* pid's symbols changed (exec, a new mapping, a new process with a
 * recycled pid): its cached symbols are not used again. O(1). */
void hotspots_symbols_changed(struct hotspots *h, uint32_t pid);

/*
 * Bring the table back to its soft cap, when it is over it (else do
 * nothing): call it once per interval, after the interval has been queried
 * and before hotspots_interval_reset(). First, keys without a sample for
 * HOTSPOTS_IDLE_INTERVALS intervals whose symbol sym() finds (through
 * hotspots_symbol()'s cache) are folded into the key (pid, tid, cpumode,
 * cpu, symbol start); then, if still over the cap, keys idle since this
 * interval, until at the cap. If the idle keys left (no symbol to fold
 * into) are still more than the cap, the coldest of them (least weight)
 * are dropped (to h->drop, else into the overflow figures) down to the cap: the table then
 * holds at most the cap plus this interval's keys, and a burst of new keys
 * does not push the history out. Keys with a sample this interval are
 * never touched, so interval figures do not change, nor do totals;
 * since-start figures merged by symbol do not change while nothing is
 * dropped. sym may be NULL (nothing folds). The table's memory shrinks
 * back when it had grown far past the cap. Returns the number of keys
 * removed.
 */
uint32_t hotspots_trim(struct hotspots *h, hotspots_sym_fn sym, void *arg);

/* False when no key of pid is in the table (true: there may be, for a key
 * of a pid equal to it modulo HOTSPOTS_SYM_EPOCHS). */
bool hotspots_may_have_pid(const struct hotspots *h, uint32_t pid);

/*
 * Remove every key of the nr_pids pids (sorted, each once; user and kernel
 * keys alike), handing each to take() first: e.g. for processes that
 * exited, whose keys the caller keeps under the names they had. One pass
 * over the table at most (it stops once every key of a pid equal to one
 * of them modulo HOTSPOTS_SYM_EPOCHS is seen); returns the number taken.
 */
uint32_t hotspots_take_pids(struct hotspots *h, const uint32_t *pids, size_t nr_pids,
                            hotspots_take_fn take, void *arg);

/*
 * The pids that user-mode keys belong to (their rows need those processes'
 * mappings for names), sorted, each once, into out (room for max; h->used
 * always suffices). Returns how many.
 */
size_t hotspots_user_pids(const struct hotspots *h, uint32_t *out, size_t max);

/*
 * Watch [lo, hi): user addresses of pid (kernel false) or kernel addresses
 * of every pid. The samples the table already holds there are counted in at
 * once when the table never folded or dropped a key (else the watch is
 * partial: from now on). The same range asked again is the same watch.
 * Returns its index, or -ENOSPC (HOTSPOTS_MAX_WATCH in use), -EINVAL,
 * -ENOMEM.
 */
int hotspots_watch(struct hotspots *h, uint32_t pid, bool kernel, uint64_t lo, uint64_t hi);

/* Stop watch i and free its memory. */
void hotspots_unwatch(struct hotspots *h, int i);

/* The addresses watch i counted, into out (at most max), in no order.
 * Returns how many. */
size_t hotspots_watch_ips(const struct hotspots *h, int i, struct hotspots_watch_ip *out,
                          size_t max);

#endif
