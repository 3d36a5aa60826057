/* profile_annotate: the functions being annotated (--annotate, the viewer's screen), watched and
 * rendered. */
#include "profile.h"
#include "profile_priv.h"

#include "demangle.h"
#include "untrusted.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void annot_free(struct profile *p, struct profile_annot *an)
{
	if (an->used)
		hotspots_unwatch(&p->hot, an->watch);
	annotate_free(&an->a);
	free(an->code);
	memset(an, 0, sizeof(*an));
	an->watch = -1;
}

void profile_annotate_free(struct profile *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(p->annots); i++)
		annot_free(p, &p->annots[i]);
	annot_free(p, &p->view);
}

/*
 * Start annotating the function holding ip (kernel, or of pid): where its
 * code is, a watch over its addresses, its code read and disassembled now
 * (while the process and its files are there). 0, or -errno (nothing
 * kept; an->a.why may say why).
 */
static int annot_start(struct profile *p, struct profile_annot *an, pid_t pid, uint64_t ip,
                       bool kernel)
{
	struct symbols_code *c = calloc(1, sizeof(*c));
	struct annotate_func f = {0};
	int ret;

	memset(an, 0, sizeof(*an));
	an->watch = -1;
	if (!c)
		return -ENOMEM;
	an->code = c;
	an->pid = kernel ? 0 : pid;
	an->kernel = kernel;
	if (pid > 0)
		profile_comm_of(p, pid, an->comm, sizeof(an->comm));
	/* a failure stays for this address: not asked again each tick */
	an->lo = ip;
	an->hi = ip + 1;
	ret = symbols_code(p->sym, pid, ip, kernel, c);
	if (ret) {
		snprintf(an->a.why, sizeof(an->a.why), "%s",
		         c->sym.status == SYMBOLS_KERNEL_HIDDEN
		             ? "kernel addresses are hidden here (kptr_restrict): no kernel code"
		         : c->sym.status == SYMBOLS_FOUND
		             ? "no file holds this function's code (JIT or vDSO code)"
		             : "no function holds this address");
		return ret;
	}
	an->lo = c->start + c->bias;
	an->hi = an->lo + c->size;
	ret = hotspots_watch(&p->hot, (uint32_t)an->pid, kernel, an->lo, an->hi);
	if (ret < 0) {
		snprintf(an->a.why, sizeof(an->a.why), "cannot count its instructions: %s",
		         ret == -ENOSPC ? "too many functions annotated at once" : strerror(-ret));
		return ret;
	}
	an->watch = ret;
	an->used = true;
	f.file = kernel ? NULL : c->file;
	f.debug = c->debug;
	f.start = c->start;
	f.size = c->size;
	f.bias = c->bias;
	memcpy(f.build_id, c->build_id, c->build_id_len);
	f.build_id_len = c->build_id_len;
	f.replaced = c->replaced;
	f.note = c->replaced_on_disk ? "the file at its path was replaced since it was mapped: "
	                               "code read from the mapped file (/proc/PID/map_files)"
	                             : NULL;
	f.deleted = c->deleted;
	f.kernel = kernel;
	annotate_load(&an->a, &f); /* on failure a.why says why: kept, shown */
	return 0;
}

/* Count the watch's samples into the code. */
static void annot_count(struct profile *p, struct profile_annot *an)
{
	struct hotspots_watch_ip *ips;
	struct annotate_sample *all;
	size_t n;

	if (!an->used)
		return;
	/* The watch's addresses, copied out: on the heap, not a static
	 * scratch array (4096 of them, 96 KiB). */
	ips = malloc(HOTSPOTS_WATCH_IPS * sizeof(*ips));
	n = ips ? hotspots_watch_ips(&p->hot, an->watch, ips, HOTSPOTS_WATCH_IPS) : 0;
	all = ips ? malloc((n ? n : 1) * sizeof(*all)) : NULL;
	if (!all) {
		free(ips);
		return; /* the last counts stay */
	}
	for (size_t i = 0; i < n; i++)
		all[i] = (struct annotate_sample){ips[i].ip, ips[i].weight, ips[i].samples};
	free(ips);
	annotate_count(&an->a, all, n);
	free(all);
}

/* Samples in the function, code or not. */
static uint64_t annot_samples(const struct profile *p, const struct profile_annot *an)
{
	return an->used ? p->hot.watch[an->watch].samples : 0;
}

/* Does a sampled function's name match --annotate's? Its name as the
 * binary has it (a version given, "memcpy@@GLIBC_2.14", is not in names
 * any more), demangled, or demangled without its parameters. */
