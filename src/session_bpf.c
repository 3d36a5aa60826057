/* session_bpf: system-wide task rows from a BPF program that charges each
 * task, at its context switches, with what the CPU counters counted while
 * it ran (taskbpf.h). No fds per task, and a task is counted from its first
 * switch, whenever pfmtop finds it. */
#include "session_priv.h"

#include "sys.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where BPF is not tried: the per-task counters are the better trade (or
 * the only one) there. NULL when it may be. */
static const char *not_here(const struct session *s)
{
	/* auto is per-task counters until BPF mode passes the whole suite
	 * (PID reuse within an interval, task-clock past the interval) */
	if (s->cfg->task_counters != SESSION_TC_BPF || sys != &sys_kernel_ops)
		return ""; /* asked for, or a fake kernel (tests) */
	if (s->cfg->cpu_min < 0)
		return "--cpu-min -1 counts no tasks";
	if (s->cfg->nr_cpus)
		return "-C counts some CPUs only, and a task runs on others too";
	if (s->ccfg.inherit)
		return "inherited counters cannot be read from BPF";
	if (s->nr_ev > TASKCOUNT_MAX_EVENTS)
		return "more events than the BPF program reads (8)";
	return NULL;
}

int session_bpf_open(struct session *s, char *err, size_t errlen)
{
	const char *why = not_here(s);
	int *fd, nfed = 0, ret;

	s->bpf_on = false;
	s->bpf_why[0] = '\0';
	if (why) {
		if (s->cfg->task_counters == SESSION_TC_BPF && why[0]) {
			snprintf(err, errlen, "--task-counters bpf: %s", why);
			return -EINVAL;
		}
		util_strlcpy(s->bpf_why, why, sizeof(s->bpf_why));
		return 0;
	}
	fd = calloc((size_t)s->nr_ev * (size_t)s->nr_cpus + 1, sizeof(*fd));
	s->bpf_fed = calloc((size_t)s->nr_ev + 1, sizeof(*s->bpf_fed));
	if (!fd || !s->bpf_fed) {
		free(fd);
		return -ENOMEM;
	}
	/* An event is read for tasks where it counts on every CPU. */
	for (int e = 0; e < s->nr_ev; e++) {
		bool all = true;
		for (int i = 0; i < s->nr_cpus; i++) {
			const struct session_target *t = &s->targets[i];
			fd[e * s->nr_cpus + i] = t->counted ? t->cs.c[e].fd : -1;
			all &= fd[e * s->nr_cpus + i] >= 0;
		}
		s->bpf_fed[e] = all;
		nfed += all;
		if (!all)
			for (int i = 0; i < s->nr_cpus; i++)
				fd[e * s->nr_cpus + i] = -1;
	}
	ret = nfed ? taskbpf_open(&s->bpf, fd, s->cpus, s->nr_cpus, s->nr_ev, s->bpf_why,
	                          sizeof(s->bpf_why))
	           : (util_strlcpy(s->bpf_why, "no event counts on every CPU", sizeof(s->bpf_why)),
	              -ENOENT);
	free(fd);
	if (ret == 0) {
		s->bpf_on = true;
		return 0;
	}
	if (s->cfg->task_counters == SESSION_TC_BPF) {
		snprintf(err, errlen, "--task-counters bpf: %s", s->bpf_why);
		return ret;
	}
	return 0;
}

int session_bpf_target(struct session *s, struct session_target *t, pid_t pid)
{
	int ret = counters_open_fed(&t->cs, &s->ccfg, pid, s->bpf_fed, EOPNOTSUPP);

	if (ret)
		return ret;
	t->counted = true;
	t->bpf_task = 0;
	return 0;
}

/* Is task tid still there? (A TID of any thread: kill() finds it.) */
static bool task_alive(pid_t tid)
{
	return kill(tid, 0) == 0 || errno != ESRCH;
}

