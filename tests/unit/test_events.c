/* test_events: event name resolution, -e list parsing and listing against fixtures. */
#include "events.h"

#include <linux/hw_breakpoint.h>
#include "pfmlib.h"
#include "testutil.h"

#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Where events are looked up: the machine until a test points it elsewhere. */
static struct event_roots roots;

static char pmu_dir[4096];
static char tracefs_dir[4096];
static char err[512];

static int resolve(const char *spec, struct event_desc *d)
{
	err[0] = '\0';
	return events_resolve(&roots, spec, d, err, sizeof(err));
}

/* Resolve spec, which must succeed, and check the common fields. */
static void resolve_ok(const char *spec, struct event_desc *d)
{
	int ret = resolve(spec, d);

	if (ret)
		print_error("%s: %d %s\n", spec, ret, err);
	assert_int_equal(ret, 0);
	assert_string_equal(d->name, spec);
	assert_int_equal(d->attr.size, sizeof(struct perf_event_attr));
}

static void assert_excludes(const struct event_desc *d, int user, int kernel, int hv)
{
	assert_int_equal(d->attr.exclude_user, user);
	assert_int_equal(d->attr.exclude_kernel, kernel);
	assert_int_equal(d->attr.exclude_hv, hv);
}

/* ---- sysfs PMUs ---- */

static void test_sysfs_alias(void **state)
{
	struct event_desc d;

	resolve_ok("msr/tsc/", &d);
	assert_int_equal(d.source, EVENTS_SRC_SYSFS);
	assert_int_equal(d.attr.type, 9);
	assert_int_equal(d.attr.config, 0);
	assert_string_equal(d.pmu, "msr");
	assert_string_equal(d.encoding, "msr/event=0x0/ (type 9, config 0x0)");
	assert_string_equal(d.cpumask, "");
	assert_true(d.hardware);
	assert_excludes(&d, 0, 0, 0);
	assert_true(d.scale == 1.0);

	resolve_ok("msr/aperf/", &d);
	assert_int_equal(d.attr.config, 1);

	resolve_ok("cpu/cycles-unhalted/", &d);
	assert_int_equal(d.attr.type, 4);
	assert_int_equal(d.attr.config, 0x3c);
	assert_string_equal(d.encoding, "cpu/event=0x3c,umask=0x0/ (type 4, config 0x3c)");

	/* Alias with a config1 term. */
	resolve_ok("cpu/mem-loads/", &d);
	assert_int_equal(d.attr.config, 0x1cd);
	assert_int_equal(d.attr.config1, 3);
	assert_string_equal(d.encoding, "cpu/event=0xcd,umask=0x1,ldlat=0x3/ "
					"(type 4, config 0x1cd, config1 0x3)");

	/* Alias with a flag term (no value = 1): inv is bit 23, cmask 24-31. */
	resolve_ok("cpu/cycles-inv/", &d);
	assert_int_equal(d.attr.config, 0x180003c);

	/* Later terms override what the alias set. */
	resolve_ok("cpu/cycles-unhalted,umask=0x2/", &d);
	assert_int_equal(d.attr.config, 0x23c);
}

static void test_sysfs_scale_unit(void **state)
{
	struct event_desc d;

	resolve_ok("cpu/energy-cores/", &d);
	assert_int_equal(d.attr.config, 1);
	assert_true(d.scale == 2.3283064365386962890625e-10);
	assert_string_equal(d.unit, "Joules");
}

static void test_sysfs_terms(void **state)
{
	struct event_desc d;

	resolve_ok("cpu/event=0x3c,umask=0x1,inv,cmask=2/", &d);
	assert_int_equal(d.attr.config, 0x280013c);
	assert_string_equal(d.encoding, "cpu/event=0x3c,umask=0x1,inv=0x1,cmask=0x2/ "
					"(type 4, config 0x280013c)");

	resolve_ok("cpu/ event=60 , edge /", &d);
	assert_int_equal(d.attr.config, 0x4003c);

	/* amd_df event is config:0-7,32-35,59-60: 14 bits in three pieces. */
	resolve_ok("amd_df/event=0x1ff,umask=0x3/", &d);
	assert_int_equal(d.attr.type, 12);
	assert_int_equal(d.attr.config, 0x1000003ffULL);
	assert_string_equal(d.cpumask, "0");
	assert_true(d.hardware);
	resolve_ok("amd_df/event=0x3fff/", &d);
	assert_int_equal(d.attr.config, 0x1800000f000000ffULL);

	/* config terms without a format file set the field directly. */
	resolve_ok("software/config=3/", &d);
	assert_int_equal(d.attr.type, 1);
	assert_int_equal(d.attr.config, 3);
	assert_false(d.hardware);
}

