/* profile_hot: hotspot rows grouped by perf's keys, and call trees (children, self, paths) for -g.
 */
#include "profile_priv.h"

#include "demangle.h"
#include "records.h"
#include "stacks.h"
#include "util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- interned strings: a name as a small number ---- */

struct strtab_slot {
	uint64_t hash;
	uint32_t id; /* 0: empty */
};

/* Distinct strings, each an id from 1, kept in one arena. */
struct profile_strtab {
	struct strtab_slot *slots;
	uint32_t cap, nr;
	char *arena;
	size_t used, size;
	uint32_t *off; /* by id - 1: where its text starts */
	uint32_t cap_off;
	size_t max; /* bytes the arena may reach (0: UINT32_MAX) */
};

static uint64_t strtab_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h ^ h >> 31;
}

static void strtab_clear(struct profile_strtab *t)
{
	if (t->slots)
		memset(t->slots, 0, t->cap * sizeof(*t->slots));
	t->nr = 0;
	t->used = 0;
}

static void strtab_free(struct profile_strtab *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t->arena);
	free(t->off);
	free(t);
}

static const char *strtab_text(const struct profile_strtab *t, uint32_t id)
{
	return id && id <= t->nr ? t->arena + t->off[id - 1] : "";
}

static int strtab_grow(struct profile_strtab *t)
{
	const uint32_t cap = t->cap ? t->cap * 2 : 1024;
	struct strtab_slot *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->cap; i++) {
		uint32_t k;

		if (!t->slots[i].id)
			continue;
		for (k = (uint32_t)t->slots[i].hash & (cap - 1); s[k].id; k = (k + 1) & (cap - 1))
			;
		s[k] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->cap = cap;
	return 0;
}

/* The id of s[0..len) (added when new), or 0 when out of memory. */
static uint32_t strtab_id(struct profile_strtab *t, const char *s, size_t len)
{
	const uint64_t h = strtab_hash(s, len);
	uint32_t k;

	if ((t->nr + 1) * 2 > t->cap && strtab_grow(t))
		return 0;
	for (k = (uint32_t)h & (t->cap - 1); t->slots[k].id; k = (k + 1) & (t->cap - 1)) {
		const char *o = strtab_text(t, t->slots[k].id);

		if (t->slots[k].hash == h && !strncmp(o, s, len) && o[len] == '\0')
			return t->slots[k].id;
	}
	if (t->used + len + 1 > t->size) {
		const size_t max = t->max ? t->max : UINT32_MAX;
		size_t size = t->size ? t->size * 2 : 65536;
		char *a;

		while (size < t->used + len + 1)
			size *= 2;
		if (size > max)
			size = max;
		if (size < t->used + len + 1 || !(a = realloc(t->arena, size)))
			return 0;
		t->arena = a;
		t->size = size;
	}
	if (t->nr == t->cap_off) {
		uint32_t cap = t->cap_off ? t->cap_off * 2 : 1024;
		uint32_t *o = realloc(t->off, cap * sizeof(*o));

		if (!o)
			return 0;
		t->off = o;
		t->cap_off = cap;
	}
	memcpy(t->arena + t->used, s, len);
	t->arena[t->used + len] = '\0';
	t->off[t->nr] = (uint32_t)t->used;
	t->used += len + 1;
	t->slots[k] = (struct strtab_slot){.hash = h, .id = ++t->nr};
	return t->nr;
}

static uint32_t strtab_str(struct profile_strtab *t, const char *s)
{
	return strtab_id(t, s, strlen(s));
}

/* ---- grouping ---- */

static struct profile_tree *tree_of(struct profile *p);
static void tree_age(struct profile *p);
static uint32_t func_id(struct profile_tree *t, bool kernel, const char *module, const char *name);
static uint32_t frame_func(struct profile_tree *t, uint32_t pid, uint64_t ip, bool kernel,
                           bool *unknown);
static uint32_t module_of_func(const struct profile_tree *t, uint32_t func);

static struct profile_strtab *names_of(struct profile *p)
{
	if (!p->names)
		p->names = calloc(1, sizeof(*p->names));
	return p->names;
}

static uint32_t comm_id(struct profile *p, uint32_t pid, bool kernel)
{
	char comm[32];

	if (kernel && pid == 0)
		util_strlcpy(comm, "[idle]", sizeof(comm));
	else
		profile_comm_of(p, (pid_t)pid, comm, sizeof(comm));
	return strtab_str(p->names, comm);
}

/* Stage one: per (pid, tid, cpu, symbol), or per address without a symbol;
 * a retired row per (process, function, command). */
static void group_symbol(struct hotspots_row *row, uint64_t *g, void *arg)
{
	struct profile *p = arg;
	struct profile_retired_row rr;

	if (profile_retired_names(p, row, &rr)) {
		g[0] = rr.name;
		g[1] = 0x100u + (unsigned)rr.level;
		g[5] = rr.serial;
		g[6] = strtab_str(p->names, rr.comm);
	} else {
		const uint64_t key = profile_symbol_key(row, p);

		g[0] = key ? key : row->ip;
		g[1] = key ? 0 : 1u + (unsigned)row->cpumode;
	}
	g[2] = row->pid;
	g[3] = row->tid;
	g[4] = (uint64_t)(int64_t)row->cpu;
}

/* The function of a row's address, through the frame cache of the call
 * trees (names resolved once, not every tick); a retired row's own; 0 when
 * out of memory. */
uint32_t profile_row_func(struct profile *p, const struct hotspots_row *row)
{
	struct profile_tree *t = tree_of(p);
	struct profile_retired_row rr;
	bool unknown;

	if (!t)
		return 0;
	if (profile_retired_names(p, row, &rr)) /* its names, in this tick's table */
		return rr.key[0] ? func_id(t, rr.key[0] == 'k', rr.key + 1,
		                           rr.key + 2 + strlen(rr.key + 1))
		                 : 0;
	return frame_func(t, row->pid, row->ip, row->kernel, &unknown);
}

