/* test_events_builtin: the kernel's generic events that events_resolve(NULL, )
 * encodes without libpfm4 come out exactly as libpfm4 encodes them. */
#include "events.h"
#include "pfmlib.h"
#include "testutil.h"

#include <perfmon/pfmlib_perf_event.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Modifiers as pfmtop takes them, and as resolve_libpfm() hands them on. */
static const char *const mods[] = {"", ":u", ":k", ":uk", ":ku"};
static const char *const pfm_mods[] = {"", ":u", ":k", ":u:k", ":u:k"};
#define NR_MODS (sizeof(mods) / sizeof(mods[0]))
#define MAX_BUILTIN 64

static struct event_desc table[MAX_BUILTIN][NR_MODS];
static int nr_builtin;

/* What events_resolve(NULL, ) would make of libpfm4's own answer for name. */
static void libpfm_desc(const char *name, const char *mod, struct event_desc *d)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char buf[EVENTS_NAME_MAX + 8], *fstr = NULL, *sep;
	int ret;

	snprintf(buf, sizeof(buf), "%s%s", name, mod);
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(buf, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS)
		print_error("libpfm4 cannot encode %s: %s\n", buf, pfm_strerror(ret));
	assert_int_equal(ret, PFM_SUCCESS);
	assert_non_null(fstr);

	memset(d, 0, sizeof(*d));
	d->attr.size = sizeof(d->attr);
	d->attr.type = attr.type;
	d->attr.config = attr.config;
	d->attr.config1 = attr.config1;
	d->attr.config2 = attr.config2;
	d->attr.exclude_user = attr.exclude_user;
	d->attr.exclude_kernel = attr.exclude_kernel;
	d->attr.exclude_hv = attr.exclude_hv;
	d->attr.exclude_idle = attr.exclude_idle;
	d->attr.exclude_host = attr.exclude_host;
	d->attr.exclude_guest = attr.exclude_guest;
	d->hardware = attr.type == PERF_TYPE_HARDWARE || attr.type == PERF_TYPE_HW_CACHE ||
		      attr.type == PERF_TYPE_RAW || attr.type >= PERF_TYPE_MAX;
	snprintf(d->encoding, sizeof(d->encoding), "%s", fstr);
	sep = strstr(fstr, "::");
	snprintf(d->pmu, sizeof(d->pmu), "%.*s", sep ? (int)(sep - fstr) : 0, fstr);
	free(fstr);
}

static void assert_same(const char *what, const struct event_desc *got,
			const struct event_desc *want)
{
	if (strcmp(got->encoding, want->encoding) || got->attr.type != want->attr.type ||
	    got->attr.config != want->attr.config)
		print_error("%s: pfmtop %u 0x%llx %s, libpfm4 %u 0x%llx %s\n", what, got->attr.type,
			    (unsigned long long)got->attr.config, got->encoding, want->attr.type,
			    (unsigned long long)want->attr.config, want->encoding);
	assert_string_equal(got->encoding, want->encoding);
	assert_string_equal(got->pmu, want->pmu);
	assert_int_equal(got->source, EVENTS_SRC_LIBPFM);
	assert_int_equal(got->hardware, want->hardware);
	assert_int_equal(got->attr.type, want->attr.type);
	assert_int_equal(got->attr.config, want->attr.config);
	assert_int_equal(got->attr.exclude_user, want->attr.exclude_user);
	assert_int_equal(got->attr.exclude_kernel, want->attr.exclude_kernel);
	assert_int_equal(got->attr.exclude_hv, want->attr.exclude_hv);
	assert_int_equal(got->attr.exclude_idle, want->attr.exclude_idle);
	assert_int_equal(got->attr.exclude_host, want->attr.exclude_host);
	assert_int_equal(got->attr.exclude_guest, want->attr.exclude_guest);
	/* Nothing else set on either side. */
	assert_memory_equal(&got->attr, &want->attr, sizeof(got->attr));
	assert_true(got->scale == 1.0);
	assert_string_equal(got->unit, "");
	assert_string_equal(got->cpumask, "");
}

/* Runs first: every name of the table with every modifier, without libpfm4. */
static void test_table_needs_no_libpfm(void **state)
{
	char err[512], spec[EVENTS_NAME_MAX];
	int ret;

	assert_false(pfmlib_loaded());
	for (nr_builtin = 0; events_builtin_name(nr_builtin); nr_builtin++) {
		assert_true(nr_builtin < MAX_BUILTIN);
		for (size_t m = 0; m < NR_MODS; m++) {
			struct event_desc *d = &table[nr_builtin][m];

			snprintf(spec, sizeof(spec), "%s%s", events_builtin_name(nr_builtin),
				 mods[m]);
			err[0] = '\0';
			ret = events_resolve(NULL, spec, d, err, sizeof(err));
			if (ret)
				print_error("%s: %s\n", spec, err);
			assert_int_equal(ret, 0);
			assert_string_equal(d->name, spec);
		}
	}
	if (!nr_builtin)
		skip(); /* not x86: every name goes to libpfm4 */
	assert_false(pfmlib_loaded());
}

/* ... and each of them is what libpfm4 itself gives. */
static void test_table_matches_libpfm(void **state)
{
	char what[EVENTS_NAME_MAX + 64];
	struct event_desc want;

	if (!nr_builtin)
		skip();
	assert_int_equal(pfm_initialize(), PFM_SUCCESS);
	for (int i = 0; i < nr_builtin; i++) {
		for (size_t m = 0; m < NR_MODS; m++) {
			snprintf(what, sizeof(what), "%s%s", events_builtin_name(i), mods[m]);
			libpfm_desc(events_builtin_name(i), pfm_mods[m], &want);
			assert_same(what, &table[i][m], &want);
		}
	}
}

/* Other spellings are not in the table: libpfm4 resolves them, the same way. */
static void test_other_names_go_to_libpfm(void **state)
{
	static const char *const names[] = {"Cycles", "CYCLES", "PERF_COUNT_HW_CPU_CYCLES",
					    "perf::cycles", "branches", "DTLB-LOAD-MISSES",
					    "PERF_COUNT_HW_CACHE_LL:READ:MISS",
					    "idle-cycles-frontend"};
	struct event_desc d, want;
	char err[512];

	assert_int_equal(pfm_initialize(), PFM_SUCCESS);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		for (size_t m = 0; m < NR_MODS; m++) {
			char spec[EVENTS_NAME_MAX];

			int ret;

			snprintf(spec, sizeof(spec), "%s%s", names[i], mods[m]);
			ret = events_resolve(NULL, spec, &d, err, sizeof(err));
			if (ret)
				print_error("%s: %s\n", spec, err);
			assert_int_equal(ret, 0);
			libpfm_desc(names[i], pfm_mods[m], &want);
			assert_same(spec, &d, &want);
		}
	}
	assert_true(pfmlib_loaded());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table_needs_no_libpfm),
	    cmocka_unit_test(test_table_matches_libpfm),
	    cmocka_unit_test(test_other_names_go_to_libpfm),
	};

	/* Compared with libpfm4's generic "perf" PMU, on every host. */
	testutil_libpfm_unforced();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
