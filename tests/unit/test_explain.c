/* test_explain: every perf_event_open errno becomes a sentence naming its cause. */
#include "explain.h"
#include "probe.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* This test VM's situation: a KVM guest without a virtual PMU, paranoid 2. */
static struct probe guest(void)
{
	struct probe p;

	memset(&p, 0, sizeof(p));
	strcpy(p.host, "vm");
	strcpy(p.kernel, "6.1.0");
	p.paranoid = 2;
	p.kptr_restrict = 0;
	p.max_sample_rate = 25000;
	p.mlock_kb = 516;
	p.nmi_watchdog = 1;
	p.hypervisor = true;
	strcpy(p.hypervisor_name, "KVM");
	strcpy(p.cpus_online, "0-1");
	p.nr_cpus_online = 2;
	p.nofile_soft = 1024;
	p.nofile_hard = 524288;
	return p;
}

static struct perf_event_attr attr(unsigned int type, unsigned long long config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = 1;
	return a;
}

static char buf[1024];

/* Explain err and assert that each of the NULL-terminated substrings occurs. */
static void expect(int err, const struct explain_ctx *c, ...)
{
	const char *want;
	va_list ap;

	memset(buf, 0, sizeof(buf));
	assert_ptr_equal(explain_open_error(err, c, buf, sizeof(buf)), buf);
	assert_true(strlen(buf) > 20);
	assert_null(strchr(buf, '\n'));
	va_start(ap, c);
	while ((want = va_arg(ap, const char *)))
		if (!strstr(buf, want))
			fail_msg("errno %d: want \"%s\" in \"%s\"", err, want, buf);
	va_end(ap);
}

static void test_access(void **state)
{
	struct probe p = guest();
	struct perf_event_attr a = attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	struct explain_ctx c = {
	    .probe = &p, .event = "task-clock", .attr = &a, .pid = 0, .cpu = -1};

	/* kernel space at paranoid 2 */
	expect(EACCES, &c, "\"task-clock\"", "kernel space", "perf_event_paranoid 2", "CAP_PERFMON",
	       "exclude_kernel", "kernel.perf_event_paranoid=1", NULL);
	/* CPU-wide at paranoid 2 */
	a.exclude_kernel = 1;
	c.pid = -1;
	c.cpu = 0;
	expect(EACCES, &c, "whole CPU", "perf_event_paranoid 0 or lower", "CAP_PERFMON",
	       "kernel.perf_event_paranoid=0", NULL);
	/* another user's task */
	c.pid = 4242;
	expect(EPERM, &c, "task 4242", "its own user", "CAP_PERFMON", NULL);
	/* paranoid 3: nothing at all */
	p.paranoid = 3;
	expect(EACCES, &c, "perf_event_paranoid is 3", "CAP_PERFMON", "setcap cap_perfmon+ep",
	       NULL);
	/* raw tracepoint data */
	p.paranoid = 0;
	c.pid = 0;
	a = attr(PERF_TYPE_TRACEPOINT, 316);
	a.exclude_kernel = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	expect(EACCES, &c, "Raw tracepoint data", "perf_event_paranoid -1", "CAP_PERFMON", NULL);
	/* an exclude bit the PMU cannot honour */
	a = attr(PERF_TYPE_RAW, 0x76);
	a.exclude_idle = 1;
	expect(EPERM, &c, "cannot honour", "exclude_idle", NULL);
	/* within what paranoid allows: a policy is in the way */
	a.exclude_idle = 0;
	expect(EPERM, &c, "although perf_event_paranoid allows it", "seccomp", NULL);
	assert_null(strstr(buf, "lower"));
	/* privileged, yet refused */
	p.cap_perfmon = true;
	p.paranoid = 2;
	expect(EPERM, &c, "although CAP_PERFMON allows it", "seccomp", NULL);
	/* paranoid -1 does not open other users' tasks */
	p.cap_perfmon = false;
	p.paranoid = -1;
	c.pid = 4242;
	expect(EACCES, &c, "task 4242", "its own user", NULL);
	c.pid = 0;
	expect(EACCES, &c, "although perf_event_paranoid allows it", NULL);
	/* unknown request, unprivileged, paranoid 1 */
	p.paranoid = 1;
	c.attr = NULL;
	expect(EACCES, &c, "perf_event_paranoid is 1", "CAP_PERFMON", "kernel.perf_event_paranoid",
	       NULL);
	/* no probe at all */
	c.probe = NULL;
	expect(EACCES, &c, "perf_event_paranoid", "CAP_PERFMON", NULL);
}

