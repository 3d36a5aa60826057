/* snapshot_hot: the hotspot table and its call paths as the text snapshot shows them. */
#include "snapshot_priv.h"

#include "cells.h"
#include "untrusted.h"
#include "util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void snapshot_rate_text(const struct model_sampling *s, char *buf, size_t len)
{
	if (s->freq)
		snprintf(buf, len, "%s at %" PRIu64 " Hz", s->event, s->freq);
	else
		snprintf(buf, len, "%s every %" PRIu64 " events", s->event, s->period);
}

/* A hotspot cell that names a value all the row's samples share, or "-". */
static void id_cell(char *cell, int v)
{
	if (v < 0)
		util_strlcpy(cell, "-", CELL_MAX);
	else
		snprintf(cell, CELL_MAX, "%d", v);
}

/* A long name loses its middle (JSON has it whole), by characters until
 * the bytes fit the cell. */
static void name_cell(char *cell, const char *name)
{
	char sym[4 * sizeof(((struct model_hotspot *)0)->symbol)], cut[sizeof(sym)];

	untrusted_text(sym, sizeof(sym), name[0] ? name : "-");
	for (int w = CELL_MAX - 1; w >= 5; w--)
		if (strlen(cells_elide(sym, w, cut, sizeof(cut))) < CELL_MAX)
			break;
	util_strlcpy(cell, cut, CELL_MAX);
}

/* -g: the heaviest call paths of each row, callers then callees. */
static void text_paths(FILE *out, const struct model *m, int maxw)
{
	int last = -1;
	char *chain = NULL;
	size_t len = 0;
	FILE *f;

	for (int i = 0; i < m->nr_paths; i++) {
		const struct model_callpath *p = &m->paths[i];
		char name[CELL_MAX];

		if (p->hot < 0 || p->hot >= m->nr_hot || p->first < 0 ||
		    p->first + p->nr > m->nr_frames)
			continue;
		if (p->hot != last) {
			name_cell(name, m->hot[p->hot].symbol[0] ? m->hot[p->hot].symbol
			                                         : m->hot[p->hot].module);
			fprintf(out, "  %s: children %.1f%%, self %.1f%%\n", name,
			        m->hot[p->hot].children, m->hot[p->hot].self);
			last = p->hot;
		}
		/* a chain too long for a line goes on below, under its first frame */
		if (!(f = open_memstream(&chain, &len)))
			return;
		fprintf(f, "    %5.1f%% %s ", p->share, p->callee ? "calls " : "from  ");
		for (int k = 1; k < p->nr && k < 8; k++) {
			const struct model_frame *fr = &m->frames[p->first + k];
			const char *sym = model_frame_symbol(m, fr);
			name_cell(name, sym[0] ? sym : model_frame_module(m, fr));
			fprintf(f, "%s%s", k > 1 ? (p->callee ? " > " : " < ") : "", name);
		}
		fputs(p->nr > 1   ? (p->nr > 8 ? " ..." : "")
		      : p->callee ? "(itself: the sampled function)"
		                  : "(the chain ends here)",
		      f);
		if (fclose(f) == 0)
			snapshot_wrap(out, chain, 17, maxw);
		free(chain);
		chain = NULL;
	}
}