static bool name_matches(const char *want, const char *name)
{
	char buf[SYMBOLS_NAME_MAX];
	size_t n = strlen(want);

	if (symbols_name_is(name, want))
		return true;
	demangle(name, buf, sizeof(buf));
	return symbols_name_is(buf, want) || (!strncmp(want, buf, n) && buf[n] == '(');
}

static bool watched(const struct profile *p, const struct hotspots_row *row)
{
	for (size_t i = 0; i < ARRAY_SIZE(p->annots); i++) {
		const struct profile_annot *an = &p->annots[i];

		if (!an->code || an->kernel != row->kernel ||
		    (!an->kernel && an->pid != (pid_t)row->pid))
			continue;
		/* one that could not start: not asked again for that process */
		if (!an->used || (row->ip >= an->lo && row->ip < an->hi))
			return true;
	}
	return false;
}

static void batch_tick(struct profile *p, int n)
{
	for (int i = 0; i < n; i++) {
		const struct hotspots_row *row = &p->rows[i];
		struct profile_annot *free_slot = NULL;
		struct symbols_result r;

		if (watched(p, row))
			continue;
		symbols_resolve(p->sym, (pid_t)row->pid, row->ip, row->kernel, &r);
		if (r.status != SYMBOLS_FOUND || !name_matches(p->cfg->annotate_symbol, r.name))
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(p->annots) && !free_slot; k++)
			if (!p->annots[k].used && !p->annots[k].code)
				free_slot = &p->annots[k];
		if (!free_slot)
			return; /* as many as can be watched */
		annot_start(p, free_slot, (pid_t)row->pid, row->ip, row->kernel);
	}
}

/* A module in brackets, unless it has its own ("[kernel]", "[vdso]"). */
static bool bracketed(const char *module)
{
	size_t n = strlen(module);

	return n >= 2 && module[0] == '[' && module[n - 1] == ']';
}

static const char *open_bracket(const char *module)
{
	return bracketed(module) ? "" : "[";
}

static const char *close_bracket(const char *module)
{
	return bracketed(module) ? "" : "]";
}

static void fill_model(struct profile *p, struct model *m)
{
	struct model_annotation *ma = &m->annot;
	struct profile_annot *an = &p->view;
	char raw[sizeof(ma->title)];

	ma->active = p->cfg->annotate;
	ma->nr_lines = 0;
	ma->hottest = -1;
	if (!ma->active)
		return;
	ma->id = p->view_id;
	annot_count(p, an);
	if (an->code)
		snprintf(raw, sizeof(raw), "%s %s%s%s%s%.0d %s", an->code->sym.name,
		         open_bracket(an->code->sym.module), an->code->sym.module,
		         close_bracket(an->code->sym.module), an->kernel ? "" : " pid ",
		         an->kernel ? 0 : an->pid, an->comm);
	else
		snprintf(raw, sizeof(raw), "0x%" PRIx64, p->cfg->annotate_ip);
	untrusted_text(ma->title, sizeof(ma->title), raw);
	util_strlcpy(ma->check, an->a.check, sizeof(ma->check));
	util_strlcpy(ma->why, an->a.nr ? "" : an->a.why, sizeof(ma->why));
	ma->samples = an->a.samples;
	ma->partial = an->used && p->hot.watch[an->watch].partial;
	if (an->a.nr > ma->cap_lines) {
		struct annotate_line *l = realloc(ma->lines, (size_t)an->a.nr * sizeof(*l));

		if (!l) {
			util_strlcpy(ma->why, "out of memory", sizeof(ma->why));
			return;
		}
		ma->lines = l;
		ma->cap_lines = an->a.nr;
	}
	if (an->a.nr)
		memcpy(ma->lines, an->a.lines, (size_t)an->a.nr * sizeof(*ma->lines));
	ma->nr_lines = an->a.nr;
	ma->hottest = an->a.hottest;
}

/* The viewer's function: (re)started when it asks for another one. */
static void view_tick(struct profile *p, struct model *m)
{
	const struct profile_config *c = p->cfg;
	struct profile_annot *an = &p->view;

	if (!c->annotate) {
		if (an->code)
			annot_free(p, an);
		fill_model(p, m);
		return;
	}
	if (!an->code || an->kernel != c->annotate_kernel ||
	    (!an->kernel && an->pid != c->annotate_pid) || c->annotate_ip < an->lo ||
	    c->annotate_ip >= an->hi) {
		annot_free(p, an);
		annot_start(p, an, c->annotate_pid, c->annotate_ip, c->annotate_kernel);
		p->view_id++;
	}
	fill_model(p, m);
}