static void test_noent(void **state)
{
	struct probe p = guest();
	struct perf_event_attr a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	struct explain_ctx c = {.probe = &p, .event = "cycles", .attr = &a, .cpu = -1};

	expect(ENOENT, &c, "hardware event", "KVM guest", "virtual PMU", "task-clock",
	       "--list-events", NULL);
	p.hypervisor = false;
	expect(ENOENT, &c, "no core PMU", "virtual PMU", "--list-events", NULL);
	c.attr = NULL;
	expect(ENOENT, &c, "virtual PMU", "--list-events", NULL);
	c.attr = &a;
	p.core_pmu = true;
	expect(ENOENT, &c, "does not implement", "--list-events", NULL);
	a = attr(PERF_TYPE_TRACEPOINT, 99999);
	c.event = "sched:nope";
	expect(ENOENT, &c, "Tracepoint \"sched:nope\"", "99999", "--list-events", NULL);
	a = attr(42, 1);
	c.event = "amd_df/event=1/";
	expect(ENOENT, &c, "does not exist on this machine", "--list-events", NULL);
}

static void test_notsup(void **state)
{
	struct probe p = guest();
	struct perf_event_attr a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	struct explain_ctx c = {.probe = &p, .event = "instructions:pp", .attr = &a, .cpu = -1};

	a.sample_period = 100000;
	a.precise_ip = 2;
	expect(EOPNOTSUPP, &c, "precise_ip=2", ":p", NULL);
	a.precise_ip = 0;
	a.sample_type = PERF_SAMPLE_BRANCH_STACK;
	expect(EOPNOTSUPP, &c, "Branch stack", NULL);
	a.sample_type = 0;
	expect(EOPNOTSUPP, &c, "overflow interrupt", "virtual machines", "cpu-clock", NULL);
	a.sample_period = 0;
	a.exclusive = 1;
	expect(EOPNOTSUPP, &c, "exclusive", NULL);
	c.attr = NULL;
	expect(EOPNOTSUPP, &c, "hardware feature", NULL);
}

static void test_inval(void **state)
{
	struct probe p = guest();
	struct perf_event_attr a = attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	struct explain_ctx c = {.probe = &p, .event = "cpu-clock", .attr = &a, .pid = -1, .cpu = 7};

	expect(EINVAL, &c, "CPU 7 is not online", "0-1", NULL);
	c.cpu = -1;
	expect(EINVAL, &c, "pid -1 and cpu -1", NULL);
	c.pid = 0;
	a.freq = 1;
	a.sample_freq = 99000;
	expect(EINVAL, &c, "99000 Hz", "perf_event_max_sample_rate (25000)", NULL);
	a.sample_freq = 1000;
	a.inherit = 1;
	a.read_format = PERF_FORMAT_GROUP;
	strcpy(p.kernel, "4.9.0-8-amd64");
	expect(EINVAL, &c, "inherit", "PERF_FORMAT_GROUP", "4.13", "4.9.0-8-amd64", NULL);
	strcpy(p.kernel, "6.1.0");
	a.read_format = 0;
	a.sample_type = PERF_SAMPLE_READ;
	expect(EINVAL, &c, "inherit", "PERF_SAMPLE_READ", NULL);
	a.inherit = 0;
	expect(EINVAL, &c, "type 1", "sample_freq 1000", "invalid", NULL);
	c.attr = NULL;
	expect(EINVAL, &c, "invalid", NULL);
}

static void test_busy_files_task(void **state)
{
	struct probe p = guest();
	struct perf_event_attr a = attr(PERF_TYPE_RAW, 0xc0);
	struct explain_ctx c = {.probe = &p, .event = "r00c0", .attr = &a, .pid = 1234, .cpu = -1};

	expect(EBUSY, &c, "exclusively", "nmi_watchdog=0", NULL);
	p.nmi_watchdog = 0;
	expect(EBUSY, &c, "exclusively", NULL);
	assert_null(strstr(buf, "watchdog"));

	expect(EMFILE, &c, "1024", "524288", "ulimit -n 524288", NULL);
	p.nofile_soft = p.nofile_hard = 4096;
	expect(EMFILE, &c, "4096", "hard limit", "ulimit -Hn", NULL);
	p.nofile_soft = p.nofile_hard = RLIM_INFINITY;
	expect(EMFILE, &c, "unlimited", NULL);
	c.probe = NULL;
	expect(EMFILE, &c, "ulimit -n", NULL);
	expect(ENFILE, &c, "fs.file-max", "ulimit -n", NULL);

	expect(ESRCH, &c, "Task 1234", "no longer exists", NULL);
	c.pid = 0;
	expect(ESRCH, &c, "no longer exists", NULL);
}

