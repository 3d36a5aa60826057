/* preset_choose: what a preset counts on this machine (fallbacks), and the validator
 * behind --check-preset. */
#include "preset_priv.h"

#include "model.h"
#include "presets_builtin.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- choosing what to count ---- */

static int try_open(preset_can_open_fn can_open, void *arg, const char *name, char *why, size_t len)
{
	int ret;

	why[0] = '\0';
	ret = can_open(name, why, len, arg);
	if (ret > 0)
		ret = -ret;
	if (ret && !why[0])
		snprintf(why, len, "%s", strerror(-ret));
	return ret;
}

int preset_choose(const struct preset *p, preset_can_open_fn can_open, void *arg,
                  struct preset_resolved *out)
{
	int group_map[EVENTS_LIST_MAX];
	char why[PRESET_WHY_MAX];

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", p->name);
	for (int g = 0; g < EVENTS_LIST_MAX; g++)
		group_map[g] = -1;
	out->nr = p->nr_events;
	for (int i = 0; i < p->nr_events; i++) {
		const struct preset_event *ev = &p->ev[i];
		struct preset_choice *c = &out->ev[i];
		int ret;

		snprintf(c->wanted, sizeof(c->wanted), "%s", ev->name);
		c->fallback = -1;
		c->index = -1;
		ret = try_open(can_open, arg, ev->name, why, sizeof(why));
		if (!ret) {
			snprintf(c->used, sizeof(c->used), "%s", ev->name);
		} else {
			preset_appendf(c->why, sizeof(c->why), "%s: %s", ev->name, why);
			c->err = ret;
			for (int k = 0; k < ev->nr_fallbacks; k++) {
				if (!try_open(can_open, arg, ev->fallback[k], why, sizeof(why))) {
					snprintf(c->used, sizeof(c->used), "%s", ev->fallback[k]);
					c->fallback = k;
					c->err = 0;
					break;
				}
				preset_appendf(c->why, sizeof(c->why), "; %s: %s", ev->fallback[k],
				               why);
			}
			c->dropped = c->fallback < 0;
		}
		if (c->dropped) {
			out->nr_dropped++;
			continue;
		}
		out->nr_fallbacks += c->fallback >= 0;
		if (ev->group >= 0 && ev->group < EVENTS_LIST_MAX) {
			if (group_map[ev->group] < 0)
				group_map[ev->group] = out->events.nr_groups++;
			out->events.group[out->events.nr] = group_map[ev->group];
		} else {
			out->events.group[out->events.nr] = out->events.nr_groups++;
		}
		snprintf(out->events.name[out->events.nr], sizeof(out->events.name[0]), "%s",
		         c->used);
		c->index = out->events.nr++;
	}
	out->nr_metrics = p->nr_metrics;
	for (int k = 0; k < p->nr_metrics; k++) {
		struct preset_resolved_metric *rm = &out->metric[k];
		struct expr *e = &rm->m.expr;

		rm->m = p->metric[k];
		rm->available = true;
		for (int v = 0; v < e->nr_vars; v++) {
			int i = preset_find_event(p, e->var[v]);
			const struct preset_choice *c = i >= 0 ? &out->ev[i] : NULL;

			if (!c || c->dropped) {
				if (rm->available)
					preset_appendf(rm->why, sizeof(rm->why), "needs %s",
					               c ? c->why : "an event the preset lacks");
				rm->available = false;
			} else if (strcmp(c->used, c->wanted) && expr_rename(e, v, c->used)) {
				return -ENAMETOOLONG;
			}
		}
		out->nr_unavailable += !rm->available;
		if (expr_format(e, rm->m.text, sizeof(rm->m.text)))
			return -ENAMETOOLONG;
	}
	return 0;
}

/* ---- validator ---- */

#define CHECK_TRIES (EVENTS_LIST_MAX * (1 + PRESET_FALLBACKS_MAX))

struct check_ctx {
	preset_open_fn open;
	void *arg;
	int invalid; /* names events_resolve(NULL, ) called malformed or unknown */
	int nr;
	struct {
		char name[EVENTS_NAME_MAX];
		char encoding[EVENTS_ENC_MAX];
		int ret;
	} tried[CHECK_TRIES];
};

