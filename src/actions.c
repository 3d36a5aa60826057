/* actions: what pfmtop does instead of a run (--list-events, --probe,
 * --list-presets, --check-preset(s), --convert), and the preset loading
 * they share with the run. */
#include "actions.h"

#include "convert.h"
#include "events.h"
#include "explain.h"
#include "output.h"
#include "pfmlib.h"
#include "preset.h"
#include "probe.h"
#include "session.h"
#include "untrusted.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opening a tracepoint event costs the kernel an RCU grace period at close
 * (tens of ms), and the same rules decide for every tracepoint: a few are
 * tried, and the first that opens (or the third that fails) speaks for all. */
#define LIST_TP_TRIES 3
#define STR_(x)       #x
#define STR(x)        STR_(x)

struct list_ctx {
	struct probe probe;
	int nr, nr_open;
	int tp_tries, tp_err; /* tracepoints tried; their verdict once decided */
	bool tp_decided;
};

static int list_try_open(struct list_ctx *c, const struct event_desc *d)
{
	int e;

	if (d->source != EVENTS_SRC_TRACEPOINT)
		return session_try_open(&c->probe, d);
	if (c->tp_decided)
		return c->tp_err;
	e = session_try_open(&c->probe, d);
	if (!e || ++c->tp_tries == LIST_TP_TRIES) {
		c->tp_decided = true;
		c->tp_err = e;
	}
	return e;
}

static int list_one(const char *name, const char *desc, enum events_source src, void *arg)
{
	struct list_ctx *c = arg;
	struct event_desc d;
	char err[256];
	int e;

	c->nr++;
	if (events_resolve(NULL, name, &d, err, sizeof(err))) {
		printf("  %-44s  %-14s %s\n", name, "cannot encode", err);
		return 0;
	}
	e = list_try_open(c, &d);
	c->nr_open += e == 0;
	printf("  %-44s  %-14s %s\n", name, e ? explain_short(e) : "opens", desc ? desc : "");
	return 0;
}

int actions_list_events(const struct options *o)
{
	struct list_ctx c = {0};
	char err[320], tfs[320], tfs_note[360] = "";
	int n;

	probe_collect(&c.probe);
	if (!c.probe.tracefs[0] && events_tracefs_denied(NULL, tfs, sizeof(tfs)))
		snprintf(tfs_note, sizeof(tfs_note), "; tracepoints not listed: %s", tfs);
	n = events_list(NULL, o->list_glob, list_one, &c);
	if (n < 0) {
		untrusted_complain("cannot list events: %s\n", strerror(-n));
		return 1;
	}
	printf("%d events%s%s%s, %d open here%s", c.nr, o->list_glob ? " matching '" : "",
	       o->list_glob ? o->list_glob : "", o->list_glob ? "'" : "", c.nr_open,
	       tfs_note[0]           ? tfs_note
	       : !c.probe.tracefs[0] ? "; tracepoints not listed: tracefs is not mounted (mount -t "
	                               "tracefs nodev /sys/kernel/tracing)"
	       : !c.tp_decided       ? ""
	       : c.tp_err ? "; tracepoints: " STR(LIST_TP_TRIES) " failed to open, taken for all"
	                  : "; tracepoints: one opened, taken for all (one rule covers them)");
	if (!pfmlib_get(err, sizeof(err)))
		printf("; libpfm4 events not listed: %s", err);
	printf("\n");
	return c.nr ? 0 : 1;
}

