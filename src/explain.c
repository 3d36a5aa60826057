/* explain: turns a perf_event_open errno plus its context into advice. */
#include "explain.h"

#include "probe.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define GRANT "run as root, grant CAP_PERFMON (setcap cap_perfmon+ep pfmtop)"

static bool privileged(const struct probe *p)
{
	return p && (p->cap_perfmon || p->cap_sys_admin);
}

static bool hardware_type(const struct perf_event_attr *a)
{
	return a && (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	             a->type == PERF_TYPE_RAW);
}

/* 1 when the running kernel is older than major.minor, 0 if not, -1 unknown. */
static int kernel_before(const struct probe *p, int major, int minor)
{
	int ma, mi;

	if (!p || sscanf(p->kernel, "%d.%d", &ma, &mi) != 2)
		return -1;
	return ma < major || (ma == major && mi < minor);
}

/*
 * EACCES/EPERM. Checked in this order: unknown situation, paranoid 3, raw
 * tracepoint data, CPU-wide, kernel space, another task, exclude bits the PMU
 * cannot honour; what remains was allowed by paranoid, so a security policy
 * must be in the way.
 */
static void explain_access(const struct explain_ctx *c, const char *ev, char *buf, size_t len)
{
	const struct probe *p = c->probe;
	const struct perf_event_attr *a = c->attr;
	bool priv = privileged(p);
	int par = p ? p->paranoid : PROBE_UNKNOWN;

	if (!priv && par == PROBE_UNKNOWN)
		snprintf(buf, len,
		         "%s was refused: perf_event_paranoid or a missing CAP_PERFMON forbids "
		         "it; " GRANT " or lower sysctl kernel.perf_event_paranoid",
		         ev);
	else if (!priv && probe_no_access(p))
		snprintf(buf, len,
		         "%s was refused because perf_event_paranoid is %d, which forbids all perf "
		         "use without CAP_PERFMON; " GRANT
		         " or set sysctl kernel.perf_event_paranoid=2",
		         ev, par);
	else if (!priv && a && a->type == PERF_TYPE_TRACEPOINT &&
	         (a->sample_type & PERF_SAMPLE_RAW) && par > -1)
		snprintf(buf, len,
		         "Raw tracepoint data for %s needs perf_event_paranoid -1 or CAP_PERFMON "
		         "(it is %d); sample without raw data, " GRANT
		         " or set sysctl kernel.perf_event_paranoid=-1",
		         ev, par);
	else if (!priv && c->pid == -1 && par > 0)
		snprintf(buf, len,
		         "Counting %s on a whole CPU needs perf_event_paranoid 0 or lower, or "
		         "CAP_PERFMON (it is %d); watch your own processes instead, " GRANT
		         " or set sysctl kernel.perf_event_paranoid=0",
		         ev, par);
	else if (!priv && a && !a->exclude_kernel && par >= 2)
		snprintf(buf, len,
		         "%s includes kernel space, which perf_event_paranoid %d forbids without "
		         "CAP_PERFMON; count user space only (exclude_kernel, the :u modifier), "
		         "grant CAP_PERFMON or set sysctl kernel.perf_event_paranoid=1",
		         ev, par);
	else if (!priv && c->pid > 0)
		snprintf(buf, len,
		         "Attaching %s to task %d was refused: without CAP_PERFMON pfmtop may only "
		         "watch processes of its own user; run pfmtop as that user or " GRANT,
		         ev, (int)c->pid);
	else if (a && (a->exclude_user || a->exclude_hv || a->exclude_idle))
		snprintf(buf, len,
		         "The PMU behind %s cannot honour the requested exclude_user, exclude_hv "
		         "or exclude_idle setting; drop the modifier and count all modes",
		         ev);
	else if (priv || a)
		snprintf(buf, len,
		         "%s was refused although %s allows it: a security policy (a container's "
		         "seccomp profile, SELinux or AppArmor) blocks perf_event_open, or the "
		         "event targets a kernel address; allow perf_event_open in that policy",
		         ev,
		         !priv            ? "perf_event_paranoid"
		         : p->cap_perfmon ? "CAP_PERFMON"
		                          : "CAP_SYS_ADMIN");
	else
		snprintf(
		    buf, len,
		    "%s was refused: perf_event_paranoid is %d and pfmtop lacks CAP_PERFMON; " GRANT
		    " or lower sysctl kernel.perf_event_paranoid",
		    ev, par);
}

