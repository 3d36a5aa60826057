/* openmetrics: running sums over intervals, names, labels and the two dialects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openmetrics.h"

/* Two events (page-faults, a count; task-clock, ns shown as ms) and an
 * unsupported one; two CPUs; tasks as given. */
static void setup_model(struct model *m)
{
	assert_int_equal(model_init(m, 3), 0);
	snprintf(m->events[0].name, sizeof(m->events[0].name), "page-faults");
	m->events[0].scale = 1.0;
	m->events[0].opened = true;
	m->events[0].coverage = 1.0;
	snprintf(m->events[1].name, sizeof(m->events[1].name), "task-clock");
	snprintf(m->events[1].unit, sizeof(m->events[1].unit), "ms");
	m->events[1].scale = 1e-6;
	m->events[1].opened = true;
	m->events[1].coverage = 0.5;
	m->events[1].state = COUNTER_MULTIPLEXED;
	snprintf(m->events[2].name, sizeof(m->events[2].name), "cycles");
	m->events[2].opened = false;
	m->events[2].state = COUNTER_UNSUPPORTED;
	m->mode = MODEL_SYSTEM;
	m->interval_s = 1.0;
	for (int c = 0; c < 2; c++) {
		struct model_row *r = model_add_cpu(m);
		assert_non_null(r);
		r->kind = MODEL_ROW_CPU;
		r->cpu = c;
		r->cpu_pct = 25.0 * c;
	}
}

static void set_cell(struct model_row *r, int ev, double v)
{
	r->cells[ev] = (struct counter_value){.value = v, .coverage = 1, .state = COUNTER_OK};
}

static struct model_row *add_task(struct model *m, pid_t pid, uint64_t start, const char *comm,
                                  double faults)
{
	struct model_row *t = model_add_task(m);

	assert_non_null(t);
	t->kind = MODEL_ROW_PROCESS;
	t->pid = t->tid = pid;
	t->start = start;
	t->counted = true;
	t->cpu_pct = 50;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	set_cell(t, 0, faults);
	return t;
}

/* One interval: CPU 0 and 1 fault f0 and f1 times, ran ms0 ms of task-clock. */
static void interval(struct model *m, uint64_t seq, double f0, double f1, double ms0)
{
	m->seq = seq;
	m->wall_ns = (1700000000ull + seq) * 1000000000ull;
	set_cell(&m->cpus[0], 0, f0);
	set_cell(&m->cpus[1], 0, f1);
	set_cell(&m->cpus[0], 1, ms0 * 1e6);
	m->cpus[0].cells[1].state = COUNTER_MULTIPLEXED;
}

