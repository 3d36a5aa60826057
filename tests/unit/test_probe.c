/* test_probe: machine facts from a fixture root, privilege decisions, live probe. */
#include "probe.h"
#include "testutil.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cmocka.h>

static char fixture_root[PATH_MAX];
static char tmp_root[64];

/* Write content to tmp_root/rel, creating the directories on the way. */
static void put(const char *rel, const char *content)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
	for (char *s = path + strlen(tmp_root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int make_tmp_root(void **state)
{
	snprintf(tmp_root, sizeof(tmp_root), "/tmp/pfmtop-probe-XXXXXX");
	return mkdtemp(tmp_root) ? 0 : -1;
}

static int drop_tmp_root(void **state)
{
	return nftw(tmp_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void collect_fixture(struct probe *p)
{
	probe_collect_at(p, fixture_root);
}

static void test_fixture_facts(void **state)
{
	struct probe p;

	collect_fixture(&p);
	assert_string_equal(p.host, "fixture-host");
	assert_string_equal(p.kernel, "6.1.0-fixture-amd64");
	assert_int_equal(p.paranoid, 2);
	assert_int_equal(p.kptr_restrict, 1);
	assert_int_equal(p.max_sample_rate, 25000);
	assert_int_equal(p.mlock_kb, 516);
	assert_int_equal(p.nmi_watchdog, 1);
	assert_false(p.cap_perfmon);
	assert_false(p.cap_sys_admin);
	assert_true(p.hypervisor);
	/* no /sys/hypervisor/type, and cpuid is only asked about the live root */
	assert_string_equal(p.hypervisor_name, "");

	assert_int_equal(p.nr_sysfs_pmus, 6);
	assert_string_equal(p.sysfs_pmus[0], "breakpoint");
	assert_string_equal(p.sysfs_pmus[1], "kprobe");
	assert_string_equal(p.sysfs_pmus[2], "msr");
	assert_string_equal(p.sysfs_pmus[3], "software");
	assert_string_equal(p.sysfs_pmus[4], "tracepoint");
	assert_string_equal(p.sysfs_pmus[5], "uprobe");
	assert_false(p.core_pmu);

	char want[PATH_MAX + 32];

	snprintf(want, sizeof(want), "%s/sys/kernel/tracing", fixture_root);
	assert_string_equal(p.tracefs, want);
	assert_string_equal(p.cpus_online, "0-3,6");
	assert_int_equal(p.nr_cpus_online, 5);
	assert_true(p.nofile_soft > 0);
	assert_true(p.nofile_hard >= p.nofile_soft);
}

static void test_cpu_online(void **state)
{
	struct probe p;

	collect_fixture(&p);
	assert_true(probe_cpu_online(&p, 0));
	assert_true(probe_cpu_online(&p, 3));
	assert_false(probe_cpu_online(&p, 4));
	assert_false(probe_cpu_online(&p, 5));
	assert_true(probe_cpu_online(&p, 6));
	assert_false(probe_cpu_online(&p, 7));
	assert_false(probe_cpu_online(&p, -1));
}

/* A privileged process on bare metal with a core PMU; most sysctls absent. */
static void test_bare_metal(void **state)
{
	struct probe p;

	put("proc/sys/kernel/perf_event_paranoid", "-1\n");
	put("proc/self/status", "Name:\tpfmtop\nCapInh:\t0000000000000000\n"
	                        "CapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\n");
	put("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr\n\n");
	put("sys/bus/event_source/devices/cpu/type", "4\n");
	put("sys/bus/event_source/devices/software/type", "1\n");
	put("sys/devices/system/cpu/online", "0\n");
	put("sys/kernel/debug/tracing/events/enable", "0\n");
	probe_collect_at(&p, tmp_root);

	assert_int_equal(p.paranoid, -1);
	assert_int_equal(p.kptr_restrict, PROBE_UNKNOWN);
	assert_int_equal(p.max_sample_rate, PROBE_UNKNOWN);
	assert_int_equal(p.nmi_watchdog, PROBE_UNKNOWN);
	assert_true(p.cap_perfmon);
	assert_true(p.cap_sys_admin);
	assert_false(p.hypervisor);
	assert_true(p.core_pmu);
	assert_int_equal(p.nr_cpus_online, 1);
	assert_non_null(strstr(p.tracefs, "/sys/kernel/debug/tracing"));
	assert_string_equal(p.host, "");
}

static void test_capabilities_bits(void **state)
{
	struct probe p;

	put("proc/self/status", "CapEff:\t0000004000000000\n"); /* bit 38 only */
	probe_collect_at(&p, tmp_root);
	assert_true(p.cap_perfmon);
	assert_false(p.cap_sys_admin);

	put("proc/self/status", "CapEff:\t0000000000200000\n"); /* bit 21 only */
	probe_collect_at(&p, tmp_root);
	assert_false(p.cap_perfmon);
	assert_true(p.cap_sys_admin);
	assert_int_equal(p.paranoid, PROBE_UNKNOWN);
	assert_string_equal(p.tracefs, "");
}

static void test_xen_and_arm(void **state)
{
	struct probe p;

	put("sys/hypervisor/type", "xen\n");
	put("sys/bus/event_source/devices/armv8_pmuv3_0/type", "10\n");
	probe_collect_at(&p, tmp_root);
	assert_true(p.hypervisor);
	assert_string_equal(p.hypervisor_name, "Xen");
	assert_true(p.core_pmu);
}

static void test_pmu_name_heuristic(void **state)
{
	struct probe p;

	/* an uncore PMU with "pmu" in its name carries a cpumask: not a core */
	put("sys/bus/event_source/devices/nvidia_scf_pmu_0/type", "11\n");
	put("sys/bus/event_source/devices/nvidia_scf_pmu_0/cpumask", "0\n");
	probe_collect_at(&p, tmp_root);
	assert_false(p.core_pmu);

	put("sys/bus/event_source/devices/apple_firestorm_pmu/type", "12\n");
	probe_collect_at(&p, tmp_root);
	assert_true(p.core_pmu);
	assert_int_equal(p.nr_sysfs_pmus, 2);
	assert_string_equal(p.sysfs_pmus[0], "apple_firestorm_pmu");
}

static void test_hybrid_cpus_file(void **state)
{
	struct probe p;

	put("sys/bus/event_source/devices/cpu_x/type", "10\n");
	put("sys/bus/event_source/devices/cpu_x/cpus", "0-7\n");
	probe_collect_at(&p, tmp_root);
	assert_true(p.core_pmu);
}

static struct probe with(int paranoid, bool perfmon, bool sys_admin)
{
	struct probe p;

	memset(&p, 0, sizeof(p));
	p.paranoid = paranoid;
	p.cap_perfmon = perfmon;
	p.cap_sys_admin = sys_admin;
	return p;
}

static void test_privilege_decisions(void **state)
{
	static const struct {
		int paranoid;
		bool wide, user_only, none;
	} plain[] = {
	    {-1, true, false, false},
	    {0, true, false, false},
	    {1, false, false, false},
	    {2, false, true, false},
	    {3, false, true, true},
	    {4, false, true, true},
	    {PROBE_UNKNOWN, false, true, false},
	};

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		struct probe p = with(plain[i].paranoid, false, false);

		assert_int_equal(probe_system_wide_ok(&p), plain[i].wide);
		assert_int_equal(probe_user_only(&p), plain[i].user_only);
		assert_int_equal(probe_no_access(&p), plain[i].none);

		for (int cap = 0; cap < 2; cap++) {
			p = with(plain[i].paranoid, cap == 0, cap == 1);
			assert_true(probe_system_wide_ok(&p));
			assert_false(probe_user_only(&p));
			assert_false(probe_no_access(&p));
		}
	}
}

static void test_privilege_note(void **state)
{
	char buf[512];

	for (int par = 1; par <= 3; par++) {
		struct probe p = with(par, false, false);
		char level[8];

		probe_privilege_note(&p, buf, sizeof(buf));
		snprintf(level, sizeof(level), "is %d", par);
		assert_non_null(strstr(buf, level));
		assert_non_null(strstr(buf, "perf_event_paranoid"));
		assert_non_null(strstr(buf, "sysctl kernel.perf_event_paranoid="));
		assert_non_null(strstr(buf, "CAP_PERFMON"));
		assert_non_null(strstr(buf, "setcap cap_perfmon+ep"));
	}

	struct probe p = with(2, false, false);

	probe_privilege_note(&p, buf, sizeof(buf));
	assert_non_null(strstr(buf, "user space only"));
	assert_non_null(strstr(buf, "kernel.perf_event_paranoid=-1"));
	p = with(3, false, false);
	assert_non_null(strstr(probe_privilege_note(&p, buf, sizeof(buf)), "altogether"));
	p = with(0, false, false);
	assert_non_null(strstr(probe_privilege_note(&p, buf, sizeof(buf)), "whole machine"));
	p = with(PROBE_UNKNOWN, false, false);
	assert_non_null(strstr(probe_privilege_note(&p, buf, sizeof(buf)), "cannot be read"));

	/* nothing limited: empty */
	p = with(-1, false, false);
	assert_string_equal(probe_privilege_note(&p, buf, sizeof(buf)), "");
	p = with(2, true, false);
	assert_string_equal(probe_privilege_note(&p, buf, sizeof(buf)), "");
	p = with(3, false, true);
	assert_string_equal(probe_privilege_note(&p, buf, sizeof(buf)), "");

	/* truncation is safe */
	p = with(2, false, false);
	memset(buf, 'x', sizeof(buf));
	probe_privilege_note(&p, buf, 10);
	assert_int_equal(strlen(buf), 9);
	assert_int_equal(buf[10], 'x');
}

static char *print_to_string(const struct probe *p)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	probe_print(p, f);
	fclose(f);
	return text;
}

/* The line "key: ..." of text must contain value. */
static void assert_line(const char *text, const char *key, const char *value)
{
	size_t klen = strlen(key);

	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char copy[512];

		if (n > klen && !strncmp(line, key, klen) && line[klen] == ':') {
			snprintf(copy, sizeof(copy), "%.*s", (int)n, line);
			if (!strstr(copy + klen + 1, value))
				fail_msg("%s: want \"%s\" in \"%s\"", key, value, copy);
			return;
		}
		line += n + (end != NULL);
	}
	fail_msg("no line for %s in:\n%s", key, text);
}

static void test_print(void **state)
{
	struct probe p;
	char *text;

	collect_fixture(&p);
	text = print_to_string(&p);
	assert_line(text, "host", "fixture-host");
	assert_line(text, "kernel", "6.1.0-fixture-amd64");
	assert_line(text, "cpus online", "5 (0-3,6)");
	assert_line(text, "hypervisor", "yes");
	assert_line(text, "hardware PMU",
	            "none exposed by the kernel (guest without a virtual PMU): hardware events "
	            "will not count");
	assert_line(text, "sysfs PMUs", "breakpoint, kprobe, msr, software, tracepoint, uprobe");
	assert_line(text, "libpfm4 PMUs", "");
	assert_line(text, "perf_event_paranoid",
	            "2 (user space of own tasks only, unless privileged)");
	assert_line(text, "capabilities", "neither CAP_PERFMON nor CAP_SYS_ADMIN");
	assert_line(text, "privileges", "perf_event_paranoid is 2 and pfmtop lacks CAP_PERFMON");
	assert_line(text, "kptr_restrict", "1 (kernel addresses hidden without CAP_SYSLOG)");
	assert_line(text, "perf_event_max_sample_rate", "25000 samples/s");
	assert_line(text, "perf_event_mlock_kb", "516 KiB");
	assert_line(text, "nmi_watchdog", "1 (holds one hardware counter)");
	assert_line(text, "tracefs", "/sys/kernel/tracing");
	assert_line(text, "RLIMIT_NOFILE", "(hard ");

	/* every value starts in the same column */
	for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
		const char *colon = strchr(line, ':');

		assert_non_null(colon);
		assert_true(colon - line < 28);
		for (const char *s = colon + 1; s < line + 28; s++)
			assert_int_equal(*s, ' ');
		assert_true(line[28] != ' ' && line[28] != '\n');
	}
	free(text);

	p.kptr_restrict = 0;
	p.core_pmu = true;
	p.cap_perfmon = true;
	p.nmi_watchdog = PROBE_UNKNOWN;
	p.tracefs[0] = '\0';
	strcpy(p.hypervisor_name, "KVM");
	text = print_to_string(&p);
	assert_line(text, "kptr_restrict", "0 (kernel symbols visible)");
	assert_line(text, "hardware PMU", "exposed by the kernel");
	assert_line(text, "hypervisor", "KVM");
	assert_line(text, "capabilities", "CAP_PERFMON (the paranoid limits do not apply)");
	assert_line(text, "privileges", "whole machine, kernel included");
	assert_line(text, "nmi_watchdog", "not present");
	assert_line(text, "tracefs", "not mounted");
	free(text);

	p.core_pmu = false;
	text = print_to_string(&p);
	assert_line(text, "hardware PMU", "(KVM guest without a virtual PMU)");
	free(text);
}

