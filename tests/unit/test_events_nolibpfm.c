/* test_events_nolibpfm: a machine without libpfm4 (PFMTOP_TEST_LIBPFM names a
 * file that does not exist): the kernel's generic events, sysfs PMU events,
 * tracepoints and raw codes still resolve and list; libpfm4 names fail with
 * one sentence that says what to install. */
#include "events.h"
#include "pfmlib.h"
#include "probe.h"
#include "testutil.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define MISSING                                                                           \
	"libpfm4 is not installed (apt-get install libpfm4): only the kernel's generic "   \
	"events, tracepoints, sysfs PMU events and raw rNNN are available"

/* Where events are looked up: the machine until a test points it elsewhere. */
static struct event_roots roots;

static char err[512];

static void test_resolve(void **state)
{
	struct event_desc d;

	assert_int_equal(events_resolve(&roots, "task-clock:u", &d, err, sizeof(err)), 0);
	assert_int_equal(d.attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(d.attr.config, PERF_COUNT_SW_TASK_CLOCK);
	assert_string_equal(d.encoding, "perf::PERF_COUNT_SW_TASK_CLOCK:u=1:k=0:excl=0:mg=0:mh=1");
	assert_int_equal(events_resolve(&roots, "cycles", &d, err, sizeof(err)), 0);
	assert_true(d.hardware);
	assert_int_equal(events_resolve(&roots, "msr/tsc/", &d, err, sizeof(err)), 0);
	assert_int_equal(events_resolve(&roots, "r1a8", &d, err, sizeof(err)), 0);
	assert_int_equal(events_resolve(&roots, "sched:sched_switch", &d, err, sizeof(err)), 0);

	/* without libpfm4 a PMU's name may exist elsewhere: a gap, not a typo */
	assert_int_equal(events_resolve(&roots, "INST_RETIRED:ANY_P", &d, err, sizeof(err)), -ENODEV);
	assert_string_equal(err, "unknown event 'INST_RETIRED:ANY_P': " MISSING);
	assert_int_equal(events_resolve(&roots, "DTLB-LOAD-MISSES:u", &d, err, sizeof(err)), -ENODEV);
	assert_string_equal(err, "unknown event 'DTLB-LOAD-MISSES:u': " MISSING);
	assert_int_equal(events_resolve(&roots, "dTLB-load-misses:u", &d, err, sizeof(err)), 0);
	assert_int_equal(d.attr.type, PERF_TYPE_HW_CACHE);

	assert_int_equal(events_init(err, sizeof(err)), -EIO);
	assert_string_equal(err, MISSING);
	assert_false(pfmlib_loaded());
	assert_null(pfmlib_get(err, sizeof(err)));
	assert_string_equal(err, MISSING);
}

struct seen {
	int nr, generic;
	bool cycles, sysfs, tracepoint;
};

static int collect(const char *name, const char *desc, enum events_source src, void *arg)
{
	struct seen *s = arg;
	struct event_desc d;
	char why[512];
	int ret;

	s->nr++;
	s->generic += src == EVENTS_SRC_LIBPFM;
	s->sysfs |= src == EVENTS_SRC_SYSFS;
	s->tracepoint |= src == EVENTS_SRC_TRACEPOINT;
	if (!strcmp(name, "cycles")) {
		s->cycles = true;
		assert_string_equal(desc, "PERF_COUNT_HW_CPU_CYCLES");
	}
	/* Everything listed resolves. */
	ret = events_resolve(&roots, name, &d, why, sizeof(why));
	if (ret)
		print_error("%s: %s\n", name, why);
	assert_int_equal(ret, 0);
	return 0;
}

static void test_list(void **state)
{
	struct seen s = {0};
	int n = events_list(&roots, NULL, collect, &s);

	assert_int_equal(n, s.nr);
	assert_true(s.sysfs);
	assert_true(s.tracepoint);
#if defined(__x86_64__) || defined(__i386__)
	assert_true(s.cycles);
	assert_true(s.generic > 10);
#endif
}

static void test_probe(void **state)
{
	struct probe p;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	probe_collect(&p);
	probe_collect_libpfm(&p);
	assert_int_equal(p.nr_libpfm_pmus, 0);
	assert_string_equal(p.libpfm_err, MISSING);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	probe_print(&p, f);
	fclose(f);
	assert_non_null(strstr(text, "libpfm4 PMUs:"));
	assert_non_null(strstr(strstr(text, "libpfm4 PMUs:"), " none (" MISSING ")\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resolve),
	    cmocka_unit_test(test_list),
	    cmocka_unit_test(test_probe),
	};
	const char *fixtures = testutil_fixtures();
	char pmu_dir[4096], tracefs_dir[4096];

	snprintf(pmu_dir, sizeof(pmu_dir), "%s/pmu", fixtures);
	snprintf(tracefs_dir, sizeof(tracefs_dir), "%s/tracefs", fixtures);
	roots = (struct event_roots){pmu_dir, tracefs_dir};
	setenv("PFMTOP_TEST_LIBPFM", "/nonexistent/libpfm.so.4", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