static void explain_noent(const struct explain_ctx *c, const char *ev, char *buf, size_t len)
{
	const struct probe *p = c->probe;
	const struct perf_event_attr *a = c->attr;

	if ((hardware_type(a) || !a) && p && !p->core_pmu) {
		char why[160];

		if (p->hypervisor)
			snprintf(why, sizeof(why), "this %s%sguest has no virtual PMU",
			         p->hypervisor_name, p->hypervisor_name[0] ? " " : "");
		else
			snprintf(why, sizeof(why),
			         "the kernel exposes no core PMU here (a container or VM without a "
			         "virtual PMU, or no driver for this CPU)");
		if (a)
			snprintf(
			    buf, len,
			    "%s is a hardware event, but %s, so the kernel cannot count it; %spick "
			    "a software event such as task-clock (see --list-events)",
			    ev, why,
			    p->hypervisor ? "enable the virtual PMU in the hypervisor or " : "");
		else
			snprintf(buf, len,
			         "%s is not available here: if it is a hardware event, %s; see "
			         "--list-events for what can be counted",
			         ev, why);
	} else if (hardware_type(a)) {
		snprintf(buf, len,
		         "%s is a generic hardware event that this CPU's PMU does not implement; "
		         "choose another one from --list-events",
		         ev);
	} else if (a && a->type == PERF_TYPE_TRACEPOINT) {
		snprintf(buf, len,
		         "Tracepoint %s (id %llu) does not exist on this kernel; see --list-events "
		         "for the tracepoints it has",
		         ev, (unsigned long long)a->config);
	} else {
		snprintf(buf, len,
		         "%s does not exist on this machine: the kernel or CPU does not provide "
		         "the event or its PMU; see --list-events for what is available",
		         ev);
	}
}

static void explain_notsup(const struct explain_ctx *c, const char *ev, char *buf, size_t len)
{
	const struct perf_event_attr *a = c->attr;
	const char *vm = c->probe && c->probe->hypervisor ? " (common in virtual machines)" : "";

	if (a && a->precise_ip)
		snprintf(buf, len,
		         "%s asks for precise_ip=%u (low-skid :p sampling), which this PMU cannot "
		         "provide%s; drop the :p modifier",
		         ev, (unsigned int)a->precise_ip, vm);
	else if (a && (a->sample_type & PERF_SAMPLE_BRANCH_STACK))
		snprintf(buf, len,
		         "Branch stack sampling is not available for %s: it needs branch-record "
		         "hardware (LBR, BRBE) and a hardware event%s; sample without branches",
		         ev, vm);
	else if (a && a->exclusive)
		snprintf(buf, len,
		         "%s asks for exclusive use of its PMU, which that PMU does not support; "
		         "open it without the exclusive flag",
		         ev);
	else if (a && a->sample_period)
		snprintf(buf, len,
		         "%s cannot be sampled here: its PMU has no overflow interrupt%s; count it "
		         "instead, or sample a software event such as cpu-clock",
		         ev, vm);
	else
		snprintf(buf, len,
		         "%s needs a hardware feature this machine does not have%s; see "
		         "--list-events for what is available",
		         ev, vm);
}

