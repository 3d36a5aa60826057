/* probe: collects the machine facts that decide what pfmtop can count. */
#include "probe.h"

#include "events.h"
#include "pfmlib.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define CAP_BIT_SYS_ADMIN 21
#define CAP_BIT_PERFMON   38
#define PERF_TYPE_RAW_ID  4 /* PERF_TYPE_RAW, as a sysfs "type" file shows it */

/* Copy src into dst, truncated to fit. */
static void set_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* root: where /proc and /sys are read ("" stands for "/"; tests point it
 * at a fixture tree); reading the machine pfmtop runs on, also ask it. */
static bool live(const char *root)
{
	return root[0] == '\0';
}

/* rel starts with '/'. */
static int path_of(const char *root, char *out, size_t len, const char *rel)
{
	int n = snprintf(out, len, "%s%s", root, rel);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool exists(const char *root, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	return !path_of(root, path, sizeof(path), rel) && !stat(path, &st);
}

/* Read a small file into buf without its trailing whitespace; 0 or -errno. */
static int read_text(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, err;

	buf[0] = '\0';
	err = path_of(root, path, sizeof(path), rel);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	return 0;
}

static int read_int(const char *root, const char *rel)
{
	char buf[32], *end;
	long v;

	if (read_text(root, rel, buf, sizeof(buf)) || !buf[0])
		return PROBE_UNKNOWN;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || *end || v < INT_MIN || v > INT_MAX)
		return PROBE_UNKNOWN;
	return (int)v;
}

static void collect_uname(struct probe *p, const char *root)
{
	struct utsname u;

	if (live(root) && !uname(&u)) {
		set_str(p->host, sizeof(p->host), u.nodename);
		set_str(p->kernel, sizeof(p->kernel), u.release);
		return;
	}
	read_text(root, "/proc/sys/kernel/hostname", p->host, sizeof(p->host));
	read_text(root, "/proc/sys/kernel/osrelease", p->kernel, sizeof(p->kernel));
}

static void collect_caps(struct probe *p, const char *root)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (path_of(root, path, sizeof(path), "/proc/self/status"))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		uint64_t eff;

		if (strncmp(line, "CapEff:", 7))
			continue;
		eff = strtoull(line + 7, NULL, 16);
		p->cap_perfmon = eff >> CAP_BIT_PERFMON & 1;
		p->cap_sys_admin = eff >> CAP_BIT_SYS_ADMIN & 1;
		break;
	}
	free(line);
	fclose(f);
}

/* True when the first "flags" line of /proc/cpuinfo has the word "hypervisor". */
static bool cpuinfo_hypervisor(const char *root)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	if (path_of(root, path, sizeof(path), "/proc/cpuinfo"))
		return false;
	f = fopen(path, "re");
	if (!f)
		return false;
	while (getline(&line, &cap, f) > 0) {
		char *tok, *save;

		if (strncmp(line, "flags", 5))
			continue;
		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save))
			if (!strcmp(tok, "hypervisor"))
				found = true;
		break;
	}
	free(line);
	fclose(f);
	return found;
}

#if defined(__x86_64__) || defined(__i386__)
static void cpuid_signature(unsigned int leaf, char sig[13])
{
	unsigned int a, b, c, d;

	__cpuid(leaf, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
}

/* Name the hypervisor from its cpuid leaf 0x40000000 signature. */
static void cpuid_hypervisor(char *name, size_t len)
{
	static const struct {
		const char *sig, *name;
	} known[] = {
	    {"KVMKVMKVM", "KVM"},         {"Microsoft Hv", "Hyper-V"},
	    {"VMwareVMware", "VMware"},   {"XenVMMXenVMM", "Xen"},
	    {"TCGTCGTCGTCG", "QEMU TCG"}, {"VBoxVBoxVBox", "VirtualBox"},
	    {"bhyve bhyve ", "bhyve"},    {" lrpepyh  vr", "Parallels"},
	    {"ACRNACRNACRN", "ACRN"},     {"Jailhouse", "Jailhouse"},
	};
	char sig[13];

	cpuid_signature(0x40000000, sig);
	/* KVM with Hyper-V enlightenments shows its own signature one block up. */
	if (!strcmp(sig, "Microsoft Hv")) {
		char kvm[13];

		cpuid_signature(0x40000100, kvm);
		if (!strcmp(kvm, "KVMKVMKVM"))
			memcpy(sig, kvm, sizeof(kvm));
	}
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (!strcmp(sig, known[i].sig)) {
			set_str(name, len, known[i].name);
			return;
		}
	}
	for (int i = 0; sig[i]; i++)
		if (sig[i] < 0x20 || sig[i] > 0x7e)
			return;
	set_str(name, len, sig);
}
#endif

