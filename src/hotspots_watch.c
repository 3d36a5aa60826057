/* hotspots_watch: per-instruction histograms of the functions being annotated, beside the table. */
#include "hotspots.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void watch_count(struct hotspots_watch *w, uint64_t ip, uint64_t weight, uint64_t samples)
{
	const uint32_t mask = HOTSPOTS_WATCH_IPS - 1;
	uint32_t i = (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> 40) & mask;

	w->weight += weight;
	w->samples += samples;
	for (uint32_t n = 0; n < HOTSPOTS_WATCH_IPS; n++, i = (i + 1) & mask) {
		struct hotspots_watch_ip *e = &w->ips[i];

		if (e->samples && e->ip != ip)
			continue;
		if (!e->samples) {
			/* keep a free slot: probes always end */
			if (w->nr + 1 >= HOTSPOTS_WATCH_IPS)
				break;
			e->ip = ip;
			w->nr++;
		}
		e->weight += weight;
		e->samples += samples;
		return;
	}
	w->overflow += samples;
}

static bool watch_takes(const struct hotspots_watch *w, uint32_t pid, uint64_t ip, bool kernel)
{
	return w->used && w->kernel == kernel && (kernel || w->pid == pid) && ip >= w->lo &&
	       ip < w->hi;
}

void hotspots_watch_sample(struct hotspots *h, uint32_t pid, uint64_t ip,
                           enum records_cpumode cpumode, uint64_t weight)
{
	const bool kernel = hotspots_kernel_mode(cpumode);

	for (int i = 0; i < HOTSPOTS_MAX_WATCH; i++)
		if (watch_takes(&h->watch[i], pid, ip, kernel))
			watch_count(&h->watch[i], ip, weight, 1);
}

int hotspots_watch(struct hotspots *h, uint32_t pid, bool kernel, uint64_t lo, uint64_t hi)
{
	struct hotspots_watch *w = NULL;
	int at = -1;

	if (lo >= hi)
		return -EINVAL;
	for (int i = 0; i < HOTSPOTS_MAX_WATCH; i++) {
		const struct hotspots_watch *o = &h->watch[i];

		if (o->used && o->kernel == kernel && (kernel || o->pid == pid) && o->lo == lo &&
		    o->hi == hi)
			return i;
		if (!o->used && at < 0)
			at = i;
	}
	if (at < 0)
		return -ENOSPC;
	w = &h->watch[at];
	*w = (struct hotspots_watch){.kernel = kernel, .pid = kernel ? 0 : pid, .lo = lo, .hi = hi};
	w->ips = calloc(HOTSPOTS_WATCH_IPS, sizeof(*w->ips));
	if (!w->ips)
		return -ENOMEM;
	w->used = true;
	h->nr_watch++;
	/* The past, from the table: exact as long as no key was folded into
	 * its symbol's start or dropped. */
	w->partial = h->folded || h->dropped;
	for (uint32_t i = 0; !w->partial && h->slots && i < h->cap; i++) {
		const struct hotspots_slot *s = &h->slots[i];

		if (s->used && s->samples &&
		    watch_takes(w, s->pid, s->ip,
		                hotspots_kernel_mode((enum records_cpumode)s->cpumode)))
			watch_count(w, s->ip, s->weight, s->samples);
	}
	return at;
}

void hotspots_unwatch(struct hotspots *h, int i)
{
	if (i < 0 || i >= HOTSPOTS_MAX_WATCH || !h->watch[i].used)
		return;
	free(h->watch[i].ips);
	memset(&h->watch[i], 0, sizeof(h->watch[i]));
	h->nr_watch--;
}

size_t hotspots_watch_ips(const struct hotspots *h, int i, struct hotspots_watch_ip *out,
                          size_t max)
{
	size_t n = 0;

	if (i < 0 || i >= HOTSPOTS_MAX_WATCH || !h->watch[i].used)
		return 0;
	for (uint32_t k = 0; k < HOTSPOTS_WATCH_IPS && n < max; k++)
		if (h->watch[i].ips[k].samples)
			out[n++] = h->watch[i].ips[k];
	return n;
}
