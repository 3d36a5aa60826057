/* cmdsummary: a command's totals as a perf-stat-like block, printed after the viewer closes. */
#ifndef PFMTOP_CMDSUMMARY_H
#define PFMTOP_CMDSUMMARY_H

#include "model.h"

#include <stdio.h>

/*
 * m's totals (the final snapshot of a command's run) as `perf stat` prints
 * them: per event the count (msec for clocks), its name, a rate (CPUs
 * utilized for a clock, else per second) and the coverage; "<not
 * supported>" for an event that does not count here; the metrics that are
 * known; the seconds elapsed. status is the command's exit status.
 */
void cmdsummary_print(FILE *f, const struct model *m, int status);

#endif