static void collect_hypervisor(struct probe *p, const char *root)
{
	char type[32];

	p->hypervisor = cpuinfo_hypervisor(root);
	if (!read_text(root, "/sys/hypervisor/type", type, sizeof(type)) && type[0]) {
		p->hypervisor = true;
		set_str(p->hypervisor_name, sizeof(p->hypervisor_name),
		        strcmp(type, "xen") ? type : "Xen");
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	if (p->hypervisor && live(root))
		cpuid_hypervisor(p->hypervisor_name, sizeof(p->hypervisor_name));
#endif
}

/*
 * Is this sysfs PMU a CPU core PMU? The heuristic, after perf's own:
 * - its type is PERF_TYPE_RAW: the main core PMU of x86 ("cpu"), POWER,
 *   RISC-V and s390 (cpum_cf) registers under that fixed type;
 * - it is named cpu, cpu_core or cpu_atom (hybrid x86 gives the second one a
 *   dynamic type), or armv8_* / armv7_* (armv8_pmuv3_0, armv8_cortex_a72);
 * - it has a "cpus" file, which core PMUs of heterogeneous systems carry;
 * - its name contains "pmu" (apple_firestorm_pmu and other Arm cores) and it
 *   has no "cpumask" file, which uncore PMUs such as nvidia_*_pmu carry.
 */
static bool is_core_pmu(const char *root, const char *name)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%s/type", name);
	if (read_int(root, rel) == PERF_TYPE_RAW_ID)
		return true;
	if (!strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom") ||
	    !strncmp(name, "armv8_", 6) || !strncmp(name, "armv7_", 6))
		return true;
	snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%s/cpus", name);
	if (exists(root, rel))
		return true;
	snprintf(rel, sizeof(rel), "/sys/bus/event_source/devices/%s/cpumask", name);
	return strstr(name, "pmu") && !exists(root, rel);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void collect_sysfs_pmus(struct probe *p, const char *root)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;

	if (path_of(root, path, sizeof(path), "/sys/bus/event_source/devices"))
		return;
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)) && p->nr_sysfs_pmus < PROBE_MAX_PMUS) {
		if (d->d_name[0] == '.')
			continue;
		set_str(p->sysfs_pmus[p->nr_sysfs_pmus++], sizeof(p->sysfs_pmus[0]), d->d_name);
		if (is_core_pmu(root, d->d_name))
			p->core_pmu = true;
	}
	closedir(dir);
	qsort(p->sysfs_pmus, p->nr_sysfs_pmus, sizeof(p->sysfs_pmus[0]), cmp_name);
}

/* libpfm4's "perf" and "perf_raw" stand for the kernel's generic events. */
static bool libpfm_generic(const char *name)
{
	return !strcmp(name, "perf") || !strcmp(name, "perf_raw");
}

/*
 * libpfm4 detects PMUs from the CPU model, not from what the kernel exposes:
 * in a guest without a virtual PMU it still reports the host's core PMU. So
 * the list is informational and core_pmu is decided from sysfs alone.
 */