/* Group values that no key has: the row folds into "other". */
#define OTHER_MARK UINT64_MAX

/* Stage two: the keys, in their order; a retired row without the process
 * or the name the keys need goes to "other". */
static void group_keys(struct hotspots_row *row, uint64_t *g, void *arg)
{
	struct profile *p = arg;
	const bool per_pid =
	    hotkeys_has(&p->keys, HOTKEYS_PID) || hotkeys_has(&p->keys, HOTKEYS_TID);
	uint32_t func = UINT32_MAX, serial = 0;
	struct profile_retired_row rr;
	int n = 0;

	if (profile_retired_names(p, row, &rr)) {
		if (rr.level >= 2 || (rr.level && per_pid)) {
			g[0] = g[1] = OTHER_MARK;
			row->attr = 0;
			return;
		}
		row->attr = strtab_str(p->names, rr.comm);
		serial = rr.serial;
	} else {
		row->attr = comm_id(p, row->pid, row->kernel);
	}
	for (int i = 0; i < p->keys.nr && n + 2 <= HOTSPOTS_GROUP_MAX; i++) {
		switch (p->keys.key[i]) {
		case HOTKEYS_SYM:
			if (!row->retired && !profile_symbol_key(row, p)) {
				/* no symbol: the address stays its own row */
				g[n++] = 1u + (unsigned)row->cpumode;
				g[n++] = row->ip;
				break;
			}
			/* by module and name: the same function in a process
			 * that exited and in one that runs */
			if (func == UINT32_MAX)
				func = profile_row_func(p, row);
			g[n++] = 0x10;
			g[n++] = func;
			break;
		case HOTKEYS_DSO:
			if (func == UINT32_MAX)
				func = profile_row_func(p, row);
			g[n++] = module_of_func(p->tree, func);
			break;
		case HOTKEYS_COMM:
			g[n++] = row->attr;
			break;
		case HOTKEYS_PID: /* the process instance: a recycled pid is another */
			g[n++] = row->pid;
			g[n++] = row->retired ? serial : profile_serial_of(p, (pid_t)row->pid);
			break;
		case HOTKEYS_TID:
			g[n++] = row->tid;
			break;
		case HOTKEYS_CPU:
			g[n++] = (uint64_t)(int64_t)row->cpu;
			break;
		case HOTKEYS_NR:
			break;
		}
	}
}

bool profile_row_is_other(const struct hotspots_row *row)
{
	return row->group[0] == OTHER_MARK && row->group[1] == OTHER_MARK;
}

int profile_group_rows(struct profile *p, struct hotspots_row *rows, int n, bool by_cpu)
{
	(void)by_cpu;
	if (!names_of(p))
		return n; /* no memory: stay per (pid, address) */
	strtab_clear(p->names);
	tree_age(p);
	n = hotspots_group_any_order(rows, n, group_symbol, p);
	return hotspots_group(rows, n, group_keys, p);
}

void profile_fill_row(struct profile *p, const struct hotspots_row *row, struct model_hotspot *h)
{
	const struct hotkeys *k = &p->keys;
	struct symbols_result r;

	struct profile_retired_row rr = {.level = 0};
	int level = 0;

	if (profile_retired_names(p, row, &rr)) {
		const char *module = rr.key[0] ? rr.key + 1 : "";
		const char *name = rr.key[0] ? rr.key + 2 + strlen(rr.key + 1) : "";

		level = rr.level;
		r = (struct symbols_result){.status = SYMBOLS_FOUND};
		util_strlcpy(r.name, name[0] ? name : "[unknown]", sizeof(r.name));
		util_strlcpy(r.module, module, sizeof(r.module));
	} else {
		profile_resolve(p, row, &r);
	}
	h->share = row->share;
	h->samples = row->samples;
	h->weight = row->weight;
	h->pid = row->mixed & HOTSPOTS_MIXED_PID || level ? -1 : (pid_t)row->pid;
	h->tid = hotkeys_has(k, HOTKEYS_TID) ? (pid_t)row->tid : -1;
	h->cpu = row->cpu;
	h->processes = (int)(row->pids ? row->pids : 1);
	h->kernel = row->kernel;
	h->ip = row->retired ? 0 : row->ip; /* gone: nothing to annotate */
	if (!hotkeys_has(k, HOTKEYS_SYM))
		h->symbol[0] = '\0';
	else if (p->cfg->raw_names || row->kernel)
		util_strlcpy(h->symbol, r.name, sizeof(h->symbol));
	else
		demangle(r.name, h->symbol, sizeof(h->symbol));
	if (hotkeys_has(k, HOTKEYS_SYM) || hotkeys_has(k, HOTKEYS_DSO))
		util_strlcpy(h->module, r.module, sizeof(h->module));
	if (!(row->mixed & HOTSPOTS_MIXED_ATTR))
		util_strlcpy(h->comm, strtab_text(p->names, (uint32_t)row->attr), sizeof(h->comm));
}

/* ---- call trees ---- */

/* A frame's function, cached by (pid, address): kernel addresses under
 * pid 0. epoch is the pid's symbol epoch of the hotspot table when it was
 * resolved (exec and new mappings change it). */
struct frame_slot {
	uint64_t ip;
	uint32_t pid; /* + 1; 0: empty */
	uint32_t epoch;
	uint32_t func : 29; /* below FUNCS_MAX */
	uint32_t kernel : 1, unknown : 1;
	uint32_t found : 1; /* a symbol holds ip, at offset aux */
	uint32_t aux;       /* unknown: the tick it was asked; found: ip's offset */
};