int actions_probe(const struct options *o)
{
	struct probe p;
	char err[320];

	probe_collect(&p);
	probe_collect_libpfm(&p);
	probe_raise_nofile(&p);
	probe_print(&p, stdout);
	if (!o->events_given) {
		/* The preset this run would count, as it would be chosen. */
		struct preset_set set;
		const struct preset *pr;

		actions_load_presets(
		    &set, o->preset && actions_is_file(o->preset) ? o->preset : NULL, NULL);
		pr = actions_pick_preset(&set, o->preset ? o->preset : "default", &p);
		printf("\nevents of preset %s:\n", pr->name);
		for (int i = 0; i < pr->nr_events; i++) {
			struct event_desc d;
			int e;

			if (events_resolve(NULL, pr->ev[i].name, &d, err, sizeof(err))) {
				printf("  %-20s cannot encode: %s\n", pr->ev[i].name, err);
				continue;
			}
			e = session_can_open_desc(&d, err, sizeof(err), &p);
			if (e == 0)
				printf("  %-20s opens (%s)\n", pr->ev[i].name, d.encoding);
			else
				printf("  %-20s %s: %s\n", pr->ev[i].name, explain_short(-e), err);
		}
		preset_set_free(&set);
		return 0;
	}
	printf("\nevents of -e:\n");
	for (int i = 0; i < o->session.events.nr; i++) {
		const char *name = o->session.events.name[i];
		struct event_desc d;
		int e;

		if (events_resolve(NULL, name, &d, err, sizeof(err))) {
			printf("  %-20s cannot encode: %s\n", name, err);
			continue;
		}
		e = session_try_open(&p, &d);
		if (e == 0) {
			printf("  %-20s opens (%s)\n", name, d.encoding);
		} else {
			struct explain_ctx ctx = {
			    .probe = &p, .event = name, .attr = &d.attr, .cpu = -1};
			printf("  %-20s %s: %s\n", name, explain_short(e),
			       explain_open_error(e, &ctx, err, sizeof(err)));
		}
	}
	return 0;
}

/* ---- presets ---- */

bool actions_is_file(const char *arg)
{
	size_t n = strlen(arg);

	return strchr(arg, '/') || (n > 4 && !strcmp(arg + n - 4, ".ini"));
}

/* True when set has variants of the preset called name. */
static bool has_variants(const struct preset_set *set, const char *name)
{
	for (int i = 0; i < set->nr; i++)
		if (set->p[i]->pmu[0] && !strcmp(set->p[i]->name, name))
			return true;
	return false;
}

/* PMU names for choosing a variant of the preset called name in set (set
 * NULL: of any preset): the CPU's, when the kernel can count on it;
 * libpfm4's generic ones otherwise (variants would only drop out), which
 * need no libpfm4 to know. libpfm4 is loaded only when the kernel has a
 * core PMU and there is a variant to choose. */
static int preset_pmus(const struct preset_set *set, const char *name, struct probe *p,
                       const char **pmus, int max)
{
	static const char *const generic[] = {"perf", "perf_raw"};
	int n = 0;

	if (!p->core_pmu) {
		for (size_t i = 0; i < ARRAY_SIZE(generic) && n < max; i++)
			pmus[n++] = generic[i];
		return n;
	}
	if (set && !has_variants(set, name))
		return 0;
	if (!p->nr_libpfm_pmus)
		probe_collect_libpfm(p);
	for (int i = 0; i < p->nr_libpfm_pmus && n < max; i++)
		pmus[n++] = p->libpfm_pmus[i];
	return n;
}

/* Load every preset (built-in, share dir, /etc, ~/.config, file). A file of
 * the search path that does not load is skipped (set->files says why); the
 * explicit file's error is -errno with file:line:col in err. */
int actions_try_load_presets(struct preset_set *set, const char *file, const char *only, char *err,
                             size_t errlen)
{
	struct preset_paths paths;
	struct preset_error perr;
	int ret;

	preset_set_init(set);
	preset_paths_default(&paths);
	if (file)
		util_strlcpy(paths.file, file, sizeof(paths.file));
	paths.only = only;
	ret = preset_load_all(set, &paths, &perr);
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "cannot load the presets: %s", strerror(-ret));
		else
			preset_error_format(&perr, err, errlen);
		preset_set_free(set);
		return ret;
	}
	return 0;
}

/* actions_try_load_presets(), exiting 2 on an error. */
void actions_load_presets(struct preset_set *set, const char *file, const char *only)
{
	char buf[1024];

	if (actions_try_load_presets(set, file, only, buf, sizeof(buf))) {
		untrusted_complain("%s", buf);
		if (!buf[0] || buf[strlen(buf) - 1] != '\n')
			fputc('\n', stderr);
		exit(2);
	}
}