void probe_collect_libpfm(struct probe *p)
{
	const struct pfmlib *lib = pfmlib_get(p->libpfm_err, sizeof(p->libpfm_err));
	pfm_pmu_t pmu;

	p->nr_libpfm_pmus = 0;
	if (!lib)
		return;
	p->libpfm_err[0] = '\0';
	pfm_for_all_pmus(pmu)
	{
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (lib->get_pmu_info(pmu, &info) != PFM_SUCCESS || !info.is_present)
			continue;
		if (p->nr_libpfm_pmus == PROBE_MAX_PMUS)
			break;
		set_str(p->libpfm_pmus[p->nr_libpfm_pmus++], sizeof(p->libpfm_pmus[0]), info.name);
	}
}

static void collect_tracefs(struct probe *p, const char *root)
{
	static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "%s/events", dirs[i]);
		if (exists(root, rel) && !path_of(root, p->tracefs, sizeof(p->tracefs), dirs[i]))
			return;
	}
}

/* Walk a cpu list like "0-3,6"; calls back per range. -EINVAL if malformed. */
static int cpu_list_walk(const char *s, int (*fn)(long lo, long hi, void *arg), void *arg)
{
	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;
		int ret;

		if (end == s || lo < 0)
			return -EINVAL;
		if (*end == '-') {
			s = end + 1;
			hi = strtol(s, &end, 10);
			if (end == s || hi < lo)
				return -EINVAL;
		}
		ret = fn(lo, hi, arg);
		if (ret)
			return ret;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return 0;
}

static int count_range(long lo, long hi, void *arg)
{
	*(long *)arg += hi - lo + 1;
	return 0;
}

static int find_cpu(long lo, long hi, void *arg)
{
	long cpu = *(int *)arg;

	return cpu >= lo && cpu <= hi;
}

bool probe_cpu_online(const struct probe *p, int cpu)
{
	return cpu_list_walk(p->cpus_online, find_cpu, &cpu) == 1;
}

static void collect_cpus(struct probe *p, const char *root)
{
	long n = 0;

	if (!read_text(root, "/sys/devices/system/cpu/online", p->cpus_online,
	               sizeof(p->cpus_online)) &&
	    !cpu_list_walk(p->cpus_online, count_range, &n) && n > 0 && n <= INT_MAX) {
		p->nr_cpus_online = (int)n;
		return;
	}
	p->cpus_online[0] = '\0';
	if (live(root))
		p->nr_cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
}

void probe_collect_at(struct probe *p, const char *dir)
{
	char root[PATH_MAX];
	struct rlimit rl;

	util_set_root(root, sizeof(root), dir);
	memset(p, 0, sizeof(*p));
	collect_uname(p, root);
	p->paranoid = read_int(root, "/proc/sys/kernel/perf_event_paranoid");
	p->kptr_restrict = read_int(root, "/proc/sys/kernel/kptr_restrict");
	p->max_sample_rate = read_int(root, "/proc/sys/kernel/perf_event_max_sample_rate");
	p->mlock_kb = read_int(root, "/proc/sys/kernel/perf_event_mlock_kb");
	p->nmi_watchdog = read_int(root, "/proc/sys/kernel/nmi_watchdog");
	collect_caps(p, root);
	collect_hypervisor(p, root);
	collect_sysfs_pmus(p, root);
	collect_tracefs(p, root);
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		p->nofile_soft = rl.rlim_cur;
		p->nofile_hard = rl.rlim_max;
	}
	collect_cpus(p, root);
}

void probe_collect(struct probe *p)
{
	probe_collect_at(p, NULL);
}

static bool privileged(const struct probe *p)
{
	return p->cap_perfmon || p->cap_sys_admin;
}

bool probe_system_wide_ok(const struct probe *p)
{
	return privileged(p) || (p->paranoid != PROBE_UNKNOWN && p->paranoid <= 0);
}

/* An unreadable paranoid level is taken as the kernel default, 2. */
bool probe_user_only(const struct probe *p)
{
	return !privileged(p) && (p->paranoid >= 2 || p->paranoid == PROBE_UNKNOWN);
}

bool probe_no_access(const struct probe *p)
{
	return !privileged(p) && p->paranoid >= 3;
}

int probe_raise_nofile(struct probe *p)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return -errno;
	}
	p->nofile_soft = rl.rlim_cur;
	p->nofile_hard = rl.rlim_max;
	return 0;
}