/* A projected id's names as this tick's model keeps them (model_frame). */
struct frame_name {
	uint32_t gen; /* profile_tree.name_gen when set */
	uint32_t symbol, module;
	bool kernel;
};

/*
 * The bounds of what the call trees keep (README, "Memory"). A frame cache
 * that is full starts over at once (the function ids stay). The names of
 * functions and the chains as functions hold ids that go on from tick to
 * tick, so they start over only between ticks: when a tick begins with
 * three quarters of a bound in use, everything is dropped and found again
 * from the samples (tree_age()). Within a tick they stop at the bound: a
 * function past it is "[unknown]", a chain past it counts in the totals
 * without its paths. Shares never change: they come from the samples,
 * which are kept apart (hotspots, stacks).
 */
#define FRAME_CACHE_MAX (1u << 17) /* frames cached (2^18 slots, 6 MiB) */
#define FUNCS_MAX       (1u << 17) /* distinct functions before new ones are one */
#define NAMES_BYTES_MAX (4u << 20) /* bytes of the functions' names */
#define MODULES_MAX     (1u << 20) /* bytes of module names */
#define CHAINS_MAX      (2u << 20) /* words of chains as functions (8 MiB) */
#define CHAIN_RETRIES   3u         /* a chain with unknown frames is resolved again */
_Static_assert(FUNCS_MAX < (1u << 29), "a frame slot's func holds any function id");
_Static_assert(sizeof(struct frame_slot) == 24, "a frame slot is 24 bytes");

/* A chain of the span, resolved: where its functions are in chains. */
struct tree_chain {
	size_t off;
	uint64_t cls, samples;
};

struct profile_tree {
	uint64_t folds;                /* times tree_age() started over */
	struct profile_strtab funcs;   /* "k|u" module NUL name: a function's id */
	struct profile_strtab modules; /* module names */
	uint32_t *module_of;           /* by function id */
	bool *kernel_of;
	uint32_t cap_of;
	struct frame_slot *frames;
	uint32_t cap_frames, nr_frames;
	/* Each chain's functions, leaf first, found once: [nr, id...] at the
	 * offset its stacks key's word holds. */
	uint32_t *chains;
	size_t nr_chains, cap_chains;
	struct calltree ct;
	/* this tick */
	uint32_t *proj; /* scratch: a chain as projected ids */
	uint32_t cap_proj;
	struct frame_name *names; /* by projected id: named once a tick */
	uint32_t cap_names, name_gen;
	bool by_sym, by_dso, by_pid, by_comm;
	int64_t filter_pid;
	struct profile *p;
	/* children mode, this tick: the chains walked once, for the paths */
	struct tree_chain *walked;
	size_t nr_walked, cap_walked;
	uint64_t *words;        /* scratch: the addresses of a counted chain's frames */
	uint8_t *module_kernel; /* by module id: met in kernel frames */
	uint32_t cap_module_kernel;
	bool hide_kernel, hide_user;
};

static struct profile_tree *tree_of(struct profile *p)
{
	struct profile_tree *t = p->tree;

	if (!t) {
		t = p->tree = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		t->p = p;
		t->funcs.max = NAMES_BYTES_MAX;
		t->modules.max = MODULES_MAX;
		t->proj = malloc(STACKS_MAX_FRAMES * sizeof(*t->proj));
		t->words = malloc(STACKS_MAX_FRAMES * sizeof(*t->words));
		t->cap_proj = t->proj && t->words ? STACKS_MAX_FRAMES : 0;
	}
	return t;
}

static uint32_t module_of_func(const struct profile_tree *t, uint32_t func)
{
	return t && func && func < t->cap_of ? t->module_of[func] : 0;
}

static uint64_t frame_hash(uint32_t pid, uint64_t ip)
{
	uint64_t h = (ip ^ (uint64_t)pid << 40) * 0x9e3779b97f4a7c15ull;

	return h ^ h >> 29;
}

static int frames_grow(struct profile_tree *t)
{
	const uint32_t cap = t->cap_frames ? t->cap_frames * 2 : 4096;
	struct frame_slot *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->cap_frames; i++) {
		const struct frame_slot *f = &t->frames[i];
		uint32_t k;

		if (!f->pid)
			continue;
		for (k = (uint32_t)frame_hash(f->pid, f->ip) & (cap - 1); s[k].pid;
		     k = (k + 1) & (cap - 1))
			;
		s[k] = *f;
	}
	free(t->frames);
	t->frames = s;
	t->cap_frames = cap;
	return 0;
}

/* The function id of a name (module, name), made when new; 0 when out of
 * memory or past FUNCS_MAX. */
static uint32_t func_id(struct profile_tree *t, bool kernel, const char *module, const char *name)
{
	char key[SYMBOLS_NAME_MAX + SYMBOLS_MODULE_MAX + 2];
	const size_t ml = strnlen(module, SYMBOLS_MODULE_MAX - 1),
	             nl = strnlen(name, SYMBOLS_NAME_MAX - 1);
	uint32_t id;

	if (t->funcs.nr >= FUNCS_MAX)
		return 0;
	key[0] = kernel ? 'k' : 'u';
	memcpy(key + 1, module, ml);
	key[1 + ml] = '\0';
	memcpy(key + 2 + ml, name, nl);
	id = strtab_id(&t->funcs, key, 2 + ml + nl);
	if (!id)
		return 0;
	if (id >= t->cap_of) {
		uint32_t cap = t->cap_of ? t->cap_of * 2 : 1024;
		uint32_t *m;
		bool *k;

		while (cap <= id)
			cap *= 2;
		m = realloc(t->module_of, cap * sizeof(*m));
		if (m)
			t->module_of = m;
		k = m ? realloc(t->kernel_of, cap * sizeof(*k)) : NULL;
		if (!k)
			return 0;
		t->kernel_of = k;
		t->cap_of = cap;
	}
	t->module_of[id] = strtab_id(&t->modules, module, ml);
	t->kernel_of[id] = kernel;
	return id;
}