static void test_live(void **state)
{
	struct utsname u;
	struct probe p;

	probe_collect(&p);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(p.kernel, u.release);
	assert_true(p.host[0] != '\0');
	assert_true(p.nr_cpus_online >= 1);
	assert_int_equal(p.nr_cpus_online, sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(p.cpus_online[0] != '\0');
	assert_true(probe_cpu_online(&p, 0));
	assert_true(p.nofile_soft > 0);
	if (!access("/proc/sys/kernel/perf_event_paranoid", R_OK))
		assert_int_not_equal(p.paranoid, PROBE_UNKNOWN);
	if (!access("/sys/bus/event_source/devices/software", F_OK))
		assert_true(p.nr_sysfs_pmus >= 1);
	/* libpfm4 is loaded only when asked for; pfmtop ships with it, and it
	 * always knows the generic "perf" PMU */
	bool perf = false;

	assert_int_equal(p.nr_libpfm_pmus, 0);
	probe_collect_libpfm(&p);
	assert_string_equal(p.libpfm_err, "");
	for (int i = 0; i < p.nr_libpfm_pmus; i++)
		perf |= !strcmp(p.libpfm_pmus[i], "perf");
	assert_true(perf);

	assert_int_equal(probe_raise_nofile(&p), 0);
	assert_true(p.nofile_soft == p.nofile_hard);
}

int main(void)
{
	const char *fixtures = testutil_fixtures();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixture_facts),
	    cmocka_unit_test(test_cpu_online),
	    cmocka_unit_test_setup_teardown(test_bare_metal, make_tmp_root, drop_tmp_root),
	    cmocka_unit_test_setup_teardown(test_capabilities_bits, make_tmp_root, drop_tmp_root),
	    cmocka_unit_test_setup_teardown(test_xen_and_arm, make_tmp_root, drop_tmp_root),
	    cmocka_unit_test_setup_teardown(test_pmu_name_heuristic, make_tmp_root, drop_tmp_root),
	    cmocka_unit_test_setup_teardown(test_hybrid_cpus_file, make_tmp_root, drop_tmp_root),
	    cmocka_unit_test(test_privilege_decisions),
	    cmocka_unit_test(test_privilege_note),
	    cmocka_unit_test(test_print),
	    cmocka_unit_test(test_live),
	};

	/* test_live probes this host, whose libpfm4 knows "perf". */
	testutil_libpfm_unforced();
	snprintf(fixture_root, sizeof(fixture_root), "%s/proc-root", fixtures);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