#define GRANT "run as root, grant CAP_PERFMON (setcap cap_perfmon+ep pfmtop)"

const char *probe_privilege_note(const struct probe *p, char *buf, size_t len)
{
	int par = p->paranoid;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (privileged(p) || par == -1 || (par < -1 && par != PROBE_UNKNOWN))
		return buf;
	if (par == PROBE_UNKNOWN)
		snprintf(buf, len,
		         "kernel.perf_event_paranoid cannot be read, so the kernel may lack perf "
		         "events (CONFIG_PERF_EVENTS); without CAP_PERFMON pfmtop assumes level 2: "
		         "your own processes, user space only");
	else if (par == 0)
		snprintf(buf, len,
		         "perf_event_paranoid is 0 and pfmtop lacks CAP_PERFMON: the whole machine "
		         "can be counted, but raw tracepoint samples need CAP_PERFMON or sysctl "
		         "kernel.perf_event_paranoid=-1");
	else if (par == 1)
		snprintf(buf, len,
		         "perf_event_paranoid is 1 and pfmtop lacks CAP_PERFMON: counting your own "
		         "processes, user and kernel space; " GRANT
		         " or set sysctl kernel.perf_event_paranoid=0 to see the whole machine");
	else if (par == 2)
		snprintf(buf, len,
		         "perf_event_paranoid is 2 and pfmtop lacks CAP_PERFMON: counting your own "
		         "processes, user space only; " GRANT
		         " or set sysctl kernel.perf_event_paranoid=-1 to see the whole machine");
	else
		snprintf(
		    buf, len,
		    "perf_event_paranoid is %d and pfmtop lacks CAP_PERFMON: perf events are "
		    "forbidden altogether; " GRANT
		    ", or set sysctl kernel.perf_event_paranoid=2 for your own processes or -1 "
		    "for the whole machine",
		    par);
	return buf;
}

static const char *paranoid_meaning(int par)
{
	if (par == PROBE_UNKNOWN)
		return "(cannot be read: is perf events support built in?)";
	if (par <= -1)
		return "(no restrictions)";
	if (par == 0)
		return "(whole machine and kernel allowed; raw tracepoint data needs privilege)";
	if (par == 1)
		return "(own tasks, user and kernel space, unless privileged)";
	if (par == 2)
		return "(user space of own tasks only, unless privileged)";
	return "(no perf use at all, unless privileged)";
}

static const char *kptr_meaning(int v)
{
	switch (v) {
	case 0:
		return "(kernel symbols visible)";
	case 1:
		return "(kernel addresses hidden without CAP_SYSLOG)";
	case 2:
		return "(kernel addresses hidden from everyone: no kernel symbol names)";
	default:
		return "";
	}
}

static const char *nmi_meaning(int v)
{
	return v == 0 ? "(off)" : v == 1 ? "(holds one hardware counter)" : "";
}

#define KEY_WIDTH 28 /* strlen("perf_event_max_sample_rate: ") */

/* One "key:   value" line, the value starting in column KEY_WIDTH. */
__attribute__((format(printf, 3, 4))) static void line(FILE *out, const char *k, const char *fmt,
                                                       ...)
{
	va_list ap;

	fprintf(out, "%s:%*s", k, (int)(KEY_WIDTH - strlen(k) - 1), "");
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

/* An integer sysctl and what it means. */
static void sysctl_line(FILE *out, const char *k, int v, const char *meaning)
{
	if (v == PROBE_UNKNOWN)
		line(out, k, "unknown (cannot be read)");
	else
		line(out, k, "%d%s%s", v, meaning[0] ? " " : "", meaning);
}

/* "a, b, c" from nr names stride bytes apart, or "none". */
static const char *join(const char *names, size_t stride, int nr, char *buf, size_t len)
{
	size_t used = 0;

	snprintf(buf, len, "none");
	for (int i = 0; i < nr && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names + i * stride);

		if (n < 0)
			break;
		used += n;
	}
	return buf;
}