/* The cache slot of a frame (kernel ones under key 1, user ones under pid
 * + 1): its own, or the empty one that ends its probe. NULL when out of
 * memory. */
static struct frame_slot *frame_slot_of(struct profile_tree *t, uint32_t key, uint64_t ip,
                                        bool kernel)
{
	uint32_t k;

	if (t->nr_frames >= FRAME_CACHE_MAX) {
		memset(t->frames, 0, t->cap_frames * sizeof(*t->frames));
		t->nr_frames = 0;
	}
	if ((t->nr_frames + 1) * 2 > t->cap_frames && frames_grow(t))
		return NULL;
	for (k = (uint32_t)frame_hash(key, ip) & (t->cap_frames - 1); t->frames[k].pid;
	     k = (k + 1) & (t->cap_frames - 1)) {
		struct frame_slot *f = &t->frames[k];

		if (f->pid == key && f->ip == ip && f->kernel == kernel)
			break;
	}
	return &t->frames[k];
}

/* Cache in f what resolving the frame (key, ip) gave. */
static void frame_set(struct profile_tree *t, struct frame_slot *f, uint32_t key, uint64_t ip,
                      bool kernel, uint32_t epoch, const struct symbols_result *r)
{
	const bool unknown = r->status == SYMBOLS_UNKNOWN && !kernel;
	/* The offset when it fits: a symbol's start is then known without
	 * resolving again. */
	const bool found = r->status == SYMBOLS_FOUND && r->offset <= UINT32_MAX;

	if (!f->pid)
		t->nr_frames++;
	*f = (struct frame_slot){.ip = ip,
	                         .pid = key,
	                         .epoch = epoch,
	                         .func = func_id(t, kernel, r->module, r->name),
	                         .aux = found ? (uint32_t)r->offset : t->p->ticks,
	                         .kernel = kernel,
	                         .unknown = unknown,
	                         .found = found};
}

/* The function of a frame of pid (kernel: of the kernel), cached; *unknown
 * when its process's mappings did not know the address (asked again later). */
static uint32_t frame_func(struct profile_tree *t, uint32_t pid, uint64_t ip, bool kernel,
                           bool *unknown)
{
	struct profile *p = t->p;
	const uint32_t key = (kernel ? 0 : pid) + 1;
	const uint32_t epoch = kernel ? 0 : p->hot.sym_epochs[pid % HOTSPOTS_SYM_EPOCHS];
	struct hotspots_row row = {.pid = pid, .ip = ip, .kernel = kernel, .slot = UINT32_MAX};
	struct symbols_result r;
	struct frame_slot *f = frame_slot_of(t, key, ip, kernel);

	if (!f)
		return 0;
	/* Current, and an unknown one is asked again after a few ticks. */
	if (f->pid && f->epoch == epoch &&
	    (!f->unknown || p->ticks - f->aux < HOTSPOTS_RETRY_INTERVALS)) {
		*unknown = f->unknown;
		return f->func;
	}
	row.cpumode = kernel ? RECORDS_CPUMODE_KERNEL : RECORDS_CPUMODE_USER;
	profile_resolve(p, &row, &r);
	frame_set(t, f, key, ip, kernel, epoch, &r);
	*unknown = f->unknown;
	return f->func;
}

enum hotspots_sym profile_frame_symbol(struct profile *p, const struct hotspots_row *row,
                                       uint64_t *start)
{
	struct profile_tree *t = tree_of(p);
	const uint32_t key = (row->kernel ? 0 : row->pid) + 1;
	const uint32_t epoch = row->kernel ? 0 : p->hot.sym_epochs[row->pid % HOTSPOTS_SYM_EPOCHS];
	struct frame_slot *f = t ? frame_slot_of(t, key, row->ip, row->kernel) : NULL;
	struct symbols_result r;

	if (f && f->pid && f->epoch == epoch && f->found) {
		*start = row->ip - f->aux;
		return HOTSPOTS_SYM_FOUND;
	}
	/* Not known to have a symbol: asked now, as the hotspot table wants
	 * it (its own cache says when to ask again). */
	profile_resolve(p, row, &r);
	if (f)
		frame_set(t, f, key, row->ip, row->kernel, epoch, &r);
	if (r.status == SYMBOLS_FOUND) {
		*start = row->ip - r.offset;
		return HOTSPOTS_SYM_FOUND;
	}
	return row->kernel ? HOTSPOTS_SYM_NONE : HOTSPOTS_SYM_UNKNOWN;
}

/* The functions of a chain, leaf first, context markers left out: stored
 * once and found again through the stacks key's word (offset + 1 in the
 * low 40 bits, retries above). NULL when out of memory. */