/*
 * Give every task target its cumulative counts from the map. A target
 * takes the entry of its TID that it took before (same task_struct), or the
 * newest one no other target has. Entries no target took are of tasks not
 * (yet) counted, such as pfmtop's own, or of tasks gone that no target
 * had: those are deleted. What the map does not give a task row (those,
 * the idle task, a full map, the running task's slice so far) stays with
 * the CPUs, in (unattributed).
 */
void session_bpf_feed(struct session *s)
{
	struct taskbpf *b = &s->bpf;
	int n = taskbpf_read(b);
	bool *taken;

	if (n < 0)
		return;
	taken = calloc((size_t)n + 1, sizeof(*taken));
	if (!taken)
		return;
	for (int i = 0; i < s->nr_targets; i++) {
		struct session_target *t = &s->targets[i];
		const struct taskbpf_entry *e, *pick = NULL;
		uint64_t start_ns = t->starttime * (1000000000ull / (uint64_t)procfs_hz());

		if (t->tid < 0 || !t->counted || t->cs.cpu >= 0)
			continue;
		for (e = taskbpf_find(b, (uint32_t)t->tid);
		     e && e < b->e + b->nr && e->key.tid == (uint32_t)t->tid; e++) {
			/* Not a task that had its TID before it: the first
			 * switch of this one comes after its start. */
			if (t->bpf_task ? e->key.task == t->bpf_task
			                : !taken[e - b->e] && e->v.first_ns >= start_ns) {
				pick = e;
				break;
			}
		}
		/* A task born while we watch that exec'd before we first saw
		 * it is counted from that exec, as perf stat counts a command:
		 * what its parent's copy did before it goes to (unattributed). */
		bool from_exec = pick && !t->bpf_task && s->started && pick->v.execs > 0;
		for (int k = 0; k < s->nr_ev; k++) {
			struct counter_reading r = t->cs.c[k].cur;
			if (!t->cs.c[k].fed)
				continue;
			if (from_exec) {
				t->cs.c[k].base.value = pick->v.exec_c.value[k];
				t->cs.c[k].base.enabled = pick->v.exec_c.enabled[k];
				t->cs.c[k].base.running = pick->v.exec_c.running[k];
				t->cs.c[k].cur = t->cs.c[k].base;
			}
			if (pick) {
				r.value = pick->v.c.value[k];
				r.enabled = pick->v.c.enabled[k];
				r.running = pick->v.c.running[k];
			}
			counters_feed(&t->cs, k, &r);
		}
		if (pick) {
			taken[pick - b->e] = true;
			t->bpf_task = pick->key.task;
			t->bpf_dead = pick->v.dead;
		}
	}
	/* Not taken: deleted if its task is gone, which it is when a newer
	 * entry has its TID. */
	for (int i = 0; i < n; i++)
		if (!taken[i] &&
		    (b->e[i].v.dead || (i > 0 && b->e[i - 1].key.tid == b->e[i].key.tid) ||
		     !task_alive((pid_t)b->e[i].key.tid)))
			taskbpf_delete(b, &b->e[i].key);
	free(taken);
}

void session_bpf_forget(struct session *s, const struct session_target *t)
{
	struct taskcount_key k = {.tid = (unsigned)t->tid, .task = t->bpf_task};

	if (t->bpf_task && t->cs.cpu < 0)
		taskbpf_delete(&s->bpf, &k);
}

void session_bpf_note(struct session *s)
{
	if (s->mode != MODEL_SYSTEM)
		return;
	if (s->bpf_on)
		model_note(&s->model,
		           "per-task counts: BPF at context switch (the CPU counters read at each "
		           "switch; up to %" PRIu32 " tasks, %zu MiB of kernel memory at most)",
		           s->bpf.entries, taskbpf_map_bytes(s->bpf.entries) >> 20);
	else if (s->cfg->cpu_min >= 0)
		model_note(&s->model, "per-task counts: per-task counters%s%s%s",
		           s->bpf_why[0] ? " (BPF: " : "", s->bpf_why, s->bpf_why[0] ? ")" : "");
}

void session_bpf_close(struct session *s)
{
	taskbpf_close(&s->bpf);
	s->bpf_on = false;
	free(s->bpf_fed);
	s->bpf_fed = NULL;
}
