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

/* -g, children mode: m's hotspot rows, one for each of rows[0..n) (this
 * tick's grouped rows) and one for each function on any chain of the span
 * that none of them holds, heaviest children first, cut at the top
 * (m->hot_total: all of them), with children, self and call paths. False
 * when it filled no rows (chains not kept per thread or CPU, or out of
 * memory): then the caller adds the rows, their shares not known. */
bool profile_call_trees(struct profile *p, const struct hotspots_row *rows, int n, struct model *m,
                        bool accumulated);

/* Free what profile_hot.c holds. */
void profile_hot_free(struct profile *p);

#endif