static const uint32_t *chain_funcs(struct profile_tree *t, uint32_t pid, const uint64_t *ips,
                                   uint32_t nr, uint64_t *user)
{
	const uint64_t off_mask = (1ull << 40) - 1;
	const bool had_unknown = *user >> 63;
	const uint32_t retries = (uint32_t)(*user >> 40 & 0x7f);
	bool kernel = false, any_unknown = false;
	size_t off;

	if ((*user & off_mask) && (!had_unknown || retries >= CHAIN_RETRIES))
		return t->chains + (*user & off_mask) - 1;
	if (t->nr_chains + nr + 1 > t->cap_chains) {
		size_t cap = t->cap_chains ? t->cap_chains * 2 : 65536;
		uint32_t *c;

		while (cap < t->nr_chains + nr + 1)
			cap *= 2;
		if (cap > CHAINS_MAX)
			cap = CHAINS_MAX;
		if (cap < t->nr_chains + nr + 1 || !(c = realloc(t->chains, cap * sizeof(*c))))
			return NULL;
		t->chains = c;
		t->cap_chains = cap;
	}
	off = t->nr_chains;
	t->chains[off] = 0;
	for (uint32_t i = 0; i < nr; i++) {
		bool unknown;

		if (ips[i] >= PERF_CONTEXT_MAX) {
			kernel =
			    ips[i] == PERF_CONTEXT_KERNEL || ips[i] == PERF_CONTEXT_GUEST_KERNEL;
			continue;
		}
		t->chains[off + 1 + t->chains[off]++] =
		    frame_func(t, pid, ips[i], kernel, &unknown);
		any_unknown |= unknown;
	}
	t->nr_chains += 1 + t->chains[off];
	*user = (uint64_t)(off + 1) | (uint64_t)(retries + ((*user & off_mask) != 0)) << 40 |
	        (uint64_t)any_unknown << 63;
	return t->chains + off;
}

/* A function's id as the keys see it: itself with sym, its module with
 * dso alone, one for all without either. */
static uint32_t project(const struct profile_tree *t, uint32_t func)
{
	if (t->by_sym)
		return func;
	if (t->by_dso)
		return func < t->cap_of ? t->module_of[func] : 0;
	return 0;
}

static uint32_t proj_space(const struct profile_tree *t)
{
	return t->by_sym ? t->funcs.nr + 1 : t->by_dso ? t->modules.nr + 1 : 1;
}

/* A chain's class: what of the keys is the chain's process. */
static uint64_t chain_class(struct profile_tree *t, uint32_t pid)
{
	if (t->by_pid)
		return pid;
	if (t->by_comm)
		return comm_id(t->p, pid, false);
	return 0;
}

/* A resolved chain c (chain_funcs()) of class cls to the call paths'
 * targets: ids as they are with sym a key, else projected. */
static void place_chain(struct profile_tree *t, const uint32_t *c, uint64_t cls, uint64_t samples)
{
	uint32_t n = 0;

	if (t->by_sym) { /* ids as they are */
		calltree_add(&t->ct, c + 1, c[0], cls, samples);
		return;
	}
	/* Modules: calls within one module are one step of its paths. */
	for (uint32_t i = 0; i < c[0]; i++) {
		const uint32_t id = project(t, c[1 + i]);
		if (!n || t->proj[n - 1] != id)
			t->proj[n++] = id;
	}
	calltree_add(&t->ct, t->proj, n, cls, samples);
}

/* A module id met in a frame of the kernel (or not). */
static void mark_module(struct profile_tree *t, uint32_t id, bool kernel)
{
	if (id >= t->cap_module_kernel) {
		uint32_t cap = t->cap_module_kernel ? t->cap_module_kernel : 64;
		uint8_t *k;

		while (cap <= id)
			cap *= 2;
		if (!(k = realloc(t->module_kernel, cap)))
			return;
		memset(k + t->cap_module_kernel, 0, cap - t->cap_module_kernel);
		t->module_kernel = k;
		t->cap_module_kernel = cap;
	}
	t->module_kernel[id] |= kernel;
}

/* Pass one over the span's chains: every function on them counted (its
 * children and self), the hidden side's frames (-K, -U) left out, and
 * the chain kept for the paths. */
static void count_chain(uint32_t pid, const uint64_t *ips, uint32_t nr, uint64_t samples,
                        uint64_t *user, void *arg)
{
	struct profile_tree *t = arg;
	const uint64_t cls = chain_class(t, pid);
	const uint32_t *c;
	bool kernel = false, leaf = true;
	uint32_t n = 0, k = 0;

	if (t->filter_pid >= 0 && pid != (uint64_t)t->filter_pid)
		return;
	c = chain_funcs(t, pid, ips, nr, user);
	if (!c || c[0] > t->cap_proj) {
		t->ct.fn_total += samples; /* counted, not placed */
		return;
	}
	if (t->nr_walked == t->cap_walked) {
		size_t cap = t->cap_walked ? t->cap_walked * 2 : 1024;
		struct tree_chain *w = realloc(t->walked, cap * sizeof(*w));

		if (w) {
			t->walked = w;
			t->cap_walked = cap;
		}
	}
	if (t->nr_walked < t->cap_walked)
		t->walked[t->nr_walked++] = (struct tree_chain){
		    .off = (size_t)(c - t->chains), .cls = cls, .samples = samples};
	/* The frames as chain_funcs() read them: markers left out. */
	for (uint32_t i = 0; i < nr && k < c[0]; i++) {
		uint32_t id;

		if (ips[i] >= PERF_CONTEXT_MAX) {
			kernel =
			    ips[i] == PERF_CONTEXT_KERNEL || ips[i] == PERF_CONTEXT_GUEST_KERNEL;
			continue;
		}
		id = project(t, c[1 + k++]);
		if (kernel ? t->hide_kernel : t->hide_user) {
			leaf = leaf && n;
			continue;
		}
		if (!t->by_sym && t->by_dso)
			mark_module(t, id, kernel);
		if (!t->by_sym && n && t->proj[n - 1] == id)
			continue; /* modules: calls within one are one step */
		t->words[n] = ips[i];
		t->proj[n++] = id;
	}
	calltree_count(&t->ct, t->proj, t->words, n, leaf, cls, pid, samples);
}