void profile_annotate_tick(struct profile *p, struct model *m, int n)
{
	if (p->cfg->annotate_symbol)
		batch_tick(p, n);
	view_tick(p, m);
}

void profile_annotate_now(struct profile *p, struct model *m)
{
	if (p->open && p->cfg)
		view_tick(p, m);
}

/* The code was read while the process ran: say so when the file at its
 * path is another one by now (replaced since), so that no one reads it
 * expecting the same code. */
static void disk_note(FILE *f, const struct profile_annot *an)
{
	const struct symbols_code *c = an->code;
	unsigned char id[ANNOTATE_BUILD_ID];
	int n;

	if (an->kernel || !an->a.nr || c->replaced_on_disk || !c->build_id_len || !c->path[0])
		return;
	n = annotate_file_build_id(c->path, id, sizeof(id));
	if (n == (int)c->build_id_len && !memcmp(id, c->build_id, (size_t)n))
		return;
	fputs("  note: ", f);
	untrusted_fputs(f, c->path, false);
	fprintf(f, " %s since: the code above was read from the mapped file while it ran\n",
	        n >= 0 ? "was replaced" : "is gone");
}

char *profile_annotated(struct profile *p, size_t *len)
{
	const char *want = p->cfg ? p->cfg->annotate_symbol : NULL;
	struct profile_annot *best = NULL;
	char module[SYMBOLS_MODULE_MAX], clean[SYMBOLS_NAME_MAX + 64];
	char *out = NULL;
	FILE *f;

	*len = 0;
	if (!want)
		return NULL;
	f = open_memstream(&out, len);
	if (!f)
		return NULL;
	untrusted_text(clean, sizeof(clean), want);
	for (size_t i = 0; i < ARRAY_SIZE(p->annots); i++) {
		struct profile_annot *an = &p->annots[i];

		if (!an->code)
			continue;
		annot_count(p, an);
		if (!best || annot_samples(p, an) > annot_samples(p, best))
			best = an;
	}
	fputs("\nANNOTATE ", f);
	if (!p->open) {
		fprintf(f, "%s: nothing was sampled (no sampling in this run)\n", clean);
	} else if (!best) {
		if (symbols_has_name(p->sym, want, module, sizeof(module)))
			fprintf(f, "%s: never sampled (it is in %s, but no sample fell in it)\n",
			        clean, module);
		else
			fprintf(f,
			        "%s: no function of that name in the binaries sampled or the "
			        "kernel (see the HOTSPOTS names)\n",
			        clean);
	} else {
		const struct symbols_code *c = best->code;
		char title[SYMBOLS_NAME_MAX + SYMBOLS_MODULE_MAX + ANNOTATE_WHY + 64];

		if (best->kernel)
			snprintf(title, sizeof(title), "%s %s%s%s (kernel, every process)",
			         c->sym.name, open_bracket(c->sym.module), c->sym.module,
			         close_bracket(c->sym.module));
		else
			snprintf(title, sizeof(title), "%s %s%s%s pid %d %s", c->sym.name,
			         open_bracket(c->sym.module), c->sym.module,
			         close_bracket(c->sym.module), (int)best->pid, best->comm);
		untrusted_fputs(f, title, false);
		fputc('\n', f);
		if (!best->kernel) {
			/* the file as the process named it, not through its /proc root */
			const char *shown = c->file;
			if (!strncmp(shown, "/proc/", 6) && strstr(shown, "/root/"))
				shown = strstr(shown, "/root/") + 5;
			fputs("  ", f);
			untrusted_fputs(f, shown, false);
			if (c->debug[0]) {
				fputs(", symbols and lines from ", f);
				untrusted_fputs(f, c->debug, false);
			}
			fputc('\n', f);
		}
		if (best->used && p->hot.watch[best->watch].partial)
			fputs("  samples counted from the tick it was first seen in (earlier ones "
			      "were "
			      "folded)\n",
			      f);
		annotate_print(f, &best->a);
		disk_note(f, best);
		for (size_t i = 0; i < ARRAY_SIZE(p->annots); i++) {
			const struct profile_annot *an = &p->annots[i];

			if (an->code && an != best) {
				snprintf(title, sizeof(title),
				         "  also in pid %d %s: %" PRIu64 " samples%s%s%s\n",
				         (int)an->pid, an->comm, annot_samples(p, an),
				         an->a.nr ? "" : " (no code: ", an->a.nr ? "" : an->a.why,
				         an->a.nr ? "" : ")");
				untrusted_fputs(f, title, true);
			}
		}
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}