/* The one-line message for a skipped file of the search path: the first
 * line of its error. */
const char *actions_skipped_line(const struct preset_file *f, char *buf, size_t len)
{
	preset_error_format(&f->err, buf, len);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* One line per skipped file, to stderr: before the viewer starts, so they
 * stay on the terminal it gives back. */
static void warn_skipped(const struct preset_set *set)
{
	char buf[1024];

	for (int i = 0; i < set->nr_files; i++)
		if (set->files[i].ret)
			untrusted_complain("%s (skipped)\n",
			                   actions_skipped_line(&set->files[i], buf, sizeof(buf)));
}

/* The preset called name (with its variant for this machine's PMUs), or NULL. */
const struct preset *actions_preset_find_for(const struct preset_set *set, const char *name,
                                             struct probe *probe)
{
	const char *pmus[PROBE_MAX_PMUS];
	int nr = preset_pmus(set, name, probe, pmus, PROBE_MAX_PMUS);

	return preset_find(set, name, pmus, nr);
}

/* The preset an argument names: by name, or the first one in a file. A
 * skipped file that declares it stops the run with its error (exit 2); the
 * other skipped files get a warning line each. */
const struct preset *actions_pick_preset(const struct preset_set *set, const char *arg,
                                         struct probe *probe)
{
	const struct preset_file *broken;
	const char *name = arg;
	char buf[1024];

	if (actions_is_file(arg)) {
		name = NULL;
		for (int i = 0; i < set->nr && !name; i++)
			if (set->p[i]->origin == PRESET_ORIGIN_FILE)
				name = set->p[i]->name;
		if (!name) {
			untrusted_complain("%s holds no [preset NAME] section\n", arg);
			exit(2);
		}
	}
	broken = preset_broken_file(set, name);
	if (broken) {
		preset_error_format(&broken->err, buf, sizeof(buf));
		untrusted_complain("%s", buf);
		untrusted_complain("preset %s is selected, and %s declares it: fix the file "
		                   "(pfmtop --check-presets lists every file)\n",
		                   name, broken->path);
		exit(2);
	}
	warn_skipped(set);
	const struct preset *p = actions_preset_find_for(set, name, probe);
	if (!p) {
		untrusted_complain("unknown preset '%s': see 'pfmtop --list-presets'\n", name);
		exit(2);
	}
	return p;
}

int actions_list_presets(void)
{
	struct preset_resolved *r = malloc(sizeof(*r)); /* large: not on the stack */
	struct preset_set set;
	struct probe probe;

	if (!r) {
		untrusted_complain("out of memory\n");
		return 1;
	}
	probe_collect(&probe);
	actions_load_presets(&set, NULL, NULL);
	warn_skipped(&set);
	printf("%-12s %-10s %-34s %s\n", "PRESET", "ORIGIN", "HERE", "DESCRIPTION");
	for (int i = 0; i < set.nr; i++) {
		const struct preset *p = set.p[i];
		char here[64], name[PRESET_NAME_MAX + PRESET_PMU_MAX + 2];

		if (p->pmu[0])
			continue; /* variants are chosen for the machine below */
		const struct preset *use = actions_preset_find_for(&set, p->name, &probe);
		char why[PRESET_WHY_MAX + PRESET_NAME_MAX + 16];
		preset_choose(use, session_can_open, &probe, r);
		if (actions_preset_misspelt(use, why, sizeof(why)))
			snprintf(here, sizeof(here), "invalid (see --check-preset)");
		else if (!r->nr_fallbacks && !r->nr_dropped)
			snprintf(here, sizeof(here), "opens fully");
		else
			snprintf(here, sizeof(here), "%d fall back, %d not available",
			         r->nr_fallbacks, r->nr_dropped);
		snprintf(name, sizeof(name), "%s%s%s", p->name, use->pmu[0] ? ":" : "", use->pmu);
		printf("%-12s %-10s %-34s %s\n", name, preset_origin_name(p->origin), here,
		       p->description);
	}
	preset_set_free(&set);
	free(r);
	return 0;
}

/* --convert FILE: a recording in another format, to -o or standard output. */
int actions_convert(const struct options *o)
{
	struct output out;
	char err[PATH_MAX + 160];
	int ret = output_open(&out, o->output, o->output_mode, err, sizeof(err));

	if (ret) {
		untrusted_complain("%s\n", err);
		return 2;
	}
	/* every row recorded, unless -N or --hot cut them */
	const struct convert_cut cut = {
	    .top_n = o->top_given ? o->session.top_n : 0,
	    .hot_rows = o->hot_given ? o->session.profile.top : -1,
	};

	out.text.wide = o->wide;
	ret = convert_run(o->action == OPTIONS_CONVERT ? "--convert" : "--replay", o->convert,
	                  o->format, &cut, &out);
	int closed = output_close(&out);

	if (closed && !ret) {
		untrusted_complain("cannot write %s: %s\n", out.name, strerror(-closed));
		ret = 1;
	}
	return ret;
}

int actions_check_preset(const char *arg)
{
	const char *pmus[PROBE_MAX_PMUS];
	struct preset_set set;
	struct probe probe;
	int ret;

	probe_collect(&probe);
	if (actions_is_file(
	        arg)) { /* read by preset_check_file(): its variants are not known here */
		char why[160];
		struct stat st;
		int fd = util_open_config(AT_FDCWD, arg, true, &st, why, sizeof(why));

		if (fd < 0) {
			untrusted_complain("%s: %s\n", arg, why[0] ? why : strerror(-fd));
			return 2;
		}
		close(fd);
		return preset_check_file(arg, pmus,
		                         preset_pmus(NULL, NULL, &probe, pmus, PROBE_MAX_PMUS),
		                         session_can_open_desc, &probe, stdout);
	}
	actions_load_presets(&set, NULL, NULL);
	ret = preset_check(actions_pick_preset(&set, arg, &probe), session_can_open_desc, &probe,
	                   stdout);
	preset_set_free(&set);
	return ret;
}

/* --check-presets: every file of the search path, OK or its error; 2 when
 * one is broken or was skipped. */
int actions_check_presets(void)
{
	struct preset_paths paths;
	struct preset_set set;
	char buf[1024];
	int bad = 0;

	preset_paths_default(&paths);
	actions_load_presets(&set, NULL, NULL);
	printf("search path: built-in, %s, %s, %s\n", paths.datadir[0] ? paths.datadir : "-",
	       paths.sysconfdir[0] ? paths.sysconfdir : "-",
	       paths.userdir[0] ? paths.userdir : "-");
	for (int i = 0; i < set.nr_files; i++) {
		const struct preset_file *f = &set.files[i];

		if (!f->ret) {
			printf("%-9s %s: OK\n", preset_origin_name(f->origin), f->path);
			continue;
		}
		bad++;
		preset_error_format(&f->err, buf, sizeof(buf));
		printf("%-9s %s", preset_origin_name(f->origin), buf);
		if (!buf[0] || buf[strlen(buf) - 1] != '\n')
			putchar('\n');
	}
	printf("%d preset files: %d OK, %d broken or skipped\n", set.nr_files, set.nr_files - bad,
	       bad);
	preset_set_free(&set);
	return bad ? 2 : 0;
}

struct misspelt {
	char why[PRESET_WHY_MAX];
};

/* preset_choose()'s trial: the name resolved, nothing opened. */
static int resolve_only(const char *event, char *why, size_t whylen, void *arg)
{
	struct misspelt *m = arg;
	struct event_desc d;
	int ret = events_resolve(NULL, event, &d, why, whylen);

	if ((ret == -ENOENT || ret == -EINVAL) && !m->why[0])
		util_strlcpy(m->why, why, sizeof(m->why));
	return ret;
}

bool actions_preset_misspelt(const struct preset *p, char *why, size_t whylen)
{
	struct preset_resolved *r = malloc(sizeof(*r));
	struct misspelt m = {.why = ""};

	if (!r)
		return false; /* the run finds out */
	preset_choose(p, resolve_only, &m, r);
	free(r);
	if (m.why[0])
		snprintf(why, whylen, "preset %s: %s", p->name, m.why);
	return m.why[0];
}
