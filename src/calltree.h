/* calltree: children and self shares of functions over call chains, and their top call paths. */
#ifndef PFMTOP_CALLTREE_H
#define PFMTOP_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Like perf top --children, for a few target functions (the hotspot rows
 * shown): over the chains of a span, each a list of function ids from the
 * leaf (the sampled function) to the root,
 *
 *   children(F) = samples of the chains that hold F anywhere (once per
 *                 chain, however often F recurses in it)
 *   self(F)     = samples of the chains whose leaf is F
 *
 * and the heaviest distinct call paths through F: callers (F, its caller,
 * its caller's caller ... toward the root) and callees (F, what it called
 * ... down to the leaf), from F's first place counted from the leaf, cut at
 * CALLTREE_DEPTH functions (paths equal up to the cut are one path).
 *
 * Function ids are the caller's, dense below nr_funcs. A chain also has a
 * class (e.g. its pid, when rows are per process): a target matches a
 * frame when both the id and the class are its own. One pass over the
 * chains (calltree_add() each), O(frames) with one array lookup per frame,
 * and for each chain through a target its two paths added up in a hash of
 * the distinct paths; the top ones are picked from those at the end.
 */

#define CALLTREE_PATHS 5  /* paths kept per target and direction */
#define CALLTREE_DEPTH 16 /* functions kept per path */

struct calltree_path {
	uint64_t samples;
	uint32_t nr;
	uint32_t func[CALLTREE_DEPTH]; /* [0] is the target itself */
};

struct calltree_result {
	uint64_t children, self;
	int nr_callers, nr_callees;
	struct calltree_path callers[CALLTREE_PATHS], callees[CALLTREE_PATHS];
};

/* A function of the chains counted (calltree_count()), with its class. */
struct calltree_func {
	uint32_t func;
	uint64_t cls;
	uint64_t children, self;
	uint64_t word;  /* the caller's word of the frame where it was first met */
	uint32_t pid;   /* the process of the first chain that held it */
	bool pids;      /* chains of other processes hold it too */
	uint32_t stamp; /* the chain it was last counted in */
};

struct calltree_target;
struct calltree_cand;

struct calltree {
	struct calltree_target *tg;
	int nr_targets, cap_targets;
	int32_t *by_func; /* the first target of each function id, -1 none */
	uint32_t nr_funcs, cap_funcs;
	uint32_t chain;             /* chains added, for the once-per-chain stamps */
	uint64_t total;             /* samples of the chains added */
	struct calltree_cand *cand; /* the distinct paths */
	size_t nr_cand, cap_cand;
	uint32_t *slots; /* a hash of them: index + 1, 0 empty */
	uint32_t cap_slots;
	/* calltree_count(): every function met, by (func, cls) */
	struct calltree_func *fn;
	uint32_t nr_fn, cap_fn;
	uint32_t *fn_slots; /* index + 1, 0 empty */
	uint32_t cap_fn_slots;
	uint32_t fn_chain; /* chains counted */
	uint64_t fn_total; /* their samples */
};

/* Start a span over function ids below nr_funcs, for nr targets: func[i]
 * of class cls[i]. Keeps memory from the last use. 0 or -ENOMEM. */
int calltree_begin(struct calltree *t, uint32_t nr_funcs, const uint32_t *func, const uint64_t *cls,
                   int nr);

/* One chain (function ids, leaf first; ids >= nr_funcs match nothing) of
 * class cls, seen samples times. Returns 0 or -ENOMEM (its paths are then
 * left out; the counts are kept). */
int calltree_add(struct calltree *t, const uint32_t *funcs, uint32_t nr, uint64_t cls,
                 uint64_t samples);

/* The results, one per target (out[0..nr) as given to calltree_begin()):
 * counts and paths, heaviest path first. */
void calltree_finish(struct calltree *t, struct calltree_result *out);

/*
 * Every function of the chains, not only targets (the rows of children
 * mode, as perf report --children lists them): calltree_count_begin(),
 * then calltree_count() each chain, then t->fn[0..t->nr_fn) in the order
 * the functions were first met. Kept apart from the targets' counts and
 * paths, so that one span can be counted, its heaviest functions picked,
 * and those made targets of calltree_begin().
 */
void calltree_count_begin(struct calltree *t);

/* One chain of process pid, class cls, seen samples times: funcs[0..nr)
 * leaf first, funcs[0] the sampled function when leaf (else the frames
 * where the sample landed were left out, and no function gets its self).
 * words[i] (or 0 without words) is kept with a function where it is
 * first met. Each function counts once a chain. 0 or -ENOMEM (then the
 * functions not yet known are left out; the total is kept). */
int calltree_count(struct calltree *t, const uint32_t *funcs, const uint64_t *words, uint32_t nr,
                   bool leaf, uint64_t cls, uint32_t pid, uint64_t samples);

/* The counted function func of class cls, or NULL. */
const struct calltree_func *calltree_counted(const struct calltree *t, uint32_t func, uint64_t cls);

void calltree_fini(struct calltree *t);

#endif
