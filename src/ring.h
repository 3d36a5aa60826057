/* ring: reader for a perf_event mmap ring buffer (the sampling side band). */
#ifndef PFMTOP_RING_H
#define PFMTOP_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The read protocol. Every reader of a perf ring in pfmtop goes through
 * ring_drain(), which follows exactly this (tools/lib/perf/mmap.c is the
 * model):
 *
 *  1. The mapping is 1 + 2^n pages, PROT_READ|PROT_WRITE, MAP_SHARED.
 *     Page 0 is struct perf_event_mmap_page (the control page); the data
 *     area follows it. When the kernel fills in data_offset/data_size they
 *     say where the data area is and how big it is, and win over the
 *     "one page in, 2^n pages long" assumption.
 *  2. The mapping is writable so that data_tail is honoured: the kernel
 *     then never overwrites data we have not consumed, and reports what it
 *     had to drop as PERF_RECORD_LOST {id, lost}. (A read-only mapping is
 *     overwrite mode: no LOST records, and the reader can be lapped
 *     without noticing.)
 *  3. Load data_head with acquire semantics
 *     (__atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE)), so the record
 *     bytes are read after the head that published them.
 *  4. Process the bytes in [tail, head). data_head and data_tail are
 *     free-running byte counters that never wrap: the offset into the data
 *     area is counter & (data_size - 1).
 *  5. Records are 8-byte aligned, so the 8-byte header never straddles the
 *     end of the data area, but the body may: such a record is copied into
 *     a bounce buffer (stats.wraps_copied) and handed over from there.
 *  6. header.size is never trusted: 0, not a multiple of 8, smaller than
 *     the header, larger than what lies in [tail, head), or larger than the
 *     bounce buffer, and head - tail larger than the data area (lapped
 *     reader, or a wild head), and a tail that is not 8-byte aligned, are
 *     all corruption. It is counted (stats.corrupt), everything up to head
 *     is dropped (stats.dropped) and the next drain starts clean at head.
 *     No byte outside the data area is ever read.
 *  7. Store the new tail into data_tail with release semantics
 *     (__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE)), so the
 *     kernel cannot reuse the space before we are done reading it. After a
 *     drain data_tail equals the head that drain loaded.
 *
 * The head is loaded once per drain, so one drain does a bounded amount of
 * work (at most one ring's worth); records published meanwhile wait for the
 * next drain. No allocation and no division happen per record.
 */

/* Counters kept across drains; plain data, the caller may read or reset. */
struct ring_stats {
	uint64_t records;      /* whole records handed to the callback */
	uint64_t bytes;        /* bytes of those records */
	uint64_t corrupt;      /* resynchronisations (see rule 6) */
	uint64_t dropped;      /* bytes thrown away by those resynchronisations */
	uint64_t wraps_copied; /* records that went through the bounce buffer */
};

/*
 * One ring. Zero-initialise it (or use ring_map/ring_init_mem, which do),
 * never copy it once set up. Fields are read-only for callers except stats.
 */
struct ring {
	struct perf_event_mmap_page *ctl; /* control page */
	unsigned char *data;              /* data area, data_size bytes */
	uint64_t data_size;               /* power of two */
	uint64_t mask;                    /* data_size - 1 */
	uint64_t tail;                    /* what we consumed; mirrored in ctl->data_tail */
	unsigned char *bounce;            /* holds one wrapped record */
	size_t bounce_size;
	void *map; /* the mapping when ring_map() made it, else NULL */
	size_t map_len;
	struct ring_stats stats;
};

/*
 * Called once per whole record. rec points into the ring or into the
 * bounce buffer, is 8-byte aligned, and is valid for rec->size bytes
 * (rec->size >= 8, a multiple of 8) only until the callback returns.
 */
typedef void (*ring_record_fn)(const struct perf_event_header *rec, void *arg);

/*
 * Map the ring of perf fd through sys->mmap: 1 control page plus
 * data_pages pages (a power of two), PROT_READ|PROT_WRITE, MAP_SHARED.
 * Returns 0, -EINVAL (data_pages not a power of two, or a control page
 * that describes a data area not inside the mapping), -ENOMEM, or the
 * negative errno of mmap (EPERM: over perf_event_mlock_kb). The caller
 * keeps owning fd; release the ring with ring_unmap() before closing it.
 */
int ring_map(struct ring *r, int fd, unsigned data_pages);

/*
 * A side-band event's way: open attr CPU-wide on cpu (pid -1) and map a
 * ring of data_pages data pages. 0 with *fd and r set up, or -errno with
 * nothing left open (*fd -1). ring_close_cpu() releases both.
 */
int ring_open_cpu(struct perf_event_attr *attr, int cpu, unsigned data_pages, int *fd,
                  struct ring *r);
void ring_close_cpu(int *fd, struct ring *r);

/*
 * Set up a ring over plain memory laid out like a mapping (for tests,
 * benches and fuzzers): ctl is the control page, data the data area of
 * data_size bytes (a power of two >= 8; data 8-byte aligned). The reader
 * starts at ctl->data_tail and writes it back like ring_drain() always
 * does. The caller keeps owning ctl and data. Returns 0, -EINVAL or
 * -ENOMEM; release with ring_unmap().
 */
int ring_init_mem(struct ring *r, struct perf_event_mmap_page *ctl, void *data, size_t data_size);

/*
 * Release what ring_map() or ring_init_mem() took (the mapping through
 * sys->munmap, the bounce buffer) and zero the ring. Safe on a zeroed or
 * already released ring.
 */
void ring_unmap(struct ring *r);

/*
 * Bytes published by the kernel and not yet consumed (head - tail), as of
 * now. Cheap; use it to decide whether a drain is worth it.
 */
uint64_t ring_pending(const struct ring *r);

/*
 * Hand every whole record in [tail, head) to fn, in order, then store the
 * new tail (see the protocol above). Returns the number of records handed
 * over (0 when the ring is empty or was resynchronised), or -EINVAL for a
 * ring that is not set up.
 */
int ring_drain(struct ring *r, ring_record_fn fn, void *arg);

#endif
