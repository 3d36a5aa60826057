/* rowhist: the last intervals of each table row, for sparklines and graphs. */
#ifndef PFMTOP_ROWHIST_H
#define PFMTOP_ROWHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A store of rings, one per row id (a task's pid << 32 | tid, a CPU's
 * number), each holding the last len intervals of nseries numbers (a
 * row's CPU%, its counters, its metrics) as floats, NaN where a value was
 * not counted. A row's ring moves on only in the intervals it is pushed
 * in; a row not pushed for forget_after intervals is forgotten (unless
 * pinned). Lookups go through an open-addressing hash of the ids, so an
 * interval of thousands of rows costs one probe and one copy per row.
 */
struct rowhist;

#define ROWHIST_LEN    60 /* intervals kept per row */
#define ROWHIST_FORGET 30 /* intervals a gone row is remembered */

struct rowhist *rowhist_new(int nseries, int len, int forget_after);
void rowhist_free(struct rowhist *h);

/* Forget every row and take nseries numbers per interval from now on. */
void rowhist_reset(struct rowhist *h, int nseries);
int rowhist_nseries(const struct rowhist *h);
int rowhist_len(const struct rowhist *h);

/* A new interval begins: the rows pushed until rowhist_end() are its rows. */
void rowhist_begin(struct rowhist *h);

/*
 * Row id's entry for this interval: nseries floats (NaN-filled) to fill
 * in, or NULL when out of memory. start tells a reused id apart (a
 * recycled PID): a row whose start differs from the one remembered
 * begins a new ring. Pushing one id twice in an interval gives the same
 * entry.
 */
float *rowhist_push(struct rowhist *h, int64_t id, uint64_t start);

/* The interval ends: rows not pushed for forget_after intervals go. */
void rowhist_end(struct rowhist *h);

/* Keep id however long it has gone (one row at a time; pin false: none). */
void rowhist_pin(struct rowhist *h, bool pin, int64_t id);

/*
 * Series s of row id, oldest first, into out (at most max; the newest
 * when the ring holds more). Returns how many, 0 for an unknown row.
 * *fresh (may be NULL) says whether the row was pushed in the last
 * interval.
 */
int rowhist_get(const struct rowhist *h, int64_t id, int s, float *out, int max, bool *fresh);

/* Rows held and bytes used (the rings and the hash). */
int rowhist_rows(const struct rowhist *h);
size_t rowhist_bytes(const struct rowhist *h);

#endif