/* The names of a path's frame, a projected id (project()), into buffers
 * of MODEL_FRAME_SYMBOL_MAX and MODEL_FRAME_MODULE_MAX bytes. */
static bool frame_names(struct profile *p, uint32_t proj, char *symbol, char *module)
{
	const struct profile_tree *t = p->tree;
	const char *key = t->by_sym ? strtab_text(&t->funcs, proj) : "";
	const char *name;

	if (!t->by_sym) { /* the module stands for the function, or nothing does */
		symbol[0] = '\0';
		util_strlcpy(module, t->by_dso ? strtab_text(&t->modules, proj) : "",
		             MODEL_FRAME_MODULE_MAX);
		return false;
	}
	if (!*key) { /* none (out of memory, or too many functions) */
		util_strlcpy(symbol, "[unknown]", MODEL_FRAME_SYMBOL_MAX);
		util_strlcpy(module, "[unknown]", MODEL_FRAME_MODULE_MAX);
		return false;
	}
	name = key + 1 + strlen(key + 1) + 1;
	util_strlcpy(module, key + 1, MODEL_FRAME_MODULE_MAX);
	if (p->cfg->raw_names || key[0] == 'k')
		util_strlcpy(symbol, name, MODEL_FRAME_SYMBOL_MAX);
	else
		demangle(name, symbol, MODEL_FRAME_SYMBOL_MAX);
	return key[0] == 'k';
}

/* A path's frame for projected id proj: named (and demangled) once a
 * tick, however many paths it is on. */
static void frame_of(struct profile *p, struct model *m, uint32_t proj, struct model_frame *f)
{
	struct profile_tree *t = p->tree;
	char symbol[MODEL_FRAME_SYMBOL_MAX], module[MODEL_FRAME_MODULE_MAX];
	struct frame_name *c = proj < t->cap_names ? &t->names[proj] : NULL;

	if (c && c->gen == t->name_gen) {
		*f = (struct model_frame){
		    .symbol = c->symbol, .module = c->module, .kernel = c->kernel};
		return;
	}
	f->kernel = frame_names(p, proj, symbol, module);
	f->symbol = model_frame_name(m, symbol, sizeof(symbol));
	f->module = model_frame_name(m, module, sizeof(module));
	if (c)
		*c = (struct frame_name){.gen = t->name_gen,
		                         .symbol = f->symbol,
		                         .module = f->module,
		                         .kernel = f->kernel};
}

static void add_paths(struct profile *p, struct model *m, int row, bool callee,
                      const struct calltree_path *paths, int nr, uint64_t total)
{
	for (int i = 0; i < nr; i++) {
		struct model_callpath *mp = model_add_path(m, (int)paths[i].nr);

		if (!mp)
			return;
		mp->hot = row;
		mp->callee = callee;
		mp->samples = paths[i].samples;
		mp->share = total ? 100.0 * (double)paths[i].samples / (double)total : 0.0;
		for (uint32_t k = 0; k < paths[i].nr; k++)
			frame_of(p, m, paths[i].func[k], &m->frames[mp->first + (int)k]);
	}
}

/* A row of children mode: a hotspot row (row >= 0), or a function of the
 * chains without one (fn >= 0), with its counts. */
struct tree_rank {
	uint64_t children, self;
	double share;
	int row, fn;
	bool known; /* a function the chains can name */
};

static int rank_cmp(const void *pa, const void *pb)
{
	const struct tree_rank *a = pa, *b = pb;

	if (a->known != b->known)
		return a->known ? -1 : 1;
	if (a->children != b->children)
		return a->children > b->children ? -1 : 1;
	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	if ((a->row >= 0) != (b->row >= 0))
		return a->row >= 0 ? -1 : 1;
	return a->row != b->row ? (a->row > b->row) - (a->row < b->row)
	                        : (a->fn > b->fn) - (a->fn < b->fn);
}

_Static_assert(sizeof(((struct model_hotspot *)0)->symbol) == MODEL_FRAME_SYMBOL_MAX,
               "a row's symbol holds a frame's");
_Static_assert(sizeof(((struct model_hotspot *)0)->module) == MODEL_FRAME_MODULE_MAX,
               "a row's module holds a frame's");

/* The model's row for a function of the chains that no hotspot row holds:
 * no samples of its own, named as the paths' frames are. */
static void fill_chain_row(struct profile *p, const struct calltree_func *e,
                           struct model_hotspot *h)
{
	const struct profile_tree *t = p->tree;
	bool kernel = frame_names(p, e->func, h->symbol, h->module);

	if (!t->by_sym)
		kernel = t->by_dso && e->func < t->cap_module_kernel && t->module_kernel[e->func];
	h->share = 0.0;
	h->samples = 0;
	h->kernel = kernel;
	h->pid = t->by_pid ? (pid_t)e->cls : e->pids ? -1 : (pid_t)e->pid;
	h->processes = 0; /* of its own samples: none */
	h->ip = t->by_sym ? e->word : 0;
	if (t->by_comm)
		util_strlcpy(h->comm, strtab_text(p->names, (uint32_t)e->cls), sizeof(h->comm));
	else if (!e->pids)
		util_strlcpy(h->comm, strtab_text(p->names, comm_id(p, e->pid, kernel)),
		             sizeof(h->comm));
}

/* Children mode's rows: every hotspot row of rows[0..n) and every function
 * of the chains, counted (pass one), into out (room for n + the functions),
 * heaviest children first; returns how many. */
static int rank_rows(struct profile_tree *t, const struct hotspots_row *rows, int n,
                     struct tree_rank *out)
{
	uint8_t *claimed = calloc(t->ct.nr_fn ? t->ct.nr_fn : 1, 1);
	int nr = 0;

