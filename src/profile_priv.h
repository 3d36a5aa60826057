/* profile_priv.h: what profile.c and profile_hot.c (grouping, call trees) share. */
#ifndef PFMTOP_PROFILE_PRIV_H
#define PFMTOP_PROFILE_PRIV_H

#include "profile.h"

/* A process's name (COMM records first, /proc for one no record named). */
void profile_comm_of(struct profile *p, pid_t pid, char *buf, size_t len);

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

/* -g: children, self and call paths of m's rows (rows[0..m->nr_hot) the
 * hotspot rows behind them), over the chains of the span. */
void profile_call_trees(struct profile *p, const struct hotspots_row *rows, struct model *m,
                        bool accumulated);

/* The function of a frame as the call trees name it (through the frame
 * cache and the table of names): its name and module into buffers of
 * SYMBOLS_NAME_MAX and SYMBOLS_MODULE_MAX bytes. 0, or -ENOMEM (no name). */
int profile_frame_name(struct profile *p, pid_t pid, uint64_t ip, bool kernel, char *name,
                       char *module);

/* Free what profile_hot.c holds. */
void profile_hot_free(struct profile *p);

#endif