static char *render(const struct om_state *st, const struct model *m, int tasks, enum om_dialect d)
{
	struct om_config cfg = {.tasks = tasks};
	size_t len = 0;
	char *text = om_render(st, m, &cfg, d, &len);

	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

static void assert_has(const char *text, const char *line)
{
	if (!strstr(text, line)) {
		fprintf(stderr, "%s", text); /* cmocka cuts long messages */
		fail_msg("missing %s in the text above", line);
	}
}

static void assert_lacks(const char *text, const char *what)
{
	if (strstr(text, what)) {
		fprintf(stderr, "%s", text);
		fail_msg("unexpected %s in the text above", what);
	}
}

static void test_counters_only_grow(void **state)
{
	struct om_state st;
	struct model m;
	char *t;

	setup_model(&m);
	om_init(&st);
	struct model_row *cg = model_add_cgroup(&m);
	assert_non_null(cg);
	cg->kind = MODEL_ROW_CGROUP;
	cg->counted = true;
	snprintf(cg->cgroup, sizeof(cg->cgroup), "/system.slice/a \"b\".service");
	set_cell(cg, 0, 4);
	interval(&m, 1, 100, 7, 250);
	assert_int_equal(om_update(&st, &m), 0);
	interval(&m, 2, 50, 0, 1000);
	assert_int_equal(om_update(&st, &m), 0);
	/* A final model holds the run's totals: nothing is added twice. */
	m.final = true;
	interval(&m, 3, 150, 7, 1250);
	assert_int_equal(om_update(&st, &m), 0);

	t = render(&st, &m, 0, OM_PROMETHEUS);
	assert_has(t, "# TYPE pfmtop_page_faults_total counter\n");
	assert_has(t, "# TYPE pfmtop_cpu_page_faults_total counter\n");
	assert_has(t, "pfmtop_cpu_page_faults_total{event=\"page-faults\",cpu=\"0\"} 150\n");
	assert_has(t, "pfmtop_cpu_page_faults_total{event=\"page-faults\",cpu=\"1\"} 7\n");
	/* the machine: what the CPUs add */
	assert_has(t, "pfmtop_page_faults_total{event=\"page-faults\"} 157\n");
	/* a cgroup's series: 4 in each of the two intervals added */
	assert_has(t, "# TYPE pfmtop_cgroup_page_faults_total counter\n");
	assert_has(t, "pfmtop_cgroup_page_faults_total{event=\"page-faults\","
	              "cgroup=\"/system.slice/a \\\"b\\\".service\"} 8\n");
	/* ns as seconds, in a family named for its unit */
	assert_has(t, "# TYPE pfmtop_task_clock_seconds_total counter\n");
	assert_has(t, "pfmtop_cpu_task_clock_seconds_total{event=\"task-clock\",cpu=\"0\"} 1.25\n");
	assert_has(t, "pfmtop_task_clock_seconds_total{event=\"task-clock\"} 1.25\n");
	/* an event that does not count here has a state, no counter */
	assert_lacks(t, "pfmtop_cycles_total");
	assert_has(t, "pfmtop_event_state{event=\"cycles\",state=\"unsupported\"} 1\n");
	assert_has(t, "pfmtop_event_state{event=\"cycles\",state=\"ok\"} 0\n");
	assert_has(t, "pfmtop_event_state{event=\"task-clock\",state=\"multiplexed\"} 1\n");
	assert_has(t, "pfmtop_event_coverage_ratio{event=\"task-clock\"} 0.5\n");
	assert_lacks(t, "_created");
	assert_lacks(t, "# EOF");
	assert_has(t, "pfmtop_cpu_busy_ratio{cpu=\"1\"} 0.25\n");
	free(t);

	t = render(&st, &m, 0, OM_OPENMETRICS);
	assert_has(t, "# TYPE pfmtop_page_faults counter\n");
	assert_has(t, "# TYPE pfmtop_cpu_page_faults counter\n");
	assert_has(t, "pfmtop_cpu_page_faults_total{event=\"page-faults\",cpu=\"0\"} 150\n");
	/* the series began with the first interval, a second before its end */
	assert_has(t, "pfmtop_cpu_page_faults_created{event=\"page-faults\",cpu=\"0\"} "
	              "1700000000.000\n");
	assert_has(t, "pfmtop_page_faults_created{event=\"page-faults\"} 1700000000.000\n");
	assert_has(t, "# UNIT pfmtop_task_clock_seconds seconds\n");
	assert_int_equal(strcmp(t + strlen(t) - 6, "# EOF\n"), 0);
	free(t);
	om_free(&st);
	model_fini(&m);
}

static void test_tasks(void **state)
{
	struct om_state st;
	struct model m;
	char *t;

	setup_model(&m);
	om_init(&st);
	st.keep_tasks = true;
	interval(&m, 1, 1, 1, 1);
	add_task(&m, 10, 111, "busy", 40);
	struct model_row *idle = add_task(&m, 11, 222, "idle", 5);
	idle->counted = false; /* a /proc-only row: never a series */
	add_task(&m, 12, 333, "a\"b\\c\nd\xff", 3);
	add_task(&m, 13, 444, "fourth", 1);
	om_update(&st, &m);
	/* pid 12 is recycled: another process, counted from 0 */
	m.tasks[2].start = 999;
	set_cell(&m.tasks[2], 0, 2);
	set_cell(&m.tasks[0], 0, 60);
	interval(&m, 2, 1, 1, 1);
	om_update(&st, &m);

	/* Without --export-tasks: no task series, only the count of tasks. */
	t = render(&st, &m, 0, OM_PROMETHEUS);
	assert_lacks(t, "pid=");
	free(t);

	/* The first two counted rows (the /proc-only one is skipped). */
	t = render(&st, &m, 2, OM_PROMETHEUS);
	assert_has(t, "pfmtop_task_page_faults_total{event=\"page-faults\",pid=\"10\","
	              "comm=\"busy\"} 100\n");
	/* hostile names: escaped, valid UTF-8, one line */
	assert_has(t, "pfmtop_task_page_faults_total{event=\"page-faults\",pid=\"12\","
	              "comm=\"a\\\"b\\\\c^Jd\\\\xff\"} 2\n");
	assert_lacks(t, "pid=\"11\"");
	assert_lacks(t, "pid=\"13\"");
	assert_has(t, "pfmtop_task_cpu_ratio{pid=\"10\",comm=\"busy\"} 0.5\n");
	free(t);
	om_free(&st);
	model_fini(&m);
}

/* Per-task sums only when tasks are exported; an exited task is forgotten
 * once an update has gone by without it, an idle one after 60. */
static void test_tasks_forgotten(void **state)
{
	struct om_state st;
	struct model m;
	uint64_t seq = 1;

	setup_model(&m);
	om_init(&st);
	add_task(&m, 20, 1, "a", 1);
	interval(&m, seq++, 1, 1, 1);
	om_update(&st, &m);
	assert_int_equal(st.nr_tasks, 0); /* not asked for: no per-task state */

	st.keep_tasks = true;
	add_task(&m, 21, 2, "b", 1)->exited = true;
	for (int i = 0; i < 8; i++) {
		interval(&m, seq++, 1, 1, 1);
		om_update(&st, &m);
	}
	assert_int_equal(st.nr_tasks, 2); /* still in the model: kept */
	model_clear_rows(&m);
	for (int c = 0; c < 2; c++) {
		struct model_row *r = model_add_cpu(&m);
		r->kind = MODEL_ROW_CPU;
		r->cpu = c;
	}
	add_task(&m, 20, 1, "a", 1);
	for (int i = 0; i < 8; i++) {
		interval(&m, seq++, 1, 1, 1);
		om_update(&st, &m);
	}
	assert_int_equal(st.nr_tasks, 1); /* the exited one went */
	model_clear_rows(&m);
	for (int c = 0; c < 2; c++) {
		struct model_row *r = model_add_cpu(&m);
		r->kind = MODEL_ROW_CPU;
		r->cpu = c;
	}
	for (int i = 0; i < 64; i++) {
		interval(&m, seq++, 1, 1, 1);
		om_update(&st, &m);
	}
	assert_int_equal(st.nr_tasks, 0); /* idle for 60 updates: gone */
	om_free(&st);
	model_fini(&m);
}

static void test_family_names(void **state)
{
	struct model_event e = {.scale = 1.0};
	char buf[160];

	snprintf(e.name, sizeof(e.name), "sched:sched_switch");
	assert_string_equal(om_event_family(&e, buf, sizeof(buf)), "pfmtop_sched_sched_switch");
	snprintf(e.name, sizeof(e.name), "cpu/event=0x3c,umask=0x00/u");
	assert_string_equal(om_event_family(&e, buf, sizeof(buf)),
	                    "pfmtop_cpu_event_0x3c_umask_0x00_u");
	snprintf(e.name, sizeof(e.name), "Cycles:K");
	assert_string_equal(om_event_family(&e, buf, sizeof(buf)), "pfmtop_cycles_k");
	/* an event may not take one of pfmtop's own families */
	snprintf(e.name, sizeof(e.name), "samples");
	assert_string_equal(om_event_family(&e, buf, sizeof(buf)), "pfmtop_samples_event");
	snprintf(e.name, sizeof(e.name), "power/energy-pkg/");
	snprintf(e.unit, sizeof(e.unit), "Joules");
	assert_string_equal(om_event_family(&e, buf, sizeof(buf)),
	                    "pfmtop_power_energy_pkg_joules");
	snprintf(e.name, sizeof(e.name), "---");
	e.unit[0] = '\0';
	assert_string_equal(om_event_family(&e, buf, sizeof(buf)), "pfmtop_event");
}

/* Two events with one family name share the family, told apart by the
 * event label; the family is written once. */
static void test_shared_family(void **state)
{
	struct om_state st;
	struct model m;
	char *t;

	setup_model(&m);
	snprintf(m.events[1].name, sizeof(m.events[1].name), "page_faults");
	m.events[1].unit[0] = '\0';
	m.events[1].scale = 1.0;
	om_init(&st);
	interval(&m, 1, 3, 4, 0);
	set_cell(&m.cpus[0], 1, 9);
	om_update(&st, &m);
	t = render(&st, &m, 0, OM_PROMETHEUS);
	assert_has(t, "pfmtop_cpu_page_faults_total{event=\"page-faults\",cpu=\"0\"} 3\n");
	assert_has(t, "pfmtop_cpu_page_faults_total{event=\"page_faults\",cpu=\"0\"} 9\n");
	assert_int_equal(strstr(strstr(t, "# TYPE pfmtop_page_faults_total") + 1,
	                        "# TYPE pfmtop_page_faults_total"),
	                 NULL);
	assert_int_equal(strstr(strstr(t, "# TYPE pfmtop_cpu_page_faults_total") + 1,
	                        "# TYPE pfmtop_cpu_page_faults_total"),
	                 NULL);
	free(t);
	om_free(&st);
	model_fini(&m);
}

/* The label names of a sample line ("event,cpu"), into keys; its name into
 * name; its value returned. */
static double parse_sample(const char *line, char *name, size_t nlen, char *keys, size_t klen)
{
	size_t n = strcspn(line, "{ ");
	const char *p = line + n;

	snprintf(name, nlen, "%.*s", (int)n, line);
	keys[0] = '\0';
	if (*p == '{') {
		for (p++; *p && *p != '}';) {
			size_t k = strcspn(p, "=");
			size_t used = strlen(keys);

			snprintf(keys + used, klen - used, "%s%.*s", used ? "," : "", (int)k, p);
			p += k + 2; /* =" */
			while (*p && *p != '"')
				p += *p == '\\' ? 2 : 1;
			p += *p == '"';
			p += *p == ',';
		}
		p += *p == '}';
	}
	return strtod(p, NULL);
}

/* Each scope is a family of its own: every series of a family has the same
 * label names, and sum() over the CPU family is the machine's family. An
 * event named like a scope ("cpu/page-faults/") does not take the CPU
 * family of another (page-faults). */
static void test_scopes_apart(void **state)
{
	struct {
		char name[160], keys[160];
	} fam[64];
	double cpu_sum = 0, all = -1;
	struct om_state st;
	struct model m;
	int nr = 0;

	setup_model(&m);
	snprintf(m.events[2].name, sizeof(m.events[2].name), "cpu/page-faults/");
	m.events[2].opened = true;
	m.events[2].scale = 1.0;
	om_init(&st);
	st.keep_tasks = true;
	struct model_row *cg = model_add_cgroup(&m);
	assert_non_null(cg);
	cg->kind = MODEL_ROW_CGROUP;
	cg->counted = true;
	snprintf(cg->cgroup, sizeof(cg->cgroup), "/a");
	set_cell(cg, 0, 4);
	add_task(&m, 10, 1, "busy", 40);
	for (uint64_t seq = 1; seq <= 3; seq++) {
		interval(&m, seq, 100.5 * (double)seq, 7, 250);
		set_cell(&m.cpus[1], 2, 5);
		om_update(&st, &m);
	}
	char *t = render(&st, &m, 5, OM_PROMETHEUS);
	char *save = NULL;
	for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[160], keys[160];
		int i;

		if (line[0] == '#')
			continue;
		double v = parse_sample(line, name, sizeof(name), keys, sizeof(keys));
		for (i = 0; i < nr && strcmp(fam[i].name, name); i++)
			;
		if (i == nr) {
			assert_true(nr < 64);
			snprintf(fam[nr].name, sizeof(fam[nr].name), "%s", name);
			snprintf(fam[nr++].keys, sizeof(fam[0].keys), "%s", keys);
		} else if (strcmp(fam[i].keys, keys)) {
			fail_msg("%s mixes series labelled {%s} and {%s}", name, fam[i].keys, keys);
		}
		if (!strcmp(name, "pfmtop_cpu_page_faults_total") &&
		    strstr(line, "event=\"page-faults\""))
			cpu_sum += v;
		if (!strcmp(name, "pfmtop_page_faults_total"))
			all = v;
	}
	free(t);
	assert_true(cpu_sum > 0);
	assert_true(fabs(cpu_sum - all) < 1e-9 * all);
	t = render(&st, &m, 5, OM_PROMETHEUS);
	assert_has(t, "pfmtop_cpu_page_faults_event_total{event=\"cpu/page-faults/\"} 15\n");
	assert_has(t,
	           "pfmtop_cpu_cpu_page_faults_total{event=\"cpu/page-faults/\",cpu=\"1\"} 15\n");
	assert_has(t,
	           "pfmtop_task_page_faults_total{event=\"page-faults\",pid=\"10\",comm=\"busy\"} "
	           "120\n");
	assert_has(t, "pfmtop_cgroup_page_faults_total{event=\"page-faults\",cgroup=\"/a\"} 12\n");
	free(t);
	om_free(&st);
	model_fini(&m);
}

/* With -p or a command the family of everything holds the targets' total;
 * there is no CPU family. */
static void test_targets_total(void **state)
{
	struct om_state st;
	struct model m;

	setup_model(&m);
	m.mode = MODEL_TASKS;
	om_init(&st);
	interval(&m, 1, 100, 7, 250);
	set_cell(&m.total, 0, 30);
	m.total.counted = true;
	om_update(&st, &m);
	char *t = render(&st, &m, 0, OM_PROMETHEUS);
	assert_has(t, "pfmtop_page_faults_total{event=\"page-faults\"} 30\n");
	assert_lacks(t, "pfmtop_cpu_page_faults");
	assert_lacks(t, "cpu=\"0\"} 100");
	free(t);
	om_free(&st);
	model_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counters_only_grow), cmocka_unit_test(test_tasks),
	    cmocka_unit_test(test_tasks_forgotten),    cmocka_unit_test(test_family_names),
	    cmocka_unit_test(test_shared_family),      cmocka_unit_test(test_scopes_apart),
	    cmocka_unit_test(test_targets_total),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