static void test_sysfs_errors(void **state)
{
	struct event_desc d;

	assert_int_equal(resolve("cpu/foo=1/", &d), -EINVAL);
	assert_string_equal(err, "unknown term 'foo' for PMU 'cpu': valid terms are cmask, edge, "
				 "event, inv, ldlat, umask, or an event from 'pfmtop --list-events "
				 "\"cpu/*\"'");
	assert_int_equal(resolve("msr/nosuch/", &d), -ENOENT);
	assert_string_equal(err, "unknown event or term 'nosuch' for PMU 'msr': valid terms are "
				 "event, or an event from 'pfmtop --list-events \"msr/*\"'");

	assert_int_equal(resolve("cpu/event=0x100/", &d), -EINVAL);
	assert_string_equal(err, "value 0x100 is too wide for term 'event' of PMU 'cpu' "
				 "(8 bits: config:0-7)");
	assert_int_equal(resolve("amd_df/event=0x4000/", &d), -EINVAL);
	assert_non_null(strstr(err, "(14 bits: config:0-7,32-35,59-60)"));
	assert_int_equal(resolve("cpu/inv=2/", &d), -EINVAL);

	assert_int_equal(resolve("cpu/event=zz/", &d), -EINVAL);
	assert_non_null(strstr(err, "bad value 'zz'"));
	assert_int_equal(resolve("cpu/event=1,,umask=1/", &d), -EINVAL);

	assert_int_equal(resolve("nopmu/event=1/", &d), -ENODEV);
	assert_non_null(strstr(err, "no PMU 'nopmu' on this machine"));
	assert_int_equal(resolve("msr/tsc", &d), -EINVAL);
	assert_non_null(strstr(err, "missing closing '/'"));
	assert_int_equal(resolve("msr/tsc/x", &d), -EINVAL);
	assert_non_null(strstr(err, "unknown modifier 'x'"));
}

static void test_sysfs_modifiers(void **state)
{
	struct event_desc d;

	resolve_ok("msr/tsc/u", &d);
	assert_excludes(&d, 0, 1, 1);
	assert_string_equal(d.encoding, "msr/event=0x0/u (type 9, config 0x0)");
	resolve_ok("msr/tsc/k", &d);
	assert_excludes(&d, 1, 0, 1);
	resolve_ok("msr/tsc/:u", &d);
	assert_excludes(&d, 0, 1, 1);
	resolve_ok("cpu/event=0x3c,umask=0/:k", &d);
	assert_excludes(&d, 1, 0, 1);
	assert_int_equal(d.attr.config, 0x3c);
	resolve_ok("msr/tsc/uk", &d);
	assert_excludes(&d, 0, 0, 1);
}

/* ---- raw ---- */

static void test_raw(void **state)
{
	struct event_desc d;

	resolve_ok("r1a8", &d);
	assert_int_equal(d.source, EVENTS_SRC_RAW);
	assert_int_equal(d.attr.type, PERF_TYPE_RAW);
	assert_int_equal(d.attr.config, 0x1a8);
	assert_string_equal(d.pmu, "raw");
	assert_string_equal(d.encoding, "r1a8 (type 4, config 0x1a8)");
	assert_true(d.hardware);
	assert_excludes(&d, 0, 0, 0);

	resolve_ok("r0x53003C", &d);
	assert_int_equal(d.attr.config, 0x53003c);

	resolve_ok("r1a8:u", &d);
	assert_int_equal(d.attr.config, 0x1a8);
	assert_excludes(&d, 0, 1, 1);
	resolve_ok("r1a8:k", &d);
	assert_excludes(&d, 1, 0, 1);

	/* Not hex: not raw, and not a libpfm4 name either. */
	assert_int_equal(resolve("rxyz", &d), -ENOENT);
}

/* ---- tracepoints ---- */

