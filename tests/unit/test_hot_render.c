/* Hotspot rows grouped by keys, with -g's children, self and call paths,
 * rendered as text and JSON, and the JSON read back to the same bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "model.h"
#include "model_json.h"
#include "snapshot.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text as --wide writes it: each line whole, for the phrases asserted. */
static char *render(const struct model *m, enum snapshot_format fmt)
{
	char *out = NULL;
	size_t len = 0;
	struct snapshot_text wide = {.wide = true};

	if (fmt == SNAPSHOT_TEXT) {
		out = snapshot_render_text(m, &wide, &len);
		assert_non_null(out);
		return out;
	}
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(snapshot_write(f, m, fmt), 0);
	assert_int_equal(fclose(f), 0);
	return out;
}

static void path(struct model *m, int row, bool callee, double share, int nr, const char **names)
{
	struct model_callpath *p = model_add_path(m, nr);

	assert_non_null(p);
	p->hot = row;
	p->callee = callee;
	p->share = share;
	p->samples = (uint64_t)(share * 10);
	for (int i = 0; i < nr; i++) {
		m->frames[p->first + i].symbol =
		    model_frame_name(m, names[i], MODEL_FRAME_SYMBOL_MAX);
		m->frames[p->first + i].module =
		    model_frame_name(m, "prog", MODEL_FRAME_MODULE_MAX);
	}
}

static void fill(struct model *m)
{
	struct model_hotspot *h;

	assert_int_equal(model_init(m, 1), 0);
	snprintf(m->events[0].name, sizeof(m->events[0].name), "task-clock");
	m->sampling.enabled = true;
	snprintf(m->sampling.event, sizeof(m->sampling.event), "cpu-clock");
	m->sampling.freq = 1000;
	snprintf(m->sampling.hot_keys, sizeof(m->sampling.hot_keys), "sym");
	m->sampling.callchain = true;
	m->sampling.chain_samples = 1000;
	/* a kernel function over five processes */
	h = model_add_hotspot(m);
	h->share = 60;
	h->samples = 600;
	h->pid = -1;
	h->kernel = true;
	h->processes = 5;
	snprintf(h->symbol, sizeof(h->symbol), "do_syscall_64");
	snprintf(h->module, sizeof(h->module), "[kernel]");
	h->children = 70;
	h->self = 60;
	/* a user function of one process; children not known */
	h = model_add_hotspot(m);
	h->share = 40;
	h->samples = 400;
	h->pid = 42;
	snprintf(h->comm, sizeof(h->comm), "prog");
	snprintf(h->symbol, sizeof(h->symbol), "leaf");
	snprintf(h->module, sizeof(h->module), "prog");
	h->self = 40;
	h->children = 40;
	path(m, 1, false, 24, 3, (const char *[]){"leaf", "caller_a", "main"});
	path(m, 1, false, 16, 3, (const char *[]){"leaf", "caller_b", "main"});
	path(m, 1, true, 40, 1, (const char *[]){"leaf"});
	/* children mode: a caller never sampled itself */
	h = model_add_hotspot(m);
	h->pid = 42;
	h->processes = 0;
	snprintf(h->comm, sizeof(h->comm), "prog");
	snprintf(h->symbol, sizeof(h->symbol), "main");
	snprintf(h->module, sizeof(h->module), "prog");
	h->children = 40;
	h->self = 0;
	m->hot_total = 3;
}

static void test_text(void **state)
{
	struct model m;
	char *t;

	fill(&m);
	t = render(&m, SNAPSHOT_TEXT);
	assert_non_null(strstr(t, "; by sym; children and self of 1000 samples with a chain"));
	assert_non_null(strstr(t, "CHILDREN"));
	/* the row over five processes has no single PID or command */
	const char *row = strstr(t, "do_syscall_64");
	assert_non_null(row);
	const char *bol = row;
	while (bol > t && bol[-1] != '\n')
		bol--;
	assert_non_null(strstr(bol, " - "));
	assert_non_null(strstr(t, "  leaf: children 40.0%, self 40.0%"));
	assert_non_null(strstr(t, "24.0% from   caller_a < main"));
	assert_non_null(strstr(t, "40.0% calls  (itself: the sampled function)"));
	assert_non_null(strstr(t, " 0.0%        0     40.0%   0.0%   42  prog     main"));
	free(t);
	model_fini(&m);
}

static void test_json_round_trip(void **state)
{
	struct model m, back;
	char *j, *again, err[256];

	fill(&m);
	j = render(&m, SNAPSHOT_JSON);
	assert_non_null(strstr(j, "\"keys\":\"sym\",\"call_chains\":true,\"chain_samples\":1000,"));
	assert_non_null(strstr(j, "\"pid\":-1,"));
	assert_non_null(strstr(j, "\"processes\":5"));
	assert_non_null(strstr(j, "\"children\":70,\"self\":60,\"callers\":[],\"callees\":[]"));
	assert_non_null(strstr(j,
	                       "\"callers\":[{\"share\":24,\"samples\":240,\"frames\":[{\"symbol\":"
	                       "\"leaf\",\"module\":\"prog\",\"kernel\":false},{\"symbol\":"
	                       "\"caller_a\""));
	assert_int_equal(model_from_json(&back, j, strlen(j), err, sizeof(err)), 0);
	assert_int_equal(back.nr_paths, 3);
	assert_int_equal(back.hot[0].processes, 5);
	assert_true(back.hot[1].children == 40);
	assert_int_equal(back.nr_hot, 3); /* the caller's row, no samples of its own */
	assert_true(back.hot[2].samples == 0 && back.hot[2].share == 0 && back.hot[2].self == 0);
	assert_int_equal(back.hot[2].processes, 0);
	again = render(&back, SNAPSHOT_JSON);
	assert_string_equal(strchr(again, ','), strchr(j, ','));
	free(again);
	free(j);
	model_fini(&back);
	/* not known: null, and back as NaN */
	m.hot[1].children = NAN;
	j = render(&m, SNAPSHOT_JSON);
	assert_non_null(strstr(j, "\"children\":null"));
	assert_int_equal(model_from_json(&back, j, strlen(j), err, sizeof(err)), 0);
	assert_true(isnan(back.hot[1].children));
	model_fini(&back);
	free(j);
	model_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text),
	    cmocka_unit_test(test_json_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
