/* cmdsummary: a command's totals as a perf-stat-like block, printed after the viewer closes. */
#include "cmdsummary.h"

#include "cells.h"
#include "untrusted.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* v with thousands separators and decimals digits after the point. */
static void grouped(double v, int decimals, char *buf, size_t len)
{
	char raw[64], *dot;
	size_t o = 0, digits;
	const char *p = raw;

	snprintf(raw, sizeof(raw), "%.*f", decimals, fabs(v));
	dot = strchr(raw, '.');
	digits = dot ? (size_t)(dot - raw) : strlen(raw);
	if (v < 0 && o + 1 < len)
		buf[o++] = '-';
	for (size_t i = 0; i < digits && o + 2 < len; i++) {
		buf[o++] = *p++;
		if ((digits - i - 1) % 3 == 0 && i + 1 < digits)
			buf[o++] = ',';
	}
	for (; *p && o + 1 < len; p++)
		buf[o++] = *p;
	buf[o] = '\0';
}

/* The rate after '#': CPUs utilized for a clock, else per second. */
static void rate(const struct model_event *e, double shown, double secs, char *buf, size_t len)
{
	if (secs <= 0) {
		buf[0] = '\0';
		return;
	}
	if (!strcmp(e->unit, "ms"))
		snprintf(buf, len, "# %7.3f CPUs utilized", shown / 1000.0 / secs);
	else if (shown / secs >= 1e9)
		snprintf(buf, len, "# %7.3f G/sec", shown / secs / 1e9);
	else if (shown / secs >= 1e6)
		snprintf(buf, len, "# %7.3f M/sec", shown / secs / 1e6);
	else if (shown / secs >= 1e3)
		snprintf(buf, len, "# %7.3f K/sec", shown / secs / 1e3);
	else
		snprintf(buf, len, "# %7.3f /sec", shown / secs);
}

void cmdsummary_print(FILE *f, const struct model *m, int status)
{
	const struct model_row *t = &m->total;
	double secs = m->mono_ns != MODEL_MONO_UNKNOWN && m->mono_ns ? (double)m->mono_ns / 1e9
	                                                             : m->interval_s;
	char target[160], name[160], num[64], r[64];
	const char *cmd = m->target;

	if (!strncmp(cmd, "command: ", 9))
		cmd += 9;
	untrusted_text(target, sizeof(target), cmd);
	fprintf(f, "\n Performance counter stats for '%s' (pfmtop, exit status %d):\n\n", target,
	        status);
	for (int i = 0; i < m->nr_events && t->cells; i++) {
		const struct model_event *e = &m->events[i];
		const struct counter_value *v = &t->cells[i];
		bool ms = !strcmp(e->unit, "ms");
		double scale = e->scale > 0 ? e->scale : 1.0;

		untrusted_text(name, sizeof(name), e->name);
		if (!cells_state_counted(v->state)) {
			fprintf(f, "  %15s      %s\n",
			        v->state == COUNTER_UNSUPPORTED || !e->opened ? "<not supported>"
			                                                      : "<not counted>",
			        name);
			continue;
		}
		grouped(v->value * scale, ms || scale != 1.0 ? 2 : 0, num, sizeof(num));
		rate(e, v->value * scale, secs, r, sizeof(r));
		fprintf(f, "  %15s %-4s %-20s %-23s (%.1f%%)\n", num,
		        ms           ? "msec"
		        : e->unit[0] ? e->unit
		                     : "",
		        name, r, v->coverage * 100.0);
	}
	for (int k = 0; k < m->nr_metrics && t->metrics; k++) {
		if (isnan(t->metrics[k]))
			continue;
		untrusted_text(name, sizeof(name), m->metrics[k].name);
		fprintf(f, "  %15.3f %-4s %s\n", t->metrics[k], m->metrics[k].unit, name);
	}
	fprintf(f, "\n  %15.9f seconds time elapsed\n\n", secs);
}