	if (!claimed)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const uint32_t f = profile_row_func(t->p, &rows[i]);
		const struct calltree_func *e =
		    f ? calltree_counted(&t->ct, project(t, f), chain_class(t, rows[i].pid)) : NULL;
		struct tree_rank *r = &out[nr++];

		*r =
		    (struct tree_rank){.share = rows[i].share, .row = i, .fn = -1, .known = f != 0};
		if (!e)
			continue;
		r->children = e->children;
		r->self = e->self;
		if (!claimed[e - t->ct.fn]) { /* the heaviest row of the function stands for it */
			claimed[e - t->ct.fn] = 1;
			r->fn = (int)(e - t->ct.fn);
		}
	}
	for (uint32_t k = 0; k < t->ct.nr_fn; k++)
		if (!claimed[k])
			out[nr++] = (struct tree_rank){.children = t->ct.fn[k].children,
			                               .self = t->ct.fn[k].self,
			                               .row = -1,
			                               .fn = (int)k,
			                               .known = true};
	free(claimed);
	qsort(out, (size_t)nr, sizeof(*out), rank_cmp);
	return nr;
}

/* This tick's names of frames: the model's were emptied with its paths. */
static void names_begin(struct profile_tree *t)
{
	if (proj_space(t) > t->cap_names) {
		struct frame_name *c = realloc(t->names, proj_space(t) * sizeof(*c));
		if (c) {
			memset(c + t->cap_names, 0, (proj_space(t) - t->cap_names) * sizeof(*c));
			t->names = c;
			t->cap_names = proj_space(t);
		}
	}
	if (++t->name_gen == 0) { /* wrapped: no entry may look current */
		memset(t->names, 0, t->cap_names * sizeof(*t->names));
		t->name_gen = 1;
	}
}

/* The rows' call paths (pass two, over the chains pass one kept): the
 * first rank[0..nr) are the targets. */
static void rows_paths(struct profile *p, struct model *m, const struct hotspots_row *rows,
                       const struct tree_rank *rank, int nr, uint64_t total)
{
	struct profile_tree *t = p->tree;
	uint32_t func[256];
	uint64_t cls[256];
	struct calltree_result *res;

	if (nr > 256)
		nr = 256;
	for (int i = 0; i < nr; i++) {
		const struct calltree_func *e = rank[i].fn >= 0 ? &t->ct.fn[rank[i].fn] : NULL;
		uint32_t f;

		if (e) {
			func[i] = e->func;
			cls[i] = e->cls;
		} else if (rank[i].known && (f = profile_row_func(t->p, &rows[rank[i].row]))) {
			func[i] = project(t, f); /* on no chain, or another row's function */
			cls[i] = chain_class(t, rows[rank[i].row].pid);
		} else {
			func[i] = UINT32_MAX;
			cls[i] = 0;
		}
	}
	/* Functions met while walking get ids above the space: they cannot be
	 * a row's, and match nothing. */
	if (calltree_begin(&t->ct, proj_space(t), func, cls, nr))
		return;
	for (size_t i = 0; i < t->nr_walked; i++)
		place_chain(t, t->chains + t->walked[i].off, t->walked[i].cls,
		            t->walked[i].samples);
	res = calloc((size_t)(nr ? nr : 1), sizeof(*res));
	if (!res)
		return;
	calltree_finish(&t->ct, res);
	for (int i = 0; i < nr; i++) {
		if (func[i] == UINT32_MAX)
			continue;
		add_paths(p, m, i, false, res[i].callers, res[i].nr_callers, total);
		add_paths(p, m, i, true, res[i].callees, res[i].nr_callees, total);
	}
	free(res);
}

bool profile_call_trees(struct profile *p, const struct hotspots_row *rows, int n, struct model *m,
                        bool accumulated)
{
	struct profile_tree *t;
	struct tree_rank *rank;
	uint64_t total;
	int nr;

	m->nr_paths = m->nr_frames = 0;
	m->sampling.callchain = true;
	m->sampling.chain_samples =
	    accumulated ? p->stacks.samples : p->stacks.samples - p->stacks.interval_base;
	if (hotkeys_has(&p->keys, HOTKEYS_TID) || hotkeys_has(&p->keys, HOTKEYS_CPU) ||
	    (p->cfg->filter && p->cfg->filter_cpu >= 0))
		return false; /* chains are kept per process, not per thread or CPU */
	if (!(t = tree_of(p)) || !names_of(p))
		return false;
	tree_age(p);
	t->by_sym = hotkeys_has(&p->keys, HOTKEYS_SYM);
	t->by_dso = hotkeys_has(&p->keys, HOTKEYS_DSO);
	t->by_pid = hotkeys_has(&p->keys, HOTKEYS_PID);
	t->by_comm = hotkeys_has(&p->keys, HOTKEYS_COMM);
	t->filter_pid = p->cfg->filter ? p->cfg->filter_pid : -1;
	t->hide_kernel = p->cfg->hide_kernel;
	t->hide_user = p->cfg->hide_user;
	t->nr_walked = 0;
	if (t->module_kernel)
		memset(t->module_kernel, 0, t->cap_module_kernel);
	calltree_count_begin(&t->ct);
	stacks_walk(&p->stacks, !accumulated, count_chain, t);
	/* Chains that found no room in the table count in the whole. */
	total = accumulated ? p->stacks.samples : p->stacks.samples - p->stacks.interval_base;
	if (total < t->ct.fn_total)
		total = t->ct.fn_total;
	m->sampling.chain_samples = total;
	rank = malloc(((size_t)(n > 0 ? n : 0) + t->ct.nr_fn + 1) * sizeof(*rank));
	if (!rank)
		return false;
	nr = rank_rows(t, rows, n, rank);
	if (nr < 0) {
		free(rank);
		return false;
	}
	m->hot_total = nr;
	names_begin(t);
	for (int i = 0; i < nr && i < p->cfg->top; i++) {
		struct model_hotspot *h = model_add_hotspot(m);

		if (!h)
			break;
		if (rank[i].row >= 0)
			profile_fill_row(p, &rows[rank[i].row], h);
		else
			fill_chain_row(p, &t->ct.fn[rank[i].fn], h);
		if (!rank[i].known)
			continue; /* children and self not known */
		h->children = total ? 100.0 * (double)rank[i].children / (double)total : 0.0;
		h->self = total ? 100.0 * (double)rank[i].self / (double)total : 0.0;
	}
	if (t->by_sym || t->by_dso) /* else no functions to name: only the shares */
		rows_paths(p, m, rows, rank, m->nr_hot, total);
	free(rank);
	return true;
}

