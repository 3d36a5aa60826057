/* probe: the facts about this machine that decide what pfmtop can count. */
#ifndef PFMTOP_PROBE_H
#define PFMTOP_PROBE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>

#define PROBE_MAX_PMUS 64
#define PROBE_UNKNOWN  (-1000)

struct probe {
	char host[64];
	char kernel[128];         /* uname -r */
	int paranoid;             /* kernel.perf_event_paranoid, PROBE_UNKNOWN if unreadable */
	bool cap_perfmon;         /* effective CAP_PERFMON */
	bool cap_sys_admin;       /* effective CAP_SYS_ADMIN */
	int kptr_restrict;        /* PROBE_UNKNOWN if unreadable */
	int max_sample_rate;      /* kernel.perf_event_max_sample_rate */
	int mlock_kb;             /* kernel.perf_event_mlock_kb */
	int nmi_watchdog;         /* kernel.nmi_watchdog, PROBE_UNKNOWN if absent */
	bool hypervisor;          /* running under a hypervisor (cpuinfo flag) */
	char hypervisor_name[32]; /* "KVM", "VMware", ... or "" */
	int nr_sysfs_pmus;
	char sysfs_pmus[PROBE_MAX_PMUS][32];  /* /sys/bus/event_source/devices/ entries */
	bool core_pmu;                        /* a hardware core PMU is exposed by the kernel */
	int nr_libpfm_pmus;                   /* filled by probe_collect_libpfm() only */
	char libpfm_pmus[PROBE_MAX_PMUS][64]; /* libpfm4 PMUs detected as present */
	char libpfm_err[320];                 /* why libpfm4 could not be loaded, "" if it was */
	char tracefs[256];                    /* mounted tracefs root, "" if none */
	rlim_t nofile_soft, nofile_hard;
	int nr_cpus_online;
	char cpus_online[128]; /* /sys/devices/system/cpu/online, e.g. "0-1" */
};

/* Fill *p from the running system. Never fails: unknown facts are marked.
 * libpfm4 is not loaded: the libpfm4 PMUs stay empty. */
void probe_collect(struct probe *p);

/* Load libpfm4 (see pfmlib.h) and fill the libpfm4 PMUs of *p, or
 * libpfm_err when it cannot be loaded. */
void probe_collect_libpfm(struct probe *p);

/* The same from /proc and /sys below root (tests' fixture trees); NULL or
 * "/": the running system, as probe_collect(). */
void probe_collect_at(struct probe *p, const char *root);

/* True when CPU-wide (pid = -1) counting is allowed: paranoid <= 0 or a
 * capability. */
bool probe_system_wide_ok(const struct probe *p);

/* True when events must exclude the kernel: paranoid >= 2 and no capability. */
bool probe_user_only(const struct probe *p);

/* True when unprivileged perf use is forbidden altogether (paranoid >= 3 and
 * no capability). */
bool probe_no_access(const struct probe *p);

/* True when cpu is in p->cpus_online. */
bool probe_cpu_online(const struct probe *p, int cpu);

/* Raise RLIMIT_NOFILE's soft limit to the hard limit; updates p. 0 or -errno. */
int probe_raise_nofile(struct probe *p);

/* One sentence on what the privilege situation allows and which sysctl or
 * capability would give more; "" when nothing is limited. */
const char *probe_privilege_note(const struct probe *p, char *buf, size_t len);

/* Print the facts as aligned "key: value" lines. */
void probe_print(const struct probe *p, FILE *out);

#endif
