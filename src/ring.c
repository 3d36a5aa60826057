/* ring: the perf mmap ring read protocol (documented once, in ring.h). */
#include "ring.h"

#include "sys.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* header.size is a u16: no record is larger than this. */
#define RING_MAX_RECORD 65536u

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* Common tail of ring_map() and ring_init_mem(): ctl, data and data_size
 * already checked. */
static int ring_setup(struct ring *r, struct perf_event_mmap_page *ctl, unsigned char *data,
                      uint64_t data_size)
{
	r->bounce_size = data_size < RING_MAX_RECORD ? (size_t)data_size : RING_MAX_RECORD;
	/* malloc's alignment covers the 8 bytes records need. */
	r->bounce = malloc(r->bounce_size);
	if (!r->bounce)
		return -ENOMEM;
	r->ctl = ctl;
	r->data = data;
	r->data_size = data_size;
	r->mask = data_size - 1;
	r->tail = __atomic_load_n(&ctl->data_tail, __ATOMIC_RELAXED);
	memset(&r->stats, 0, sizeof(r->stats));
	return 0;
}

int ring_map(struct ring *r, int fd, unsigned data_pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t page = psz > 0 ? (size_t)psz : 4096;
	size_t len;
	void *map;
	int err;

	memset(r, 0, sizeof(*r));
	if (!is_pow2(data_pages))
		return -EINVAL;
	len = ((size_t)data_pages + 1) * page;
	map = sys->mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return errno ? -errno : -ENOMEM;

	struct perf_event_mmap_page *ctl = map;
	uint64_t off = ctl->data_offset, size = ctl->data_size;

	if (!size) {
		/* Kernels before 4.1 leave these zero: one page in, the rest. */
		off = page;
		size = (uint64_t)data_pages * page;
	}
	if (!is_pow2(size) || off < sizeof(*ctl) || (off & 7) || off > len || size > len - off) {
		err = -EINVAL;
		goto out_unmap;
	}
	err = ring_setup(r, ctl, (unsigned char *)map + off, size);
	if (err)
		goto out_unmap;
	r->map = map;
	r->map_len = len;
	return 0;

out_unmap:
	sys->munmap(map, len);
	memset(r, 0, sizeof(*r));
	return err;
}

int ring_init_mem(struct ring *r, struct perf_event_mmap_page *ctl, void *data, size_t data_size)
{
	memset(r, 0, sizeof(*r));
	if (!ctl || !data || data_size < 8 || !is_pow2(data_size) || ((uintptr_t)data & 7))
		return -EINVAL;
	return ring_setup(r, ctl, data, data_size);
}

void ring_unmap(struct ring *r)
{
	if (r->map)
		sys->munmap(r->map, r->map_len);
	free(r->bounce);
	memset(r, 0, sizeof(*r));
}

int ring_open_cpu(struct perf_event_attr *attr, int cpu, unsigned data_pages, int *fd,
                  struct ring *r)
{
	int ret;

	*fd = sys->perf_event_open(attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (*fd < 0)
		return -errno;
	ret = ring_map(r, *fd, data_pages);
	if (ret)
		ring_close_cpu(fd, r);
	return ret;
}

void ring_close_cpu(int *fd, struct ring *r)
{
	ring_unmap(r);
	if (*fd >= 0)
		sys->close(*fd);
	*fd = -1;
}

uint64_t ring_pending(const struct ring *r)
{
	if (!r->ctl)
		return 0;
	return __atomic_load_n(&r->ctl->data_head, __ATOMIC_ACQUIRE) - r->tail;
}

int ring_drain(struct ring *r, ring_record_fn fn, void *arg)
{
	if (!r->ctl || !r->data || !fn)
		return -EINVAL;

	const uint64_t head = __atomic_load_n(&r->ctl->data_head, __ATOMIC_ACQUIRE);
	const unsigned char *data = r->data;
	const uint64_t size_all = r->data_size, mask = r->mask;
	uint64_t tail = r->tail, bytes = 0, wraps = 0;
	int n = 0;

	if (head == tail)
		return 0;
	/* Lapped, a wild head, or a tail we did not leave aligned. */
	if (head - tail > size_all || (tail & 7))
		goto corrupt;

	while (tail != head) {
		const uint64_t avail = head - tail, off = tail & mask;
		const struct perf_event_header *h;
		uint64_t size;

		if (avail < sizeof(*h))
			goto corrupt;
		/* 8-aligned offset, size_all >= 8: the header is contiguous. */
		h = (const struct perf_event_header *)(data + off);
		size = h->size;
		if (size < sizeof(*h) || (size & 7) || size > avail)
			goto corrupt;
		if (off + size > size_all) {
			const uint64_t first = size_all - off;

			if (size > r->bounce_size)
				goto corrupt;
			memcpy(r->bounce, data + off, first);
			memcpy(r->bounce + first, data, size - first);
			h = (const struct perf_event_header *)r->bounce;
			wraps++;
		}
		fn(h, arg);
		n++;
		bytes += size;
		tail += size;
	}
	goto out;

corrupt:
	r->stats.corrupt++;
	r->stats.dropped += head - tail;
	tail = head;
out:
	r->stats.records += (uint64_t)n;
	r->stats.bytes += bytes;
	r->stats.wraps_copied += wraps;
	r->tail = tail;
	__atomic_store_n(&r->ctl->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}