static void test_tracepoint(void **state)
{
	struct event_desc d;

	resolve_ok("sched:sched_switch", &d);
	assert_int_equal(d.source, EVENTS_SRC_TRACEPOINT);
	assert_int_equal(d.attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(d.attr.config, 314);
	assert_string_equal(d.pmu, "tracepoint");
	assert_string_equal(d.encoding, "sched:sched_switch (tracepoint id 314)");
	assert_false(d.hardware);
	assert_excludes(&d, 0, 0, 0);

	resolve_ok("irq:irq_handler_entry:k", &d);
	assert_int_equal(d.attr.config, 98);
	assert_excludes(&d, 1, 0, 1);
	resolve_ok("sched:sched_wakeup:u", &d);
	assert_int_equal(d.attr.config, 316);
	assert_excludes(&d, 0, 1, 1);

	assert_int_equal(resolve("sched:sched_nonexistent", &d), -ENOENT);
	assert_non_null(strstr(err, "unknown event 'sched:sched_nonexistent'"));
}

/* A table resolves each name once and gives the same answer after, for
 * names that fail too; a name that fails is not mistaken for another. */
static void test_table(void **state)
{
	struct events_table t = {0};
	struct event_desc a, b;
	char why[256];

	assert_int_equal(events_table_resolve(&t, &roots, "page-faults:u", &a, why, sizeof(why)), 0);
	assert_int_equal(events_table_resolve(&t, &roots, "page-faults:u", &b, why, sizeof(why)), 0);
	assert_int_equal(t.nr, 1);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_true(a.attr.exclude_kernel);
	assert_int_equal(events_table_resolve(&t, &roots, "no-such-event", &a, why, sizeof(why)),
			 -ENOENT);
	assert_non_null(strstr(why, "no-such-event"));
	why[0] = '\0';
	assert_int_equal(events_table_resolve(&t, &roots, "no-such-event", &b, why, sizeof(why)),
			 -ENOENT);
	assert_non_null(strstr(why, "no-such-event"));
	assert_int_equal(t.nr, 2);
	assert_null(events_table_find(&t, "page-faults"));
	assert_string_equal(events_table_find(&t, "no-such-event")->desc.name, "no-such-event");
	assert_null(events_table_find(NULL, "page-faults:u"));
	events_table_free(&t);
	assert_int_equal(t.nr, 0);
}

static void test_tracefs_not_mounted(void **state)
{
	char missing[4200];
	struct event_desc d;

	snprintf(missing, sizeof(missing), "%s/nonexistent", tracefs_dir);
	roots = (struct event_roots){pmu_dir, missing};
	assert_null(events_tracefs(&roots));
	assert_int_equal(resolve("sched:sched_switch", &d), -ENODEV);
	assert_string_equal(err, "tracefs is not mounted: run 'mount -t tracefs nodev "
				 "/sys/kernel/tracing' as root");
	/* Names libpfm4 knows still resolve without tracefs. */
	resolve_ok("cycles", &d);
	roots = (struct event_roots){pmu_dir, tracefs_dir};
	assert_string_equal(events_tracefs(&roots), tracefs_dir);
}

/* ---- libpfm4 ---- */

static void test_libpfm_generic(void **state)
{
	static const struct {
		const char *name;
		unsigned int type;
		unsigned long long config;
		bool hardware;
	} cases[] = {
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true },
		{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, true },
		{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, true },
		{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false },
		{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false },
		{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false },
		{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false },
		{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, false },
		/* L1D | READ << 8 | MISS << 16 */
		{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000, true },
	};
	struct event_desc d;
	size_t i;

	/* Spelled-out values too, so a wrong enum cannot hide a wrong table. */
	assert_int_equal(PERF_COUNT_SW_TASK_CLOCK, 1);
	assert_int_equal(PERF_COUNT_HW_BRANCH_MISSES, 5);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		resolve_ok(cases[i].name, &d);
		assert_int_equal(d.source, EVENTS_SRC_LIBPFM);
		assert_int_equal(d.attr.type, cases[i].type);
		assert_int_equal(d.attr.config, cases[i].config);
		assert_int_equal(d.hardware, cases[i].hardware);
		assert_string_equal(d.pmu, "perf");
		assert_excludes(&d, 0, 0, 1);
	}
	resolve_ok("cycles", &d);
	assert_string_equal(d.encoding, "perf::PERF_COUNT_HW_CPU_CYCLES:"
					"u=1:k=1:h=0:precise=0:excl=0:mg=0:mh=1");
	resolve_ok("task-clock", &d);
	assert_int_equal(d.attr.type, 1);
	assert_int_equal(d.attr.config, 1);
}

static void test_libpfm_modifiers(void **state)
{
	struct event_desc d;

	resolve_ok("cycles:u", &d);
	assert_int_equal(d.attr.config, 0);
	assert_excludes(&d, 0, 1, 1);
	resolve_ok("cycles:k", &d);
	assert_excludes(&d, 1, 0, 1);
	resolve_ok("cycles:uk", &d);
	assert_excludes(&d, 0, 0, 1);
	resolve_ok("task-clock:ku", &d);
	assert_excludes(&d, 0, 0, 1);
	resolve_ok("task-clock:u", &d);
	assert_int_equal(d.attr.type, 1);
	assert_excludes(&d, 0, 1, 1);
	resolve_ok("skl::INST_RETIRED:ANY_P:u", &d);
	assert_int_equal(d.attr.config, 0xc0);
	assert_excludes(&d, 0, 1, 0);
	resolve_ok("amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:k", &d);
	assert_excludes(&d, 1, 0, 1);
}

/* Encodings as libpfm4 4.13 gives them with PFM_OS_PERF_EVENT_EXT: the
 * u/k/int/en bits move into exclude_*, so config holds event and umask only. */