void snapshot_text_hotspots(FILE *out, const struct model *m, int maxw)
{
	const struct model_sampling *s = &m->sampling;
	const bool keyed = s->hot_keys[0] != '\0';
	const bool tree = s->callchain;
	const bool tid = keyed && strstr(s->hot_keys, "tid");
	const bool cpu = keyed && strstr(s->hot_keys, "cpu");
	char rate[192];
	struct table t;
	int nc = 0, c_share, c_samples, c_children = -1, c_self = -1, c_pid, c_tid = -1, c_cpu = -1,
	    c_comm, c_sym, c_mod;

	if (!s->enabled)
		return;
	snapshot_rate_text(s, rate, sizeof(rate));
	char *head = NULL;
	size_t headlen = 0;
	FILE *hf = open_memstream(&head, &headlen);

	if (!hf)
		return;
	/* The shares are of the rows ranked: the filters' samples, when known. */
	fprintf(hf, "HOTSPOTS: %d of %d, %s (%s; %s%" PRIu64 " samples)%s%s", m->nr_hot,
	        m->hot_total, s->accumulated ? "since the start" : "this interval", rate,
	        s->total_samples ? "shares of " : "",
	        s->total_samples ? s->total_samples
	        : s->accumulated ? s->total.samples
	                         : s->interval.samples,
	        s->hide_kernel ? "; kernel hidden" : "", s->hide_user ? "; user space hidden" : "");
	if (s->filter_pid >= 0)
		fprintf(hf, "; PID %d only", (int)s->filter_pid);
	if (s->filter_cpu >= 0)
		fprintf(hf, "; CPU %d only", s->filter_cpu);
	if (keyed)
		fprintf(hf, "; by %s", s->hot_keys);
	if (tree) /* what CHILDREN and SELF are shares of */
		fprintf(hf, "; children and self of %" PRIu64 " samples with a chain",
		        s->chain_samples);
	if (fclose(hf) == 0)
		snapshot_wrap(out, head, 2, maxw);
	free(head);
	if (!m->nr_hot)
		return;
	c_share = nc++;
	c_samples = nc++;
	if (tree) {
		c_children = nc++;
		c_self = nc++;
	}
	c_pid = nc++;
	if (tid)
		c_tid = nc++;
	if (cpu)
		c_cpu = nc++;
	c_comm = nc++;
	c_sym = nc++;
	c_mod = nc++;
	const bool other = s->hot_other.samples > 0;
	if (snapshot_table_init(&t, nc, m->nr_hot + 1 + other))
		return;
	t.left[c_comm] = t.left[c_sym] = t.left[c_mod] = true;
	/* the names give their middle when a line is too long */
	t.maxw = maxw;
	t.minw[c_comm] = 7;
	t.minw[c_sym] = 20;
	t.minw[c_mod] = 12;
	t.first[c_mod] = true;
	util_strlcpy(cell_at(&t, 0, c_share), "SHARE", CELL_MAX);
	util_strlcpy(cell_at(&t, 0, c_samples), "SAMPLES", CELL_MAX);
	if (tree) {
		util_strlcpy(cell_at(&t, 0, c_children), "CHILDREN", CELL_MAX);
		util_strlcpy(cell_at(&t, 0, c_self), "SELF", CELL_MAX);
	}
	util_strlcpy(cell_at(&t, 0, c_pid), "PID", CELL_MAX);
	if (tid)
		util_strlcpy(cell_at(&t, 0, c_tid), "TID", CELL_MAX);
	if (cpu)
		util_strlcpy(cell_at(&t, 0, c_cpu), "CPU", CELL_MAX);
	util_strlcpy(cell_at(&t, 0, c_comm), "COMMAND", CELL_MAX);
	util_strlcpy(cell_at(&t, 0, c_sym), "SYMBOL", CELL_MAX);
	util_strlcpy(cell_at(&t, 0, c_mod), "MODULE", CELL_MAX);
	for (int i = 0; i < m->nr_hot; i++) {
		const struct model_hotspot *h = &m->hot[i];
		snprintf(cell_at(&t, i + 1, c_share), CELL_MAX, "%.1f%%", h->share);
		snprintf(cell_at(&t, i + 1, c_samples), CELL_MAX, "%" PRIu64, h->samples);
		if (tree) {
			for (int k = 0; k < 2; k++) {
				double v = k ? h->self : h->children;
				char *cl = cell_at(&t, i + 1, k ? c_self : c_children);
				if (isnan(v))
					util_strlcpy(cl, "-", CELL_MAX);
				else
					snprintf(cl, CELL_MAX, "%.1f%%", v);
			}
		}
		if (keyed)
			id_cell(cell_at(&t, i + 1, c_pid), (int)h->pid);
		else
			snprintf(cell_at(&t, i + 1, c_pid), CELL_MAX, "%d", (int)h->pid);
		if (tid)
			id_cell(cell_at(&t, i + 1, c_tid), (int)h->tid);
		if (cpu)
			id_cell(cell_at(&t, i + 1, c_cpu), h->cpu);
		if (keyed && !h->comm[0])
			util_strlcpy(cell_at(&t, i + 1, c_comm), "-", CELL_MAX);
		else
			untrusted_text(cell_at(&t, i + 1, c_comm), CELL_MAX, h->comm);
		if (keyed)
			name_cell(cell_at(&t, i + 1, c_sym), h->symbol);
		else {
			name_cell(cell_at(&t, i + 1, c_sym), h->symbol[0] ? h->symbol : "");
			if (!h->symbol[0])
				cell_at(&t, i + 1, c_sym)[0] = '\0';
		}
		untrusted_text(cell_at(&t, i + 1, c_mod), CELL_MAX,
		               keyed && !h->module[0] ? "-" : h->module);
	}
	if (other) { /* what the rows shown leave: the shares add up to 100 */
		const int i = m->nr_hot + 1;
		snprintf(cell_at(&t, i, c_share), CELL_MAX, "%.1f%%", s->hot_other.share);
		snprintf(cell_at(&t, i, c_samples), CELL_MAX, "%" PRIu64, s->hot_other.samples);
		snprintf(cell_at(&t, i, c_sym), CELL_MAX, "[other: %d rows%s]", s->hot_other.rows,
		         s->hot_other.folded ? ", folded for room" : "");
	}
	snapshot_table_print(out, &t);
	if (tree && m->nr_paths)
		text_paths(out, m, maxw);
}