static void explain_inval(const struct explain_ctx *c, const char *ev, char *buf, size_t len)
{
	const struct probe *p = c->probe;
	const struct perf_event_attr *a = c->attr;

	if (c->pid == -1 && c->cpu == -1)
		snprintf(buf, len,
		         "%s was opened with pid -1 and cpu -1, which the kernel refuses: counting "
		         "all tasks needs one event per CPU",
		         ev);
	else if (c->cpu >= 0 && p && p->cpus_online[0] && !probe_cpu_online(p, c->cpu))
		snprintf(buf, len, "CPU %d is not online (online: %s); choose CPUs from that list",
		         c->cpu, p->cpus_online);
	else if (a && a->freq && p && p->max_sample_rate > 0 &&
	         a->sample_freq > (uint64_t)p->max_sample_rate)
		snprintf(buf, len,
		         "Sampling %s at %llu Hz exceeds kernel.perf_event_max_sample_rate (%d); "
		         "lower the frequency or raise that sysctl",
		         ev, (unsigned long long)a->sample_freq, p->max_sample_rate);
	else if (a && a->inherit && (a->read_format & PERF_FORMAT_GROUP) && kernel_before(p, 4, 13))
		snprintf(
		    buf, len,
		    "%s combines inherit with a group read (PERF_FORMAT_GROUP), which kernels "
		    "before Linux 4.13 reject (this one is %s); do not follow children or read "
		    "the events one by one",
		    ev, p && p->kernel[0] ? p->kernel : "unknown");
	else if (a && a->inherit && (a->sample_type & PERF_SAMPLE_READ))
		snprintf(buf, len,
		         "%s combines inherit with PERF_SAMPLE_READ, which this kernel rejects; do "
		         "not follow children or sample without counter values",
		         ev);
	else if (a)
		snprintf(
		    buf, len,
		    "The kernel rejected the settings of %s (type %u, config %#llx, %s %llu) as "
		    "invalid: a config this PMU does not accept, a period or frequency out of "
		    "range, or a flag it cannot honour; check its modifiers against "
		    "--list-events",
		    ev, a->type, (unsigned long long)a->config,
		    a->freq ? "sample_freq" : "sample_period",
		    (unsigned long long)a->sample_period);
	else
		snprintf(buf, len,
		         "The kernel rejected the settings of %s as invalid: an unknown config, a "
		         "period or frequency out of range, or a CPU that does not exist; check it "
		         "against --list-events",
		         ev);
}

static void explain_mfile(const struct explain_ctx *c, const char *ev, char *buf, size_t len)
{
	const struct probe *p = c->probe;
	char soft[24], hard[24];

	if (!p)
		snprintf(buf, len,
		         "Out of file descriptors opening %s: every event takes one per CPU or "
		         "task; raise the limit with ulimit -n, or count fewer events or CPUs",
		         ev);
	else if (p->nofile_soft < p->nofile_hard)
		snprintf(buf, len,
		         "Out of file descriptors opening %s: the limit is %s open files (hard "
		         "limit %s) and every event takes one per CPU or task; raise it with "
		         "ulimit -n %s, or count fewer events or CPUs",
		         ev, util_limit_text(p->nofile_soft, soft, sizeof(soft)),
		         util_limit_text(p->nofile_hard, hard, sizeof(hard)), hard);
	else
		snprintf(
		    buf, len,
		    "Out of file descriptors opening %s: the limit is %s open files, already "
		    "the hard limit, and every event takes one per CPU or task; raise the hard "
		    "limit as root (ulimit -Hn, LimitNOFILE=, limits.conf), or count fewer "
		    "events or CPUs",
		    ev, util_limit_text(p->nofile_soft, soft, sizeof(soft)));
}

