/* fuzz_preset: libFuzzer harness for preset_parse(), preset_choose() and expr_compile(). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "preset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			__builtin_trap();                                                          \
	} while (0)

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Deterministic: about half the names cannot be opened. */
static int fake_can_open(const char *event, char *why, size_t len, void *arg)
{
	if (hash(event) & 1) {
		snprintf(why, len, "cannot open %s", event);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Some names are "not available", the others have values; some zero. */
static double lookup(int var, const char *name, void *arg)
{
	uint32_t h = hash(name);

	if (h % 5 == 0)
		return NAN;
	if (h % 7 == 0)
		return 0;
	return (double)(h % 1000) - 300 + var;
}

static void fuzz_expr(const char *src)
{
	static char buf[16384], buf2[16384];
	struct expr e, e2;
	struct expr_error err;
	double v, v2;

	if (expr_compile(src, &e, &err)) {
		CHECK(err.col >= 1 && (size_t)err.col <= strlen(src) + 1);
		CHECK(err.msg[0]);
		expr_error_format(buf, sizeof(buf), "f.ini", 1, err.col, err.msg, src);
		return;
	}
	CHECK(e.nr_ops >= 1 && e.nr_ops <= EXPR_OPS_MAX);
	CHECK(e.depth >= 1 && e.depth <= e.nr_ops);
	v = expr_eval(&e, lookup, NULL);
	CHECK(isnan(v) || isfinite(v));
	/* printing gives text that compiles to the same code */
	CHECK(expr_format(&e, buf, sizeof(buf)) == 0);
	CHECK(expr_compile(buf, &e2, &err) == 0);
	CHECK(e2.nr_ops == e.nr_ops && e2.nr_vars == e.nr_vars);
	for (int i = 0; i < e.nr_ops; i++) {
		CHECK(e2.op[i].code == e.op[i].code && e2.op[i].argc == e.op[i].argc);
		CHECK(e.op[i].code != EXPR_OP_NUM || e2.op[i].num == e.op[i].num);
	}
	CHECK(expr_format(&e2, buf2, sizeof(buf2)) == 0);
	CHECK(!strcmp(buf, buf2));
	v2 = expr_eval(&e2, lookup, NULL);
	CHECK((isnan(v) && isnan(v2)) || v == v2);
}

static bool in_events(const struct preset *p, const char *name)
{
	for (int i = 0; i < p->nr_events; i++)
		if (!strcmp(p->ev[i].name, name))
			return true;
	return false;
}

static void check_preset(const struct preset_set *set, const struct preset *p)
{
	static struct preset_resolved r;
	int kept = 0;

	CHECK(p->nr_events >= 1 && p->nr_events <= EVENTS_LIST_MAX);
	CHECK(p->nr_metrics >= 0 && p->nr_metrics <= PRESET_METRICS_MAX);
	CHECK(preset_find(set, p->name, NULL, 0) != NULL);
	for (int k = 0; k < p->nr_metrics; k++) {
		const struct expr *e = &p->metric[k].expr;

		for (int v = 0; v < e->nr_vars; v++)
			CHECK(in_events(p, e->var[v]));
		fuzz_expr(p->metric[k].text);
	}
	CHECK(!p->sort[0] || in_events(p, p->sort) || p->nr_metrics > 0);

	CHECK(preset_choose(p, fake_can_open, NULL, &r) == 0);
	CHECK(r.nr == p->nr_events);
	CHECK(r.events.nr + r.nr_dropped == r.nr);
	for (int i = 0; i < r.nr; i++) {
		const struct preset_choice *c = &r.ev[i];

		if (c->dropped) {
			CHECK(c->index == -1 && !c->used[0] && c->why[0]);
			continue;
		}
		CHECK(c->index == kept);
		CHECK(!strcmp(r.events.name[kept], c->used));
		CHECK(r.events.group[kept] >= 0 && r.events.group[kept] < r.events.nr_groups);
		CHECK(!kept || r.events.group[kept] >= r.events.group[kept - 1]);
		kept++;
	}
	for (int k = 0; k < r.nr_metrics; k++)
		CHECK(r.metric[k].available == !r.metric[k].why[0]);
}

static void fuzz_preset(const char *text, size_t len)
{
	struct preset_set set;
	struct preset_error err;
	char buf[2048];
	int ret, nr;

	preset_set_init(&set);
	ret = preset_parse(&set, text, len, "fuzz.ini", PRESET_ORIGIN_FILE, &err);
	if (ret) {
		CHECK(ret == -EINVAL || ret == -ENOMEM);
		CHECK(set.nr == 0);
		if (ret == -EINVAL) {
			CHECK(err.msg[0] && err.line >= 1);
			preset_error_format(&err, buf, sizeof(buf));
		}
		return;
	}
	for (int i = 0; i < set.nr; i++)
		check_preset(&set, set.p[i]);
	/* the same text again replaces every preset by itself */
	nr = set.nr;
	CHECK(preset_parse(&set, text, len, "fuzz.ini", PRESET_ORIGIN_USER, &err) == 0);
	CHECK(set.nr == nr);
	for (int i = 0; i < set.nr; i++)
		CHECK(set.p[i]->origin == PRESET_ORIGIN_USER &&
		      (set.p[i]->pmu[0] || set.p[i]->overrides));
	preset_set_free(&set);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	fuzz_preset(text, size);
	fuzz_expr(text);
	free(text);
	return 0;
}
