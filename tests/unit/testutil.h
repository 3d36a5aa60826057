/* testutil: helpers the unit tests share (open fds, a child to reap). */
#ifndef PFMTOP_TESTUTIL_H
#define PFMTOP_TESTUTIL_H

#include "ring.h"

#include <stdbool.h>
#include <sys/types.h>

/* Open fds of this process whose link target makes match() true (the
 * listing's own fd left out). */
int testutil_nr_fds(bool (*match)(const char *link, const void *arg), const void *arg);

/* fds whose link is path, or starts with it when it ends in '/'. */
int testutil_nr_fds_to(const char *path);

/* fds whose link starts with prefix. */
int testutil_nr_fds_prefix(const char *prefix);

/* fds on some task's /proc files (/proc/PID/...). */
int testutil_nr_task_fds(void);

/* The fixtures directory (PFMTOP_FIXTURES, set by CTest). When it is not
 * set or not a directory, says so and exits 1: a missing fixture is a
 * failure, never a skip. */
const char *testutil_fixtures(void);

/*
 * For a test whose libpfm4 expectations hold on every real host: undo a
 * LIBPFM_FORCE_PMU from the environment (tests/run forces other CPU models'
 * PMUs on the suite), since a forced PMU leaves libpfm4 without its generic
 * "perf" PMU, which every real host has. Call before libpfm4 is loaded.
 */
void testutil_libpfm_unforced(void);

/* A child that waits for a byte (or EOF) on *go, then exits. */
pid_t testutil_child_waiting(int *go);

/* Play the kernel on a ring of a run watch (sample_type TID, sample_id_all):
 * publish a PERF_RECORD_SWITCH_CPU_WIDE of tid switched out (out) or in,
 * with other the task coming in or going out; or a PERF_RECORD_LOST. */
void testutil_put_switch(struct ring *r, bool out, pid_t tid, pid_t other);
void testutil_put_lost(struct ring *r, uint64_t lost);

#endif
