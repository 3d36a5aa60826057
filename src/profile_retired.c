/* profile_retired: the since-start figures of keys that left the hotspot table, under the names
 * they had. */
#include "profile_priv.h"

#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * A key leaves the hotspot table when its process exits (before its
 * mappings are forgotten) or when the table drops it for room. Its figures
 * then live here, named as they were when it left: the function (an id of
 * the call trees' name table), the command name and the process instance
 * (pid and serial, so that a recycled pid is another process). A query
 * adds them to the table's rows as rows of their own, so that a
 * since-the-start share stays the row's weight over the run's.
 *
 * The names are the table's own (the call trees' table of names starts
 * over now and then): PROFILE_RETIRED_NAMES_MAX bytes of them at most.
 *
 * Bounded: PROFILE_RETIRED_MAX entries. When full, the lighter half loses
 * its process (level 1: one entry per command, function and CPU, for the
 * groupings without pid or tid); when that is not enough, its name too
 * (level 2: "other", per CPU and cpumode). Nothing is ever dropped.
 */

struct retired_entry {
	uint64_t weight, samples;
	uint32_t name; /* its key in names ("k|u" module NUL name); 0 at level 2 */
	uint32_t pid, tid, serial;
	int16_t cpu;
	uint8_t cpumode;
	uint8_t level; /* 0: the process's; 1: its command's; 2: other */
	char comm[16];
	uint32_t next; /* hash chain: 1 + index, 0 ends */
};

struct profile_retired {
	struct retired_entry *e;
	uint32_t nr, cap;
	uint32_t *heads; /* PROFILE_RETIRED_MAX * 2 buckets: 1 + index */
	struct profile_strtab *names;
	uint64_t coarsened; /* entries that lost their process or name */
};

_Static_assert(sizeof(struct retired_entry) == 56, "a retired entry is 56 bytes");
#define BUCKETS (PROFILE_RETIRED_MAX * 2u)

static uint32_t entry_hash(const struct retired_entry *k)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const uint64_t v[4] = {
	    (uint64_t)k->name << 32 | k->pid, (uint64_t)k->tid << 32 | k->serial,
	    (uint64_t)(uint16_t)k->cpu << 16 | (uint64_t)k->cpumode << 8 | k->level, 0};
	uint64_t c;

	memcpy(&c, k->comm, sizeof(c));
	for (int i = 0; i < 4; i++)
		h = (h ^ (i == 3 ? c : v[i])) * 0x100000001b3ull;
	return (uint32_t)(h ^ h >> 32) & (BUCKETS - 1);
}

static bool same_key(const struct retired_entry *a, const struct retired_entry *b)
{
	return a->name == b->name && a->pid == b->pid && a->tid == b->tid &&
	       a->serial == b->serial && a->cpu == b->cpu && a->cpumode == b->cpumode &&
	       a->level == b->level && !strncmp(a->comm, b->comm, sizeof(a->comm));
}

/* Add k's figures to its entry, made when new; -ENOSPC when full. */
static int add_entry(struct profile_retired *r, const struct retired_entry *k)
{
	const uint32_t b = entry_hash(k);

	for (uint32_t i = r->heads[b]; i; i = r->e[i - 1].next) {
		struct retired_entry *e = &r->e[i - 1];

		if (same_key(e, k)) {
			e->weight += k->weight;
			e->samples += k->samples;
			return 0;
		}
	}
	if (r->nr == r->cap) {
		uint32_t cap = r->cap ? r->cap * 2 : 1024;
		struct retired_entry *e;

		if (r->nr >= PROFILE_RETIRED_MAX)
			return -ENOSPC;
		if (cap > PROFILE_RETIRED_MAX)
			cap = PROFILE_RETIRED_MAX;
		e = realloc(r->e, cap * sizeof(*e));
		if (!e)
			return -ENOSPC;
		r->e = e;
		r->cap = cap;
	}
	r->e[r->nr] = *k;
	r->e[r->nr].next = r->heads[b];
	r->heads[b] = ++r->nr;
	return 0;
}

static int by_weight(const void *pa, const void *pb)
{
	const struct retired_entry *a = pa, *b = pb;

	return a->weight < b->weight ? -1 : a->weight > b->weight;
}

/* Make room: the lighter half goes up a level (to level 2 when the table
 * is mostly level 1 already), the entries merged again. */
static void coarsen(struct profile_retired *r, bool names_full)
{
	const uint32_t nr = r->nr;
	struct profile_strtab *names = profile_strtab_new();
	uint32_t low1 = 0;

	for (uint32_t i = 0; i < nr; i++)
		low1 += r->e[i].level >= 1;
	/* Out of room for names: the lighter half lose theirs. */
	if (names_full)
		low1 = nr;
	qsort(r->e, nr, sizeof(*r->e), by_weight);
	memset(r->heads, 0, BUCKETS * sizeof(*r->heads));
	r->nr = 0;
	for (uint32_t i = 0; i < nr; i++) {
		struct retired_entry k = r->e[i];

		if (i < nr / 2 && k.level < 2) {
			k.level = low1 > nr / 2 ? 2 : k.level + 1;
			k.pid = k.tid = k.serial = 0;
			if (k.level == 2) {
				k.name = 0;
				memset(k.comm, 0, sizeof(k.comm));
			}
			r->coarsened++;
		}
		/* The names still held, into a new table: the old one's
		 * space goes with the names no entry holds. */
		if (k.name) {
			const char *key = profile_strtab_get(r->names, k.name);
			const size_t len = 2 + strlen(key + 1) + strlen(key + 2 + strlen(key + 1));

			k.name = names ? profile_strtab_add(names, key, len) : 0;
			if (!k.name) { /* no memory: other */
				k.level = 2;
				memset(k.comm, 0, sizeof(k.comm));
			}
		}
		/* Merging only shrinks: every entry finds room. */
		(void)add_entry(r, &k);
	}
	profile_strtab_free(r->names);
	r->names = names;
}

