/* taskbpf: the sched_switch BPF program's loader and map reader. */
#include "taskbpf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t taskbpf_map_bytes(uint32_t entries)
{
	/* An element: the kernel's header (~48 bytes), key and value, in
	 * the allocator's 512-byte size class; plus a bucket each. */
	return (size_t)entries * (512 + 16);
}

const struct taskbpf_entry *taskbpf_find(const struct taskbpf *b, uint32_t tid)
{
	int lo = 0, hi = b->nr;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (b->e[mid].key.tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->nr && b->e[lo].key.tid == tid ? &b->e[lo] : NULL;
}

#ifdef PFMTOP_HAVE_BPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include "taskcount.skel.h"

/* libbpf's messages: not on our terminal (the caller words the error). */
static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int taskbpf_open(struct taskbpf *b, const int *fd, const int *cpus, int nr_cpus, int nr_ev,
                 char *why, size_t whylen)
{
	struct taskcount *skel;
	int ret, possible = libbpf_num_possible_cpus();

	memset(b, 0, sizeof(*b));
	if (nr_ev > TASKCOUNT_MAX_EVENTS || nr_ev <= 0 || possible <= 0) {
		snprintf(why, whylen, "BPF task counts read at most %d events, not %d",
		         TASKCOUNT_MAX_EVENTS, nr_ev);
		return -E2BIG;
	}
	libbpf_set_print(quiet_print);
	skel = taskcount__open();
	if (!skel) {
		ret = -errno;
		snprintf(why, whylen, "the BPF program did not open: %s", strerror(-ret));
		return ret;
	}
	skel->rodata->nr_cpus = (unsigned)possible;
	skel->rodata->nr_events = (unsigned)nr_ev;
	bpf_map__set_max_entries(skel->maps.counters, (unsigned)(possible * nr_ev));
	bpf_map__set_max_entries(skel->maps.tasks, TASKBPF_MAX_ENTRIES);
	ret = taskcount__load(skel);
	if (ret) {
		snprintf(why, whylen,
		         "the BPF program did not load (%s): it needs CAP_BPF and CAP_PERFMON "
		         "(or root) and a kernel with BPF",
		         strerror(-ret));
		goto out;
	}
	for (int e = 0; e < nr_ev; e++)
		for (int i = 0; i < nr_cpus; i++) {
			unsigned idx = (unsigned)(e * possible + cpus[i]);
			int f = fd[e * nr_cpus + i];

			if (f < 0 || cpus[i] >= possible)
				continue;
			if (bpf_map_update_elem(bpf_map__fd(skel->maps.counters), &idx, &f,
			                        BPF_ANY)) {
				ret = -errno;
				snprintf(why, whylen,
				         "event %d on CPU %d cannot be read from BPF (%s)", e,
				         cpus[i], strerror(-ret));
				goto out;
			}
		}
	ret = taskcount__attach(skel);
	if (ret) {
		snprintf(why, whylen, "the BPF program did not attach to sched_switch: %s",
		         strerror(-ret));
		goto out;
	}
	b->skel = skel;
	b->nr_possible = possible;
	b->nr_ev = nr_ev;
	b->entries = TASKBPF_MAX_ENTRIES;
	return 0;
out:
	taskcount__destroy(skel);
	return ret < 0 ? ret : -EINVAL;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct taskbpf_entry *x = a, *y = b;

	if (x->key.tid != y->key.tid)
		return x->key.tid < y->key.tid ? -1 : 1;
	/* the newest first */
	return x->v.first_ns > y->v.first_ns ? -1 : x->v.first_ns < y->v.first_ns;
}

/* One batch lookup after another; the kernel's cursor is a bucket. */
static int read_batch(struct taskbpf *b, int mfd, struct taskcount_key *keys,
                      struct taskcount_task *vals)
{
	uint32_t in = 0, out = 0;
	bool first = true;
	int n = 0;

	for (;;) {
		uint32_t count = (uint32_t)(b->cap - n);
		int ret = bpf_map_lookup_batch(mfd, first ? NULL : &in, &out, keys + n, vals + n,
		                               &count, NULL);
		int err = ret ? errno : 0;

		if (ret && err != ENOENT)
			return -err;
		n += (int)count;
		if (err == ENOENT || n >= b->cap)
			return n;
		in = out;
		first = false;
	}
}

int taskbpf_read(struct taskbpf *b)
{
	struct taskcount *skel = b->skel;
	int n;

	if (!skel)
		return -EBADF;
	if (!b->e) {
		/* As many as the map holds, allocated once: only the pages
		 * written are ever touched. */
		b->cap = (int)b->entries;
		b->e = calloc((size_t)b->cap, sizeof(*b->e));
		b->keys = calloc((size_t)b->cap, sizeof(*b->keys));
		b->vals = calloc((size_t)b->cap, sizeof(*b->vals));
		if (!b->e || !b->keys || !b->vals)
			return -ENOMEM;
	}
	n = read_batch(b, bpf_map__fd(skel->maps.tasks), b->keys, b->vals);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		b->e[i].key = b->keys[i];
		b->e[i].v = b->vals[i];
	}
	b->nr = n;
	qsort(b->e, (size_t)n, sizeof(*b->e), cmp_entry);
	return n;
}

int taskbpf_spill(struct taskbpf *b, struct taskcount_counts *dropped,
                  struct taskcount_counts *idle)
{
	struct taskcount *skel = b->skel;
	struct taskcount_counts *pc;

	memset(dropped, 0, sizeof(*dropped));
	memset(idle, 0, sizeof(*idle));
	if (!skel)
		return -EBADF;
	pc = calloc((size_t)b->nr_possible, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	for (unsigned k = 0; k < TASKCOUNT_SPILL_N; k++) {
		struct taskcount_counts *to = k == TASKCOUNT_SPILL_IDLE ? idle : dropped;

		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.spill), &k, pc))
			continue;
		for (int c = 0; c < b->nr_possible; c++)
			for (int e = 0; e < TASKCOUNT_MAX_EVENTS; e++) {
				to->value[e] += pc[c].value[e];
				to->enabled[e] += pc[c].enabled[e];
				to->running[e] += pc[c].running[e];
			}
	}
	free(pc);
	return 0;
}

void taskbpf_delete(struct taskbpf *b, const struct taskcount_key *k)
{
	struct taskcount *skel = b->skel;

	if (skel)
		bpf_map_delete_elem(bpf_map__fd(skel->maps.tasks), k);
}

void taskbpf_close(struct taskbpf *b)
{
	if (b->skel)
		taskcount__destroy(b->skel);
	free(b->e);
	free(b->keys);
	free(b->vals);
	memset(b, 0, sizeof(*b));
}

#else /* !PFMTOP_HAVE_BPF */

int taskbpf_open(struct taskbpf *b, const int *fd, const int *cpus, int nr_cpus, int nr_ev,
                 char *why, size_t whylen)
{
	memset(b, 0, sizeof(*b));
	snprintf(why, whylen, "this pfmtop was built without BPF (PFMTOP_BPF=OFF)");
	return -ENOSYS;
}

int taskbpf_read(struct taskbpf *b)
{
	return -EBADF;
}

int taskbpf_spill(struct taskbpf *b, struct taskcount_counts *dropped,
                  struct taskcount_counts *idle)
{
	memset(dropped, 0, sizeof(*dropped));
	memset(idle, 0, sizeof(*idle));
	return -EBADF;
}

void taskbpf_delete(struct taskbpf *b, const struct taskcount_key *k)
{
}

void taskbpf_close(struct taskbpf *b)
{
	free(b->e);
	memset(b, 0, sizeof(*b));
}

#endif
