/* profile_priv.h: what profile.c and profile_hot.c (grouping, call trees) share. */
#ifndef PFMTOP_PROFILE_PRIV_H
#define PFMTOP_PROFILE_PRIV_H

#include "profile.h"

/* A process's name (COMM records first, /proc for one no record named). */
void profile_comm_of(struct profile *p, pid_t pid, char *buf, size_t len);
/* Forget pid's name and instance: its pid is another process's now (a
 * FORK), or it is gone and the table is filling up. */
void profile_comm_forget(struct profile *p, pid_t pid);

/* Resolve a row's address, reading the process's mappings again (once a
 * tick) when they do not know it. */
void profile_resolve(struct profile *p, const struct hotspots_row *row, struct symbols_result *r);

/* The start of the symbol at a row's address into *start (FOUND), through
 * the cache of frames (shared by every key of one address); resolved and
 * cached when the cache does not know it: NONE for a kernel miss, UNKNOWN
 * for a user one. */
enum hotspots_sym profile_frame_symbol(struct profile *p, const struct hotspots_row *row,
                                       uint64_t *start);

/* The row's symbol start | 1, cached in the hotspot table; 0 when none. */
uint64_t profile_symbol_key(const struct hotspots_row *row, void *arg);

/* Group rows[0..n) by this tick's keys (p->keys), exactly: first per
 * (pid, tid, cpu, symbol), then by the keys. Returns the new count. */
int profile_group_rows(struct profile *p, struct hotspots_row *rows, int n, bool by_cpu);

/* The model's hotspot row h for row: the names of the keys, the values
 * the row's samples share, blanks for those that differ. */
void profile_fill_row(struct profile *p, const struct hotspots_row *row, struct model_hotspot *h);

/* -g, children mode: m's hotspot rows, one for each of rows[0..n) (this
 * tick's grouped rows) and one for each function on any chain of the span
 * that none of them holds, heaviest children first, cut at the top
 * (m->hot_total: all of them), with children, self and call paths. False
 * when it filled no rows (chains not kept per thread or CPU, or out of
 * memory): then the caller adds the rows, their shares not known. */
bool profile_call_trees(struct profile *p, const struct hotspots_row *rows, int n, struct model *m,
                        bool accumulated);

/* After profile_group_rows(): the row holds what folded into "other"
 * (retired figures without the process or the name the keys need). */
bool profile_row_is_other(const struct hotspots_row *row);

/* The instance serial of pid's process: the same until its pid is seen
 * recycled (a FORK, or another pid in its slot of the name table). */
uint32_t profile_serial_of(struct profile *p, pid_t pid);

/* The function id of a row's address in the call trees' name table (made
 * when new), resolved now; 0 when out of memory. */
uint32_t profile_row_func(struct profile *p, const struct hotspots_row *row);

/* A function id's key in the call trees' table of names, "k|u" module NUL
 * name, its length into *len ("" and 0 when not known). Valid until the
 * table starts over (between ticks). */
const char *profile_func_key(struct profile *p, uint32_t func, size_t *len);

/* Interned strings (keys with a NUL inside them too): ids from 1. */
struct profile_strtab *profile_strtab_new(void);
uint32_t profile_strtab_add(struct profile_strtab *t, const char *s, size_t len); /* 0: no memory */
const char *profile_strtab_get(const struct profile_strtab *t, uint32_t id);
size_t profile_strtab_bytes(const struct profile_strtab *t); /* in use */
void profile_strtab_free(struct profile_strtab *t);

/* profile_retired.c: a hotspots_take_fn (arg: the profile) that keeps the
 * key's figures under its names as they are now. */
void profile_retire(const struct hotspots_slot *s, void *arg);

/* The retired rows that pass the filter (CPU, pid, tid; the caller leaves
 * out hidden kernel or user rows, as for the table's), for TOTAL mode (they
 * have no interval figures), appended to out (room rows at most). Returns
 * how many. */
int profile_retired_rows(struct profile *p, const struct hotspots_filter *f,
                         struct hotspots_row *out, int room);

/* Entries held (the rows profile_retired_rows() may add). */
uint32_t profile_retired_count(const struct profile *p);

/* A retired row's names, owned by the retired table (valid until it next
 * changes): level 0 has the process, 1 only its command and function, 2
 * nothing (other). */
struct profile_retired_row {
	uint32_t name;    /* the key's id in the retired table, 0 at level 2 */
	const char *key;  /* "k|u" module NUL name; "" at level 2 */
	const char *comm; /* "" at level 2 */
	int level;
	uint32_t serial; /* the process instance, 0 from level 1 */
};

/* False for a row of the table. */
bool profile_retired_names(struct profile *p, const struct hotspots_row *row,
                           struct profile_retired_row *out);

/* The user-space pids of the retired rows that keep their process (some
 * more than once) into out (room for max). Returns how many. */
size_t profile_retired_pids(const struct profile *p, uint32_t *out, size_t max);

/* Entries that lost their process or name for room, since the start. */
uint64_t profile_retired_coarsened(const struct profile *p);

void profile_retired_free(struct profile *p);

/* The function of a frame as the call trees name it (through the frame
 * cache and the table of names): its name and module into buffers of
 * SYMBOLS_NAME_MAX and SYMBOLS_MODULE_MAX bytes. 0, or -ENOMEM (no name). */
int profile_frame_name(struct profile *p, pid_t pid, uint64_t ip, bool kernel, char *name,
                       char *module);

/* Free what profile_hot.c holds. */
void profile_hot_free(struct profile *p);

#endif