static void test_size_device_space(void **state)
{
	struct probe p = guest();
	struct perf_event_attr a = attr(PERF_TYPE_BREAKPOINT, 0);
	struct explain_ctx c = {.probe = &p, .event = "mem:0x1000", .attr = &a, .cpu = -1};
	char want[64];

	a.size = 112; /* what an old kernel writes back */
	snprintf(want, sizeof(want), "passed %zu bytes", sizeof(a));
	expect(E2BIG, &c, want, "expects 112", "6.1.0", NULL);
	a.size = sizeof(a);
	expect(E2BIG, &c, "perf_event_attr size", NULL);

	expect(ENODEV, &c, "feature this CPU does not have", "KVM", "--list-events", NULL);
	p.hypervisor = false;
	expect(ENODEV, &c, "feature this CPU does not have", NULL);

	expect(ENOSPC, &c, "breakpoint", "debug registers", NULL);
	a.type = PERF_TYPE_HARDWARE;
	expect(ENOSPC, &c, "too many counters", NULL);

	expect(EBADF, &c, "group", NULL);
	expect(EINTR, &c, "uprobe", NULL);
	a.sample_type = PERF_SAMPLE_STACK_USER;
	expect(ENOSYS, &c, "User stack", NULL);
	a.sample_type = 0;
	expect(ENOSYS, &c, "CONFIG_PERF_EVENTS", NULL);
	expect(EOVERFLOW, &c, "perf_event_max_stack", NULL);
	expect(EIO, &c, strerror(EIO), NULL);
}

static const int all_errors[] = {EACCES, EPERM,  ENOENT, EOPNOTSUPP, EINVAL, EBUSY,
                                 EMFILE, ENFILE, ESRCH,  E2BIG,      ENODEV, ENOSPC,
                                 EBADF,  EINTR,  ENOSYS, EOVERFLOW,  EIO,    0};

/* Never empty, never past the buffer, also without any context. */
static void test_truncation_and_null_ctx(void **state)
{
	struct probe p = guest();
	struct perf_event_attr a = attr(PERF_TYPE_HARDWARE, 0);
	struct explain_ctx c = {.probe = &p, .event = "cycles", .attr = &a, .pid = -1, .cpu = 0};
	static const size_t lens[] = {1, 2, 7, 40, 100};

	for (size_t i = 0; i < sizeof(all_errors) / sizeof(all_errors[0]); i++) {
		int err = all_errors[i];

		size_t full = strlen(explain_open_error(err, &c, buf, sizeof(buf)));

		for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			memset(buf, '#', sizeof(buf));
			explain_open_error(err, &c, buf, lens[j]);
			assert_int_equal(strlen(buf), full < lens[j] ? full : lens[j] - 1);
			assert_int_equal(buf[lens[j]], '#');
		}
		memset(buf, 0, sizeof(buf));
		explain_open_error(err, NULL, buf, sizeof(buf));
		assert_true(strlen(buf) > 10);
		if (!(buf[0] >= 'A' && buf[0] <= 'Z') && strncmp(buf, "perf_event_open", 15))
			fail_msg("errno %d: \"%s\" does not start a sentence", err, buf);
	}
	/* len 0 writes nothing */
	buf[0] = '#';
	explain_open_error(EACCES, &c, buf, 0);
	assert_int_equal(buf[0], '#');

	/* a long event name is cut, the sentence still ends properly */
	char name[300];

	memset(name, 'e', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	c.event = name;
	explain_open_error(ENOENT, &c, buf, sizeof(buf));
	assert_non_null(strstr(buf, "--list-events"));
}

static void test_short(void **state)
{
	assert_string_equal(explain_short(EOPNOTSUPP), "not supported");
	assert_string_equal(explain_short(EACCES), "no permission");
	assert_string_equal(explain_short(EPERM), "no permission");
	assert_string_equal(explain_short(ENOENT), "not supported");
	assert_string_equal(explain_short(ESRCH), "task gone");
	assert_string_equal(explain_short(EBUSY), "PMU busy");
	assert_string_equal(explain_short(EMFILE), "fd limit");
	assert_string_equal(explain_short(ENFILE), "fd limit");
	assert_string_equal(explain_short(EINVAL), "invalid");
	for (size_t i = 0; i < sizeof(all_errors) / sizeof(all_errors[0]); i++) {
		const char *s = explain_short(all_errors[i]);

		assert_non_null(s);
		assert_true(s[0] != '\0');
		assert_true(strlen(s) <= 26);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_access),
	    cmocka_unit_test(test_noent),
	    cmocka_unit_test(test_notsup),
	    cmocka_unit_test(test_inval),
	    cmocka_unit_test(test_busy_files_task),
	    cmocka_unit_test(test_size_device_space),
	    cmocka_unit_test(test_truncation_and_null_ctx),
	    cmocka_unit_test(test_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
