/* hotspots_group: rows merged by a key (hotspots_merge()) or grouped by the
 * values of --hot-sort's keys (hotspots_group()). */
#include "hotspots.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

	return c ? c : hotspots_row_cmp_weight(pa, pb);
}

static int row_cmp_group_any(const void *pa, const void *pb)
{
	int c = row_cmp_group(pa, pb, 0);

	return c ? c : hotspots_row_cmp_weight(pa, pb);
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
	qsort(rows, (size_t)k, sizeof(*rows), hotspots_row_cmp_weight);
	return k;
}

/* Group order: the group's values, then pid and tid (to count the
 * distinct pids), heaviest first within. */
static int row_cmp_values(const void *pa, const void *pb)
{
	const struct hotspots_row *a = pa, *b = pb;
	int c = memcmp(a->group, b->group, sizeof(a->group));

	if (c)
		return c;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return hotspots_row_cmp_weight(pa, pb);
}

static uint64_t group_hash(const uint64_t *g)
{
	uint64_t h = 0;

	for (int i = 0; i < HOTSPOTS_GROUP_MAX; i++)
		h = (h ^ g[i]) * 0x9e3779b97f4a7c15ull;
	return h ^ h >> 32;
}

/* Put the rows of each group together (the groups in the order they are
 * first met), each group's rows in the order row_cmp_values sorts them:
 * what a sort of all of them by row_cmp_values gives, but for the order of
 * the groups. In place and without comparing rows of different groups.
 * -ENOMEM, rows as they were, when there is no room for the index. */
static int gather_groups(struct hotspots_row *rows, size_t n)
{
	size_t cap = 16, ng = 0;
	uint32_t *tab, *gid, *first, *order;

	while (cap < 2 * n)
		cap *= 2;
	tab = malloc((cap + 3 * n + 1) * sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	gid = tab + cap;       /* a row's group */
	first = gid + n;       /* a group's first place in the new order */
	order = first + n + 1; /* the row of each place */
	memset(tab, 0xff, cap * sizeof(*tab));
	for (size_t i = 0; i < n; i++) {
		size_t k = group_hash(rows[i].group) & (cap - 1);

		for (; tab[k] != UINT32_MAX; k = (k + 1) & (cap - 1))
			if (!memcmp(rows[tab[k]].group, rows[i].group, sizeof(rows[i].group)))
				break;
		if (tab[k] == UINT32_MAX) {
			tab[k] = (uint32_t)i;
			gid[i] = (uint32_t)ng;
			first[ng++] = 0;
		} else {
			gid[i] = gid[tab[k]];
		}
		first[gid[i]]++;
	}
	/* Counts to places, then each row to its place. */
	for (size_t g = 0, at = 0; g < ng; g++) {
		const size_t c = first[g];

		first[g] = (uint32_t)at;
		at += c;
	}
	first[ng] = (uint32_t)n;
	for (size_t i = 0; i < n; i++)
		order[first[gid[i]]++] = (uint32_t)i;
	/* Move the rows (order[j]: which row goes to place j), one cycle of the
	 * permutation at a time. */
	for (size_t j = 0; j < n; j++) {
		struct hotspots_row tmp;
		size_t cur = j;

		if (order[j] == j)
			continue;
		tmp = rows[j];
		for (;;) {
			const size_t next = order[cur];

			order[cur] = (uint32_t)cur;
			if (next == j) {
				rows[cur] = tmp;
				break;
			}
			rows[cur] = rows[next];
			cur = next;
		}
	}
	/* first[g] is now where group g + 1 starts. */
	for (size_t g = 0, at = 0; g < ng; g++) {
		if (first[g] - at > 1) /* most groups are one row */
			qsort(rows + at, first[g] - at, sizeof(*rows), row_cmp_values);
		at = first[g];
	}
	free(tab);
	return 0;
}

/* hotspots_group(), the result in the order of the groups when sorted is
 * false. */
static int group_rows(struct hotspots_row *rows, int n, hotspots_group_fn fn, void *arg,
                      bool sorted)
{
	uint64_t best = 0; /* weight of the heaviest row of the current group */
	uint32_t prev_pid = 0;
	int k = 0;

	if (n <= 0 || !fn)
		return n < 0 ? 0 : n;
	for (int i = 0; i < n; i++) {
		memset(rows[i].group, 0, sizeof(rows[i].group));
		rows[i].attr = 0;
		fn(&rows[i], rows[i].group, arg);
		if (!rows[i].pids)
			rows[i].pids = 1;
		if (!rows[i].merged)
			rows[i].merged = 1;
	}
	if (gather_groups(rows, (size_t)n))
		qsort(rows, (size_t)n, sizeof(*rows), row_cmp_values);
	for (int i = 0; i < n; i++) {
		struct hotspots_row *g = k ? &rows[k - 1] : NULL;
		const struct hotspots_row r = rows[i];

		if (!g || memcmp(g->group, r.group, sizeof(r.group))) {
			rows[k++] = r;
			best = r.weight;
			prev_pid = r.pid;
			continue;
		}
		/* Sorted by pid within the group: a new pid is a change. */
		g->pids += r.pid != prev_pid ? r.pids : r.pids - 1;
		prev_pid = r.pid;
		g->mixed |= r.mixed;
		if (r.pid != g->pid)
			g->mixed |= HOTSPOTS_MIXED_PID;
		if (r.tid != g->tid || r.pid != g->pid)
			g->mixed |= HOTSPOTS_MIXED_TID;
		if (r.attr != g->attr)
			g->mixed |= HOTSPOTS_MIXED_ATTR;
		if (r.kernel != g->kernel)
			g->mixed |= HOTSPOTS_MIXED_KERNEL;
		if (g->cpu != r.cpu)
			g->cpu = -1;
		if (r.weight > best) { /* the heaviest names the group */
			best = r.weight;
			g->ip = r.ip;
			g->cpumode = r.cpumode;
			g->slot = r.slot;
			g->pid = r.pid;
			g->tid = r.tid;
			g->attr = r.attr;
		}
		g->kernel = g->kernel && r.kernel;
		g->weight += r.weight;
		g->samples += r.samples;
		g->share += r.share;
		g->merged += r.merged;
	}
	if (sorted)
		qsort(rows, (size_t)k, sizeof(*rows), hotspots_row_cmp_weight);
	return k;
}

int hotspots_group(struct hotspots_row *rows, int n, hotspots_group_fn fn, void *arg)
{
	return group_rows(rows, n, fn, arg, true);
}

int hotspots_group_any_order(struct hotspots_row *rows, int n, hotspots_group_fn fn, void *arg)
{
	return group_rows(rows, n, fn, arg, false);
}