static void test_libpfm_pmu_specific(void **state)
{
	struct event_desc d;

	resolve_ok("amd64_fam19h_zen4::RETIRED_INSTRUCTIONS", &d);
	assert_int_equal(d.attr.type, PERF_TYPE_RAW);
	assert_int_equal(d.attr.config, 0xc0);
	assert_int_equal(d.attr.config1, 0);
	assert_string_equal(d.pmu, "amd64_fam19h_zen4");
	assert_true(d.hardware);
	assert_string_equal(d.encoding, "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:e=0:i=0:c=0:g=0:"
					"u=1:k=1:h=0:excl=0:mg=0:mh=1");

	resolve_ok("skl::INST_RETIRED:ANY_P", &d);
	assert_int_equal(d.attr.type, PERF_TYPE_RAW);
	assert_int_equal(d.attr.config, 0xc0);
	assert_int_equal((d.attr.config >> 8) & 0xff, 0); /* umask 0 */
	assert_string_equal(d.pmu, "skl");
	assert_true(d.hardware);
	assert_excludes(&d, 0, 0, 0);

	resolve_ok("skl::BR_MISP_RETIRED:ALL_BRANCHES", &d);
	assert_int_equal(d.attr.config, 0xc5);
}

static void test_libpfm_errors(void **state)
{
	struct event_desc d;

	assert_int_equal(resolve("foo", &d), -ENOENT);
	assert_string_equal(err, "unknown event 'foo': see 'pfmtop --list-events'");
	/* A PMU libpfm4 knows that no x86-64 host of today has (AMD family
	 * 10h, 2007): absent on every machine the suite runs on. */
	assert_int_equal(resolve("amd64_fam10h_barcelona::NO_SUCH_EVENT", &d), -ENOENT);
	assert_string_equal(err, "unknown event 'amd64_fam10h_barcelona::NO_SUCH_EVENT': PMU "
				 "'amd64_fam10h_barcelona' is not present on this machine and has "
				 "no such event; see 'pfmtop --list-events'");
	/* (its real events encode here, LIBPFM_ENCODE_INACTIVE being set;
	 * test_presets.sh checks that they are a gap, -ENODEV) */
	assert_int_equal(resolve("cycles:bogus", &d), -EINVAL);
	assert_string_equal(err, "unknown modifier 'bogus' in 'cycles:bogus' (column 8): modifiers "
	                         "are u, k, h, p, pp, ppp, H, G, I, S, D, W and e");
	assert_int_equal(resolve("", &d), -EINVAL);
}

/* ---- perf's syntax beyond names ---- */

static void test_perf_modifiers(void **state)
{
	struct event_desc d;

	resolve_ok("cpu-clock:ppp", &d);
	assert_int_equal(d.attr.precise_ip, 3);
	assert_non_null(strstr(d.encoding, "[:ppp]"));
	resolve_ok("cycles:upp", &d);
	assert_int_equal(d.attr.precise_ip, 2);
	assert_excludes(&d, 0, 1, 1);
	resolve_ok("task-clock:H", &d);
	assert_int_equal(d.attr.exclude_guest, 1);
	assert_int_equal(d.attr.exclude_host, 0);
	resolve_ok("task-clock:G", &d);
	assert_int_equal(d.attr.exclude_host, 1);
	assert_int_equal(d.attr.exclude_guest, 0);
	resolve_ok("task-clock:I", &d);
	assert_int_equal(d.attr.exclude_idle, 1);
	resolve_ok("task-clock:D", &d);
	assert_int_equal(d.attr.pinned, 1);
	resolve_ok("task-clock:SW", &d);
	resolve_ok("task-clock:h", &d);
	assert_excludes(&d, 1, 1, 0);
	resolve_ok("sched:sched_switch:k", &d);
	assert_excludes(&d, 1, 0, 1);
	resolve_ok("msr/tsc/pp", &d);
	assert_int_equal(d.attr.precise_ip, 2);

	assert_int_equal(resolve("cpu-clock:pppp", &d), -EINVAL);
	assert_non_null(strstr(err, "unknown modifier 'pppp' in 'cpu-clock:pppp' (column 11)"));
	assert_int_equal(resolve("sched:sched_switch:x", &d), -EINVAL);
	assert_non_null(strstr(err, "unknown modifier 'x' in 'sched:sched_switch:x' (column 20)"));
	assert_int_equal(resolve("msr/tsc/x", &d), -EINVAL);
	assert_non_null(strstr(err, "unknown modifier 'x' after 'msr/.../'"));
}

static void test_breakpoints(void **state)
{
	struct event_desc d;

	resolve_ok("mem:0x404020:w", &d);
	assert_int_equal(d.source, EVENTS_SRC_BREAKPOINT);
	assert_int_equal(d.attr.type, PERF_TYPE_BREAKPOINT);
	assert_int_equal(d.attr.bp_addr, 0x404020);
	assert_int_equal(d.attr.bp_type, HW_BREAKPOINT_W);
	assert_int_equal(d.attr.bp_len, HW_BREAKPOINT_LEN_4);
	resolve_ok("mem:4096/8:rw", &d);
	assert_int_equal(d.attr.bp_addr, 4096);
	assert_int_equal(d.attr.bp_type, HW_BREAKPOINT_R | HW_BREAKPOINT_W);
	assert_int_equal(d.attr.bp_len, 8);
	resolve_ok("mem:0x1000", &d); /* perf's default: read and write */
	assert_int_equal(d.attr.bp_type, HW_BREAKPOINT_R | HW_BREAKPOINT_W);
	resolve_ok("mem:0x1000:x", &d);
	assert_int_equal(d.attr.bp_type, HW_BREAKPOINT_X);
	assert_int_equal(d.attr.bp_len, sizeof(long));

	assert_int_equal(resolve("mem:", &d), -EINVAL);
	assert_non_null(strstr(err, "needs an address"));
	assert_int_equal(resolve("mem:0x10/3", &d), -EINVAL);
	assert_non_null(strstr(err, "1, 2, 4 or 8 bytes"));
	assert_int_equal(resolve("mem:0x10:rq", &d), -EINVAL);
	assert_non_null(strstr(err, "the access is r, w, x or rw, at 11"));
	assert_int_equal(resolve("mem:0x10:rx", &d), -EINVAL);
	assert_int_equal(resolve("mem:0x10:ww", &d), -EINVAL);
}