const char *explain_open_error(int err, const struct explain_ctx *ctx, char *buf, size_t len)
{
	static const struct explain_ctx none = {.pid = 0, .cpu = -1};
	const struct explain_ctx *c = ctx ? ctx : &none;
	const struct probe *p = c->probe;
	const struct perf_event_attr *a = c->attr;
	char ev[96];

	if (!buf || !len)
		return buf;
	if (c->event && c->event[0])
		snprintf(ev, sizeof(ev), "\"%s\"", c->event);
	else
		snprintf(ev, sizeof(ev), "the event");

	switch (err) {
	case EACCES:
	case EPERM:
		explain_access(c, ev, buf, len);
		break;
	case ENOENT:
		explain_noent(c, ev, buf, len);
		break;
	case EOPNOTSUPP:
		explain_notsup(c, ev, buf, len);
		break;
	case EINVAL:
		explain_inval(c, ev, buf, len);
		break;
	case EBUSY:
		snprintf(buf, len,
		         "The PMU that %s needs is held exclusively by another user (an exclusive "
		         "perf session, or a tracer such as Intel PT); stop it and retry%s",
		         ev,
		         !p || p->nmi_watchdog != 0
		             ? ", and if counters are scarce sysctl kernel.nmi_watchdog=0 frees "
		               "the one the NMI watchdog holds"
		             : "");
		break;
	case EMFILE:
		explain_mfile(c, ev, buf, len);
		break;
	case ENFILE:
		snprintf(
		    buf, len,
		    "The system-wide file table is full (sysctl fs.file-max) while opening %s; "
		    "close other programs or raise fs.file-max, as ulimit -n alone does not "
		    "help",
		    ev);
		break;
	case ESRCH:
		if (c->pid > 0)
			snprintf(buf, len,
			         "Task %d no longer exists: it exited before %s could be attached; "
			         "choose a running process",
			         (int)c->pid, ev);
		else
			snprintf(buf, len,
			         "The target task no longer exists: it exited before %s could be "
			         "attached",
			         ev);
		break;
	case E2BIG:
		if (a && a->size && a->size != sizeof(*a))
			snprintf(
			    buf, len,
			    "%s uses perf_event_attr fields newer than kernel %s understands: "
			    "pfmtop passed %zu bytes and the kernel expects %u; drop the option "
			    "that needs a newer kernel",
			    ev, p && p->kernel[0] ? p->kernel : "(unknown)", sizeof(*a),
			    (unsigned int)a->size);
		else
			snprintf(
			    buf, len,
			    "The kernel rejected the perf_event_attr size of %s: pfmtop was built "
			    "for newer kernel headers; drop the option that needs a newer kernel",
			    ev);
		break;
	case ENODEV:
		if (p && p->hypervisor)
			snprintf(
			    buf, len,
			    "%s needs a feature this CPU does not have, at least not as the %s "
			    "hypervisor presents it; pick another event from --list-events",
			    ev, p->hypervisor_name[0] ? p->hypervisor_name : "virtual machine's");
		else
			snprintf(
			    buf, len,
			    "%s needs a feature this CPU does not have; pick another event from "
			    "--list-events",
			    ev);
		break;
	case ENOSPC:
		if (a && a->type == PERF_TYPE_BREAKPOINT)
			snprintf(
			    buf, len,
			    "No hardware breakpoint slot is left for %s: the CPU has only a few "
			    "debug registers (4 on x86), shared with debuggers; watch fewer "
			    "addresses",
			    ev);
		else
			snprintf(
			    buf, len,
			    "No room for %s: too many counters or breakpoints were requested at "
			    "once; split the group or use fewer events",
			    ev);
		break;
	case EBADF:
		snprintf(buf, len,
		         "Opening %s failed on a bad group leader or cgroup file descriptor: the "
		         "leader was closed or the cgroup directory is invalid; reopen the group",
		         ev);
		break;
	case EINTR:
		snprintf(buf, len,
		         "Opening %s was interrupted: a uprobe cannot serve perf and ftrace at the "
		         "same time; stop the ftrace user and retry",
		         ev);
		break;
	case ENOSYS:
		if (a && (a->sample_type & PERF_SAMPLE_STACK_USER))
			snprintf(
			    buf, len,
			    "User stack sampling for %s is not supported by this CPU or kernel; "
			    "sample without user stacks",
			    ev);
		else
			snprintf(buf, len,
			         "perf_event_open is not available: the kernel lacks perf events "
			         "(CONFIG_PERF_EVENTS) or a seccomp filter blocks it");
		break;
	case EOVERFLOW:
		snprintf(
		    buf, len,
		    "The call-chain depth asked for %s exceeds kernel.perf_event_max_stack; ask "
		    "for fewer frames or raise that sysctl",
		    ev);
		break;
	default:
		snprintf(buf, len, "Opening %s failed: %s", ev, strerror(err));
		break;
	}
	if (!strncmp(buf, "the event", 9))
		buf[0] = 'T';
	return buf;
}

const char *explain_short(int err)
{
	switch (err) {
	case 0:
		return "ok";
	case EACCES:
	case EPERM:
		return "no permission";
	case ENOENT: /* the name resolved: this kernel or PMU cannot count it */
		return "not supported";
	case EOPNOTSUPP:
	case ENOSYS:
		return "not supported";
	case EINVAL:
		return "invalid";
	case EBUSY:
		return "PMU busy";
	case EMFILE:
	case ENFILE:
		return "fd limit";
	case ESRCH:
		return "task gone";
	case E2BIG:
		return "attr too new";
	case ENODEV:
		return "not on this CPU";
	case ENOSPC:
		return "no room";
	case EBADF:
		return "bad group";
	case EINTR:
		return "interrupted";
	case EOVERFLOW:
		return "stack too deep";
	default:
		return strerror(err);
	}
}