static struct profile_retired *retired_of(struct profile *p)
{
	if (!p->retired) {
		struct profile_retired *r = calloc(1, sizeof(*r));

		if (!r || !(r->heads = calloc(BUCKETS, sizeof(*r->heads))) ||
		    !(r->names = profile_strtab_new())) {
			if (r)
				free(r->heads);
			free(r);
			return NULL;
		}
		p->retired = r;
	}
	return p->retired;
}

void profile_retire(const struct hotspots_slot *s, void *arg)
{
	struct profile *p = arg;
	struct profile_retired *r = retired_of(p);
	const bool kernel = hotspots_kernel_mode((enum records_cpumode)s->cpumode);
	const struct hotspots_row row = {.pid = s->pid,
	                                 .tid = s->tid,
	                                 .ip = s->ip,
	                                 .cpumode = (enum records_cpumode)s->cpumode,
	                                 .kernel = kernel,
	                                 .cpu = s->cpu,
	                                 .slot = UINT32_MAX};
	const uint32_t func = profile_row_func(p, &row);
	size_t len;
	const char *key = profile_func_key(p, func, &len);
	struct retired_entry k = {.weight = s->weight,
	                          .samples = s->samples,
	                          .pid = s->pid,
	                          .tid = s->tid,
	                          .serial = profile_serial_of(p, (pid_t)s->pid),
	                          .cpu = s->cpu,
	                          .cpumode = s->cpumode};

	if (!s->samples)
		return;
	if (kernel && s->pid == 0)
		util_strlcpy(k.comm, "[idle]", sizeof(k.comm));
	else
		profile_comm_of(p, (pid_t)s->pid, k.comm, sizeof(k.comm));
	if (!r) { /* no memory: the figures still count, as other */
		p->retired_lost_weight += s->weight;
		p->retired_lost_samples += s->samples;
		return;
	}
	if (len && profile_strtab_bytes(r->names) + len + 64 > PROFILE_RETIRED_NAMES_MAX)
		coarsen(r, true); /* room for names first */
	if (len && r->names)
		k.name = profile_strtab_add(r->names, key, len);
	if (!k.name) { /* no name to keep (out of memory) */
		k.level = 2;
		k.pid = k.tid = k.serial = 0;
		memset(k.comm, 0, sizeof(k.comm));
	}
	if (add_entry(r, &k)) {
		coarsen(r, false);
		if (add_entry(r, &k)) {
			p->retired_lost_weight += s->weight;
			p->retired_lost_samples += s->samples;
		}
	}
}

int profile_retired_rows(struct profile *p, const struct hotspots_filter *f,
                         struct hotspots_row *out, int room)
{
	const struct profile_retired *r = p->retired;
	int n = 0;

	for (uint32_t i = 0; r && i < r->nr && n < room; i++) {
		const struct retired_entry *e = &r->e[i];
		const bool kernel = hotspots_kernel_mode((enum records_cpumode)e->cpumode);

		/* an entry that lost its process (level 1, 2: pid 0) is of none */
		const bool of_task = e->level == 0;

		if ((f->cpu >= 0 && e->cpu != f->cpu) ||
		    (f->pid >= 0 && (!of_task || e->pid != f->pid)) ||
		    (f->tid >= 0 && (!of_task || e->tid != f->tid)))
			continue;
		out[n++] = (struct hotspots_row){
		    .pid = e->pid,
		    .tid = e->tid,
		    .cpumode = (enum records_cpumode)e->cpumode,
		    .kernel = kernel,
		    .cpu = f->cpu >= 0 || f->by_cpu ? e->cpu : -1,
		    .weight = e->weight,
		    .samples = e->samples,
		    .merged = 1,
		    .slot = UINT32_MAX,
		    .retired = i + 1,
		};
	}
	return n;
}

uint32_t profile_retired_count(const struct profile *p)
{
	return p->retired ? p->retired->nr : 0;
}

bool profile_retired_names(struct profile *p, const struct hotspots_row *row,
                           struct profile_retired_row *out)
{
	const struct profile_retired *r = p->retired;
	const struct retired_entry *e;

	if (!row->retired || !r || row->retired > r->nr)
		return false;
	e = &r->e[row->retired - 1];
	*out = (struct profile_retired_row){.name = e->name,
	                                    .key = e->name ? profile_strtab_get(r->names, e->name)
	                                                   : "",
	                                    .comm = e->comm,
	                                    .level = e->level,
	                                    .serial = e->serial};
	return true;
}

size_t profile_retired_pids(const struct profile *p, uint32_t *out, size_t max)
{
	const struct profile_retired *r = p->retired;
	size_t n = 0;

	for (uint32_t i = 0; r && i < r->nr && n < max; i++)
		if (!r->e[i].level && r->e[i].pid &&
		    !hotspots_kernel_mode((enum records_cpumode)r->e[i].cpumode) &&
		    (!n || out[n - 1] != r->e[i].pid))
			out[n++] = r->e[i].pid;
	return n;
}

uint64_t profile_retired_coarsened(const struct profile *p)
{
	return p->retired ? p->retired->coarsened : 0;
}

void profile_retired_free(struct profile *p)
{
	if (!p->retired)
		return;
	free(p->retired->e);
	free(p->retired->heads);
	profile_strtab_free(p->retired->names);
	free(p->retired);
	p->retired = NULL;
}