static void test_software_and_terms(void **state)
{
	struct event_desc d;

	resolve_ok("alignment-faults", &d);
	assert_int_equal(d.attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(d.attr.config, PERF_COUNT_SW_ALIGNMENT_FAULTS);
	resolve_ok("emulation-faults:u", &d);
	assert_int_equal(d.attr.config, PERF_COUNT_SW_EMULATION_FAULTS);
	assert_excludes(&d, 0, 1, 1);
	resolve_ok("dummy", &d);
	assert_int_equal(d.attr.config, PERF_COUNT_SW_DUMMY);
	resolve_ok("bpf-output", &d);
	assert_int_equal(d.attr.config, PERF_COUNT_SW_BPF_OUTPUT);

	resolve_ok("cpu-clock/period=100000/", &d);
	assert_int_equal(d.attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(d.attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(resolve("cpu-clock/name=tick,freq=99/", &d), 0);
	assert_string_equal(d.name, "tick");
	assert_int_equal(resolve("cpu-clock/bogus=1/", &d), -EINVAL);
	assert_non_null(strstr(err, "unknown term 'bogus=1' on 'cpu-clock/bogus=1/'"));
	assert_int_equal(resolve("nosuchthing/event=1/", &d), -ENODEV);
	assert_non_null(strstr(err, "no PMU 'nosuchthing'"));
}

static void test_parse_list_perf(void **state)
{
	struct events_list l;

	memset(&l, 0, sizeof(l));
	assert_int_equal(events_parse_list("{cpu-clock,task-clock:k}:u,mem:0x10/8:w,cs", &l, err,
	                                   sizeof(err)),
	                 0);
	assert_int_equal(l.nr, 4);
	assert_string_equal(l.name[0], "cpu-clock:u");
	assert_string_equal(l.name[1], "task-clock:ku");
	assert_int_equal(l.group[0], l.group[1]);
	assert_string_equal(l.name[2], "mem:0x10/8:w");
	assert_string_equal(l.name[3], "cs");
	assert_int_equal(l.nr_groups, 3);

	memset(&l, 0, sizeof(l));
	assert_int_equal(events_parse_list("{a,b}:S", &l, err, sizeof(err)), 0);
	assert_string_equal(l.name[1], "b:S");
	memset(&l, 0, sizeof(l));
	assert_int_equal(events_parse_list("{a,b}:zz,c", &l, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "column 7: unknown group modifiers"));
}

static void test_tracepoint_globs(void **state)
{
	struct events_list l;

	memset(&l, 0, sizeof(l));
	assert_int_equal(events_parse_list("sched:sched_*:u,{cs,*:irq_handler_entry}", &l, err,
	                                   sizeof(err)),
	                 0);
	assert_int_equal(events_expand_globs(&roots, &l, err, sizeof(err)), 0);
	assert_int_equal(l.nr, 4);
	assert_string_equal(l.name[0], "sched:sched_switch:u");
	assert_string_equal(l.name[1], "sched:sched_wakeup:u");
	assert_true(l.group[0] != l.group[1]); /* each its own, as the glob was */
	assert_string_equal(l.name[2], "cs");
	assert_string_equal(l.name[3], "irq:irq_handler_entry");
	assert_int_equal(l.group[2], l.group[3]); /* the glob's group */

	memset(&l, 0, sizeof(l));
	assert_int_equal(events_parse_list("sched:nothing_*", &l, err, sizeof(err)), 0);
	assert_int_equal(events_expand_globs(&roots, &l, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no tracepoint matches 'sched:nothing_*'"));
}

/* ---- -e lists ---- */

static void test_parse_list(void **state)
{
	struct events_list l = { 0 };

	assert_int_equal(events_parse_list("{cycles,instructions},task-clock", &l, err,
					   sizeof(err)),
			 0);
	assert_int_equal(l.nr, 3);
	assert_int_equal(l.nr_groups, 2);
	assert_string_equal(l.name[0], "cycles");
	assert_string_equal(l.name[1], "instructions");
	assert_string_equal(l.name[2], "task-clock");
	assert_int_equal(l.group[0], 0);
	assert_int_equal(l.group[1], 0);
	assert_int_equal(l.group[2], 1);

	/* Appends; whitespace around names is ignored. */
	assert_int_equal(events_parse_list(" { a , b:u } , c ", &l, err, sizeof(err)), 0);
	assert_int_equal(l.nr, 6);
	assert_int_equal(l.nr_groups, 4);
	assert_string_equal(l.name[3], "a");
	assert_string_equal(l.name[4], "b:u");
	assert_string_equal(l.name[5], "c");
	assert_int_equal(l.group[3], 2);
	assert_int_equal(l.group[4], 2);
	assert_int_equal(l.group[5], 3);
}

static void test_parse_list_sysfs(void **state)
{
	struct events_list l = { 0 };

	assert_int_equal(events_parse_list("cpu/event=0x3c,umask=0/,msr/tsc/u,{sched:sched_switch,"
					   "cpu/event=1,inv/k}",
					   &l, err, sizeof(err)),
			 0);
	assert_int_equal(l.nr, 4);
	assert_string_equal(l.name[0], "cpu/event=0x3c,umask=0/");
	assert_string_equal(l.name[1], "msr/tsc/u");
	assert_string_equal(l.name[2], "sched:sched_switch");
	assert_string_equal(l.name[3], "cpu/event=1,inv/k");
	assert_int_equal(l.group[0], 0);
	assert_int_equal(l.group[1], 1);
	assert_int_equal(l.group[2], 2);
	assert_int_equal(l.group[3], 2);
	assert_int_equal(l.nr_groups, 3);
}

static void parse_fails(const char *list, const char *msg)
{
	struct events_list l = { 0 };

	l.nr = 1;
	strcpy(l.name[0], "kept");
	err[0] = '\0';
	assert_int_equal(events_parse_list(list, &l, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, msg);
	/* Nothing was appended. */
	assert_int_equal(l.nr, 1);
	assert_int_equal(l.nr_groups, 0);
	assert_string_equal(l.name[0], "kept");
}

static void test_parse_list_errors(void **state)
{
	struct events_list l;
	char many[1024];
	size_t off = 0;
	int i;

	parse_fails("cycles,inst}", "column 12: '}' without '{'");
	parse_fails("{a,{b}}", "column 4: nested '{'");
	parse_fails("x,{a,b", "column 3: '{' without '}'");
	parse_fails("a,,b", "column 3: empty event name");
	parse_fails("a, ,b", "column 4: empty event name");
	parse_fails("a,", "column 3: empty event name");
	parse_fails("", "column 1: empty event name");
	parse_fails("{}", "column 2: empty event name");
	parse_fails("{a}b", "column 4: missing ',' after '}'");
	parse_fails("{a} {b}", "column 5: missing ',' before '{'");
	parse_fails("a{b}", "column 2: missing ',' before '{'");
	parse_fails("x,cpu/event=1,umask=2", "column 6: '/' without closing '/'");

	/* "e00,e01,...": with "kept" already in the list, the 64th new name
	 * ("e63", column 63 * 4 + 1) is one too many. */
	for (i = 0; i < 64; i++)
		off += snprintf(many + off, sizeof(many) - off, "%se%02d", i ? "," : "", i);
	parse_fails(many, "column 253: too many events (at most 64)");
	memset(&l, 0, sizeof(l));
	assert_int_equal(events_parse_list(many, &l, err, sizeof(err)), 0);
	assert_int_equal(l.nr, 64);
	assert_int_equal(l.nr_groups, 64);
	assert_string_equal(l.name[63], "e63");
}

/* ---- where a refusal points ---- */

/* "\n  LIST\n  " then a caret under list[at, at + span): what events_caret()
 * appends, computed here from the part's place in the list. */
static void expect_caret(char *want, size_t len, const char *msg, const char *list, size_t at,
                         size_t span)
{
	size_t n = (size_t)snprintf(want, len, "%s\n  %s\n  %*s^", msg, list, (int)at, "");

	for (size_t k = 1; k < span && n + 1 < len; k++)
		want[n++] = '~';
	want[n] = '\0';
}

/* list, parsed, globs expanded and each event resolved as a session does,
 * is refused; the message (unchanged) is followed by the list and a caret
 * under part, the first place part is written in the list. */
static void refused_at(const char *list, const char *part)
{
	struct events_list l;
	struct event_desc d;
	char msg[512], want[1024];
	const char *where = strstr(list, part);
	int ret = 0, i;

	assert_non_null(where);
	memset(&l, 0, sizeof(l));
	assert_int_equal(events_parse_list(list, &l, err, sizeof(err)), 0);
	err[0] = '\0';
	if (events_expand_globs(&roots, &l, err, sizeof(err))) {
		/* its own message, with the caret already */
		snprintf(msg, sizeof(msg), "%.*s", (int)strcspn(err, "\n"), err);
		expect_caret(want, sizeof(want), msg, list, (size_t)(where - list), strlen(part));
		assert_string_equal(err, want);
		return;
	}
	for (i = 0; i < l.nr && !ret; i++)
		ret = resolve(l.name[i], &d);
	if (!ret)
		print_error("'%s' was not refused\n", list);
	assert_int_not_equal(ret, 0);
	snprintf(msg, sizeof(msg), "%s", err);
	assert_int_equal(events_list_caret(&l, i - 1, d.err_at, d.err_len, err, sizeof(err)), 0);
	expect_caret(want, sizeof(want), msg, list, (size_t)(where - list), strlen(part));
	assert_string_equal(err, want);
	assert_int_equal(events_list_column(&l, i - 1, d.err_len ? d.err_at : 0),
	                 (int)(where - list) + 1);
}

static void test_refusal_positions(void **state)
{
	struct events_list l;
	char buf[64], longer[256];

	/* an event's modifier, breakpoint access, address, length, terms */
	refused_at("cpu-clock:x", "x");
	refused_at("page-faults,cpu-clock:x", "x");
	refused_at("cs, mem:0x10:q", "q");
	refused_at("cs,mem:zz", "zz");
	refused_at("cs,mem:0x10/3:w", "3");
	refused_at("cs,mem:0x10:rx", "rx");
	refused_at("cs,msr/tsc/x", "x");
	refused_at("cs,cpu-clock/period=1,bogus=1/", "bogus=1");
	refused_at("cs,cpu/event=1,bogus=1/", "bogus=1");
	/* whole events: unknown names, tracepoints and PMUs */
	refused_at("cs,sched:nosuch", "sched:nosuch");
	refused_at("page-faults,nosuch:foo", "nosuch:foo");
	refused_at("cs,nosuchpmu/event=1/", "nosuchpmu");
	refused_at("{cpu-clock,bogus}", "bogus");
	refused_at("cs, { bogus ,cs}:u", "bogus");
	refused_at("{cs,cpu-clock}:u,{task-clock:x,cs}", "x");
	/* a tracepoint glob that matches nothing */
	refused_at("cs, sched:nothing_*", "sched:nothing_*");
	/* a part of a name that its group's modifiers gave it: the modifiers
	 * (no name is refused for them yet: the list parser checks them) */
	memset(&l, 0, sizeof(l));
	assert_int_equal(events_parse_list("{cs,cpu-clock}:u", &l, err, sizeof(err)), 0);
	snprintf(buf, sizeof(buf), "reason");
	assert_int_equal(events_list_caret(&l, 1, strlen("cpu-clock:"), 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "reason\n  {cs,cpu-clock}:u\n                 ^");
	/* a list not parsed from a string has no place to show */
	l.src[1] = NULL;
	assert_int_equal(events_list_caret(&l, 1, 0, 0, buf, sizeof(buf)), -1);
	assert_int_equal(events_list_column(&l, 1, 0), 0);

	/* where each name was written, and its group's modifiers */
	memset(&l, 0, sizeof(l));
	assert_int_equal(events_parse_list("cs, {a,b:u}:k", &l, err, sizeof(err)), 0);
	assert_int_equal(l.at[0], 0);
	assert_int_equal(l.len[0], 2);
	assert_int_equal(l.mods_len[0], 0);
	assert_int_equal(l.at[1], 5);
	assert_int_equal(l.len[1], 1);
	assert_int_equal(l.at[2], 7);
	assert_int_equal(l.len[2], 3);
	assert_int_equal(l.mods_at[2], 12);
	assert_int_equal(l.mods_len[2], 1);

	/* no caret: a list too long for a line, bytes that are not text, or
	 * no room; the message stays as it was */
	memset(longer, 'a', 200);
	longer[200] = '\0';
	snprintf(buf, sizeof(buf), "reason");
	assert_int_equal(events_caret(buf, sizeof(buf), longer, 3, 1), -1);
	assert_int_equal(events_caret(buf, sizeof(buf), "a\tb", 2, 1), -1);
	assert_int_equal(events_caret(buf, 20, "cycles,instructions", 7, 12), -1);
	assert_string_equal(buf, "reason");
	assert_int_equal(events_caret(buf, sizeof(buf), "a,", 2, 1), 0);
	assert_string_equal(buf, "reason\n  a,\n    ^");
}

/* ---- listing ---- */

struct seen {
	char names[32][EVENTS_NAME_MAX];
	enum events_source src[32];
	int nr;
	int stop_after;
};

static int collect(const char *name, const char *desc, enum events_source src, void *arg)
{
	struct seen *s = arg;

	assert_non_null(desc);
	if (s->nr < 32) {
		snprintf(s->names[s->nr], EVENTS_NAME_MAX, "%s", name);
		s->src[s->nr] = src;
	}
	s->nr++;
	return s->stop_after && s->nr >= s->stop_after;
}

static void test_list(void **state)
{
	struct seen s = { 0 };
	int n;

	n = events_list(&roots, "*tsc*", collect, &s);
	assert_int_equal(n, 1);
	assert_int_equal(s.nr, 1);
	assert_string_equal(s.names[0], "msr/tsc/");
	assert_int_equal(s.src[0], EVENTS_SRC_SYSFS);

	memset(&s, 0, sizeof(s));
	assert_int_equal(events_list(&roots, "sched:*", collect, &s), 2);
	assert_string_equal(s.names[0], "sched:sched_switch");
	assert_string_equal(s.names[1], "sched:sched_wakeup");
	assert_int_equal(s.src[0], EVENTS_SRC_TRACEPOINT);

	/* .scale and .unit files are not events. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(events_list(&roots, "cpu/*", collect, &s), 5);
	assert_string_equal(s.names[0], "cpu/cpu-cycles/");
	assert_string_equal(s.names[1], "cpu/cycles-inv/");
	assert_string_equal(s.names[2], "cpu/cycles-unhalted/");
	assert_string_equal(s.names[3], "cpu/energy-cores/");
	assert_string_equal(s.names[4], "cpu/mem-loads/");

	/* Generic names come out as perf spells them, and resolve. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(events_list(&roots, "task-clock", collect, &s), 1);
	assert_string_equal(s.names[0], "task-clock");
	assert_int_equal(s.src[0], EVENTS_SRC_LIBPFM);
	/* A PMU-specific event is listed as pmu::EVENT (the glob matched
	 * without regard to case) when libpfm4 detected its PMU here, and
	 * not at all when it did not: which core PMU a host has (if any:
	 * libpfm4 4.13 knows no Zen 5) is asked of libpfm4 itself. */
	char want[EVENTS_NAME_MAX] = "", glob[EVENTS_NAME_MAX];
	const struct pfmlib *lib = pfmlib_get(NULL, 0);
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	int pmu;

	assert_non_null(lib);
	pfm_for_all_pmus(pmu) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (want[0] || lib->get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present ||
		    !strcmp(pinfo.name, "perf") || !strcmp(pinfo.name, "perf_raw"))
			continue;
		memset(&einfo, 0, sizeof(einfo));
		einfo.size = sizeof(einfo);
		assert_int_equal(lib->get_event_info(pinfo.first_event, PFM_OS_NONE, &einfo),
				 PFM_SUCCESS);
		snprintf(want, sizeof(want), "%s::%s", pinfo.name, einfo.name);
	}
	memset(&s, 0, sizeof(s));
	if (want[0]) {
		for (size_t i = 0; i < sizeof(glob) && (!i || want[i - 1]); i++)
			glob[i] = (char)toupper((unsigned char)want[i]);
		assert_int_equal(events_list(&roots, glob, collect, &s), 1);
		assert_string_equal(s.names[0], want);
		assert_int_equal(s.src[0], EVENTS_SRC_LIBPFM);
	} else {
		assert_int_equal(events_list(&roots, "*::RETIRED_INSTRUCTIONS", collect, &s), 0);
	}

	memset(&s, 0, sizeof(s));
	assert_int_equal(events_list(&roots, "no-such-event-*", collect, &s), 0);

	/* The callback stops the walk. */
	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	assert_int_equal(events_list(&roots, NULL, collect, &s), 2);
	assert_int_equal(s.nr, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysfs_alias),
		cmocka_unit_test(test_sysfs_scale_unit),
		cmocka_unit_test(test_sysfs_terms),
		cmocka_unit_test(test_sysfs_errors),
		cmocka_unit_test(test_sysfs_modifiers),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_tracepoint),
		cmocka_unit_test(test_tracefs_not_mounted),
		cmocka_unit_test(test_libpfm_generic),
		cmocka_unit_test(test_libpfm_modifiers),
		cmocka_unit_test(test_libpfm_pmu_specific),
		cmocka_unit_test(test_libpfm_errors),
		cmocka_unit_test(test_perf_modifiers),
		cmocka_unit_test(test_breakpoints),
		cmocka_unit_test(test_software_and_terms),
		cmocka_unit_test(test_parse_list_perf),
		cmocka_unit_test(test_tracepoint_globs),
		cmocka_unit_test(test_parse_list),
		cmocka_unit_test(test_parse_list_sysfs),
		cmocka_unit_test(test_parse_list_errors),
		cmocka_unit_test(test_refusal_positions),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_table),
	};
	const char *fixtures = testutil_fixtures();

	snprintf(pmu_dir, sizeof(pmu_dir), "%s/pmu", fixtures);
	snprintf(tracefs_dir, sizeof(tracefs_dir), "%s/tracefs", fixtures);
	roots = (struct event_roots){pmu_dir, tracefs_dir};
	/* Encode events of PMUs this machine does not have (skl::...), and
	 * see libpfm4 as on a real host: its generic "perf" PMU, every other
	 * PMU initialised (a forced PMU stops that). */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	testutil_libpfm_unforced();
	if (events_init(err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