void probe_print(const struct probe *p, FILE *out)
{
	char a[32], b[32], text[4096], why[320];
	const char *hv = p->hypervisor_name;
	bool libpfm_core = false;

	for (int i = 0; i < p->nr_libpfm_pmus; i++)
		libpfm_core |= !libpfm_generic(p->libpfm_pmus[i]);

	line(out, "host", "%s", p->host[0] ? p->host : "unknown");
	line(out, "kernel", "%s", p->kernel[0] ? p->kernel : "unknown");
	line(out, "cpus online", "%d (%s)", p->nr_cpus_online,
	     p->cpus_online[0] ? p->cpus_online : "list unknown");
	line(out, "hypervisor", "%s",
	     !p->hypervisor ? "none detected"
	     : hv[0]        ? hv
	                    : "yes (type unknown)");
	if (p->core_pmu)
		line(out, "hardware PMU", "exposed by the kernel (hardware events can count)");
	else if (p->hypervisor)
		line(
		    out, "hardware PMU",
		    "none exposed by the kernel (%s%sguest without a virtual PMU): hardware events "
		    "will not count",
		    hv, hv[0] ? " " : "");
	else
		line(out, "hardware PMU",
		     "none exposed by the kernel (no driver for this CPU, or a container hiding "
		     "it): hardware events will not count");
	line(
	    out, "sysfs PMUs", "%s",
	    join(p->sysfs_pmus[0], sizeof(p->sysfs_pmus[0]), p->nr_sysfs_pmus, text, sizeof(text)));
	if (p->libpfm_err[0])
		line(out, "libpfm4 PMUs", "none (%s)", p->libpfm_err);
	else
		line(out, "libpfm4 PMUs", "%s%s",
		     join(p->libpfm_pmus[0], sizeof(p->libpfm_pmus[0]), p->nr_libpfm_pmus, text,
		          sizeof(text)),
		     libpfm_core && !p->core_pmu
		         ? " (event names only: the kernel cannot count this CPU's events)"
		         : "");

	sysctl_line(out, "perf_event_paranoid", p->paranoid, paranoid_meaning(p->paranoid));
	if (p->cap_perfmon || p->cap_sys_admin)
		line(out, "capabilities", "%s%s%s (the paranoid limits do not apply)",
		     p->cap_perfmon ? "CAP_PERFMON" : "",
		     p->cap_perfmon && p->cap_sys_admin ? ", " : "",
		     p->cap_sys_admin ? "CAP_SYS_ADMIN" : "");
	else
		line(out, "capabilities", "neither CAP_PERFMON nor CAP_SYS_ADMIN");
	probe_privilege_note(p, text, sizeof(text));
	line(out, "privileges", "%s", text[0] ? text : "whole machine, kernel included");

	sysctl_line(out, "kptr_restrict", p->kptr_restrict, kptr_meaning(p->kptr_restrict));
	sysctl_line(out, "perf_event_max_sample_rate", p->max_sample_rate,
	            "samples/s per CPU (the kernel lowers it if sampling interrupts run too "
	            "long)");
	sysctl_line(out, "perf_event_mlock_kb", p->mlock_kb,
	            "KiB (ring buffer memory per user without CAP_IPC_LOCK)");
	if (p->nmi_watchdog == PROBE_UNKNOWN)
		line(out, "nmi_watchdog", "not present");
	else
		sysctl_line(out, "nmi_watchdog", p->nmi_watchdog, nmi_meaning(p->nmi_watchdog));
	if (!p->tracefs[0] && events_tracefs_denied(NULL, why, sizeof(why)))
		line(out, "tracefs", "not readable (no tracepoints): %s", why);
	else
		line(out, "tracefs", "%s",
		     p->tracefs[0] ? p->tracefs
		                   : "not mounted (no tracepoints; mount -t tracefs nodev "
		                     "/sys/kernel/tracing)");
	line(out, "RLIMIT_NOFILE", "%s (hard %s; one file per event per CPU system-wide)",
	     util_limit_text(p->nofile_soft, a, sizeof(a)),
	     util_limit_text(p->nofile_hard, b, sizeof(b)));
}