static int check_can_open(const char *event, char *why, size_t len, void *arg)
{
	struct check_ctx *ctx = arg;
	struct event_desc d;
	int ret;

	memset(&d, 0, sizeof(d));
	ret = events_resolve(NULL, event, &d, why, len);
	/* malformed, or a name no PMU, tracepoint or sysfs PMU has (a typo:
	 * -e gives exit 2 for it too); a PMU not here is only a gap */
	if (ret == -EINVAL || ret == -ENAMETOOLONG || ret == -ENOENT)
		ctx->invalid++;
	if (!ret && ctx->open)
		ret = ctx->open(&d, why, len, ctx->arg);
	if (ctx->nr < CHECK_TRIES) {
		snprintf(ctx->tried[ctx->nr].name, sizeof(ctx->tried[0].name), "%s", event);
		snprintf(ctx->tried[ctx->nr].encoding, sizeof(ctx->tried[0].encoding), "%s",
		         ret ? "" : d.encoding);
		ctx->tried[ctx->nr++].ret = ret;
	}
	return ret;
}

static const char *encoding_of(const struct check_ctx *ctx, const char *name)
{
	for (int i = 0; i < ctx->nr; i++)
		if (!strcmp(ctx->tried[i].name, name))
			return ctx->tried[i].encoding;
	return "";
}

int preset_check(const struct preset *p, preset_open_fn open, void *arg, FILE *out)
{
	struct check_ctx *ctx = calloc(1, sizeof(*ctx));
	struct preset_resolved *r = calloc(1, sizeof(*r));
	int ret, width = 8;

	if (!ctx || !r) {
		free(ctx);
		free(r);
		fprintf(out, "preset %s: out of memory\n", p->name);
		return 2;
	}
	ctx->open = open;
	ctx->arg = arg;
	fprintf(out, "preset %s%s%s (%s, %s:%d)\n", p->name, p->pmu[0] ? ":" : "", p->pmu,
	        preset_origin_name(p->origin), p->file, p->line);
	if (p->description[0])
		fprintf(out, "  %s\n", p->description);
	ret = preset_choose(p, check_can_open, ctx, r);
	if (ret) {
		fprintf(out, "  cannot resolve: %s\n", strerror(-ret));
		free(ctx);
		free(r);
		return 2;
	}
	for (int i = 0; i < r->nr; i++)
		if ((int)strlen(r->ev[i].wanted) > width)
			width = (int)strlen(r->ev[i].wanted);
	fprintf(out, "  events:\n");
	for (int i = 0; i < r->nr; i++) {
		const struct preset_choice *c = &r->ev[i];

		fprintf(out, "    g%-2d %-*s  ", p->ev[i].group + 1, width, c->wanted);
		if (c->dropped)
			fprintf(out, "dropped: %s\n", c->why);
		else if (c->fallback >= 0)
			fprintf(out, "fallback %s (%s): %s\n", c->used, encoding_of(ctx, c->used),
			        c->why);
		else
			fprintf(out, "ok (%s)\n", encoding_of(ctx, c->used));
	}
	if (r->nr_metrics)
		fprintf(out, "  metrics:\n");
	for (int k = 0; k < r->nr_metrics; k++) {
		const struct preset_resolved_metric *m = &r->metric[k];

		fprintf(out, "    %s = %s  ", m->m.name, m->m.text);
		if (m->available)
			fprintf(out, "ok\n");
		else
			fprintf(out, "unavailable: %s\n", m->why);
	}
	if (ctx->invalid)
		ret = 2;
	else if (r->nr_dropped || r->nr_unavailable)
		ret = 1;
	fprintf(out,
	        "  result: %d of %d events counted (%d by fallback), %d dropped; "
	        "%d of %d metrics available: %s\n",
	        r->nr - r->nr_dropped, r->nr, r->nr_fallbacks, r->nr_dropped,
	        r->nr_metrics - r->nr_unavailable, r->nr_metrics,
	        ret == 2   ? "invalid"
	        : ret == 1 ? "usable, with gaps"
	                   : "ok");
	free(ctx);
	free(r);
	return ret;
}

int preset_check_file(const char *path, const char *const *pmus, int nr_pmus, preset_open_fn open,
                      void *arg, FILE *out)
{
	struct preset_set set;
	struct preset_error err;
	char buf[1024];
	int worst = 0;

	preset_set_init(&set);
	if (preset_load_file(&set, path, PRESET_ORIGIN_FILE, &err)) {
		preset_error_format(&err, buf, sizeof(buf));
		fputs(buf, out);
		preset_set_free(&set);
		return 2;
	}
	for (int i = 0; i < set.nr; i = preset_group_end(&set, i)) {
		const struct preset *p = preset_find(&set, set.p[i]->name, pmus, nr_pmus);
		int ret;

		if (i)
			fputc('\n', out);
		ret = preset_check(p, open, arg, out);
		if (ret > worst)
			worst = ret;
		for (int v = i + 1; v < preset_group_end(&set, i); v++)
			if (set.p[v] != p)
				fprintf(out, "  variant :%s not for this machine (%s)\n",
				        set.p[v]->pmu, "checked as text only");
	}
	preset_set_free(&set);
	return worst;
}