int profile_frame_name(struct profile *p, pid_t pid, uint64_t ip, bool kernel, char *name,
                       char *module)
{
	struct profile_tree *t = tree_of(p);
	const char *key;
	bool unknown;
	uint32_t f;

	if (!t || !(f = frame_func(t, (uint32_t)pid, ip, kernel, &unknown)))
		return -ENOMEM;
	key = strtab_text(&t->funcs, f);
	util_strlcpy(module, key + 1, SYMBOLS_MODULE_MAX);
	util_strlcpy(name, key + 1 + strlen(key + 1) + 1, SYMBOLS_NAME_MAX);
	return 0;
}

static void forget_chain(uint32_t pid, const uint64_t *ips, uint32_t nr, uint64_t samples,
                         uint64_t *user, void *arg)
{
	(void)pid, (void)ips, (void)nr, (void)samples, (void)arg;
	*user = 0;
}

/* Between ticks: when the names or the chains fill three quarters of their
 * bound, start over (what is still sampled is named again as it comes). */
static void tree_age(struct profile *p)
{
	struct profile_tree *t = p->tree;

	if (!t || (t->funcs.nr < FUNCS_MAX / 4 * 3 && t->funcs.used < NAMES_BYTES_MAX / 4 * 3 &&
	           t->modules.used < MODULES_MAX / 4 * 3 && t->nr_chains < CHAINS_MAX / 4 * 3))
		return;
	strtab_clear(&t->funcs);
	strtab_clear(&t->modules);
	if (t->frames)
		memset(t->frames, 0, t->cap_frames * sizeof(*t->frames));
	t->nr_frames = 0;
	t->nr_chains = 0;
	if (p->stacks.slots)
		stacks_walk(&p->stacks, false, forget_chain, NULL);
	if (t->names)
		memset(t->names, 0, t->cap_names * sizeof(*t->names));
	t->name_gen = 1;
	t->folds++;
}

void profile_hot_memory(const struct profile *p, struct profile_memory *out)
{
	const struct profile_tree *t = p->tree;

	memset(out, 0, sizeof(*out));
	if (p->names)
		out->bytes += p->names->size + p->names->cap * sizeof(struct strtab_slot) +
		              p->names->cap_off * sizeof(uint32_t);
	if (!t)
		return;
	out->folds = t->folds;
	out->functions = t->funcs.nr;
	out->frames = t->nr_frames;
	out->bytes += sizeof(*t);
	for (int i = 0; i < 2; i++) {
		const struct profile_strtab *s = i ? &t->modules : &t->funcs;

		out->bytes +=
		    s->size + s->cap * sizeof(struct strtab_slot) + s->cap_off * sizeof(uint32_t);
	}
	out->bytes += t->cap_of * (sizeof(*t->module_of) + sizeof(*t->kernel_of)) +
	              t->cap_frames * sizeof(*t->frames) + t->cap_chains * sizeof(*t->chains) +
	              t->cap_proj * sizeof(*t->proj) + t->cap_names * sizeof(*t->names);
}

void profile_hot_free(struct profile *p)
{
	if (p->tree) {
		free(p->tree->funcs.slots);
		free(p->tree->funcs.arena);
		free(p->tree->funcs.off);
		free(p->tree->modules.slots);
		free(p->tree->modules.arena);
		free(p->tree->modules.off);
		free(p->tree->module_of);
		free(p->tree->kernel_of);
		free(p->tree->frames);
		free(p->tree->chains);
		free(p->tree->proj);
		free(p->tree->words);
		free(p->tree->walked);
		free(p->tree->module_kernel);
		free(p->tree->names);
		calltree_fini(&p->tree->ct);
		free(p->tree);
		p->tree = NULL;
	}
	strtab_free(p->names);
	p->names = NULL;
}

const char *profile_func_key(struct profile *p, uint32_t func, size_t *len)
{
	const struct profile_tree *t = p->tree;
	const char *key = t && func ? strtab_text(&t->funcs, func) : "";

	/* "k|u" module NUL name */
	*len = key[0] ? 2 + strlen(key + 1) + strlen(key + 2 + strlen(key + 1)) : 0;
	return key;
}

struct profile_strtab *profile_strtab_new(void)
{
	return calloc(1, sizeof(struct profile_strtab));
}

uint32_t profile_strtab_add(struct profile_strtab *t, const char *s, size_t len)
{
	return strtab_id(t, s, len);
}

const char *profile_strtab_get(const struct profile_strtab *t, uint32_t id)
{
	return strtab_text(t, id);
}

size_t profile_strtab_bytes(const struct profile_strtab *t)
{
	/* in use: the arrays are at most twice that */
	return t ? t->used + (size_t)t->nr * (2 * sizeof(*t->slots) + sizeof(*t->off)) : 0;
}

void profile_strtab_free(struct profile_strtab *t)
{
	strtab_free(t);
}
