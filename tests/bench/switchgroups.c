/* switchgroups: a prototype of per-CPU counter groups sampled at every
 * context switch, to count per task without per-task events (issue #32).
 *
 * Mode "read" (default): on every CPU a group (pid -1, cpu N) led by the
 * context-switches software event with sample_period 1 and PERF_SAMPLE_READ,
 * members task-clock, page-faults, cpu-migrations (and cycles, instructions
 * when the machine has a PMU). The kernel takes the sample when a task
 * switches out, so a sample carries the outgoing task's TID and the group's
 * counts at that switch: the delta between two samples on one CPU belongs
 * to the task that ran between them.
 *
 * Mode "switch": the alternative, PERF_RECORD_SWITCH_CPU_WIDE records
 * (attr.context_switch) on a dummy event, and the same members as a plain
 * counting group read once a second. Switch records give each task's time
 * but no counts: page faults can only be had per CPU.
 *
 * Usage: switchgroups [-m read|switch] [-s] [-p PID] [-n COMM] [-t SECS]
 *                     [-r RING_KB] [-w WAKEUP_KB] [-q] [-D] [-x]
 * -s adds switch records to read mode, to charge the idle task's time (its
 * switch out is counted but leaves no sample) to it. -D prints samples
 * whose context-switches delta is not 1. -x drops PERF_SAMPLE_READ (a cost
 * probe: the samples are only counted).
 * Every second, on stderr: records/s, lost records, own CPU time. At exit
 * (SIGINT, SIGTERM, or after SECS): the per-TID totals of process PID, or of
 * tasks whose last name is COMM ("*": tasks with 1,000 switches or more), totals from their last
 * exec too (to compare with perf stat -- CMD, which counts from exec), and a check that the sum of
 * all deltas equals the groups' own final counts. Needs root. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAXV 8 /* group values: leader + members */

struct member {
	const char *name;
	uint32_t type;
	uint64_t config;
	int optional; /* a PMU event: skipped where there is none */
};

static const struct member members[] = {
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1},
};
#define NMEMBERS (sizeof(members) / sizeof(members[0]))

struct task {
	uint32_t tid, pid;
	int used;
	uint64_t n, v[MAXV];   /* since we started */
	uint64_t xn, xv[MAXV]; /* since its last exec */
	char comm[16];
};

struct cpu {
	int fd[MAXV]; /* leader (sampled, or dummy in switch mode), members */
	int cfd;      /* switch mode: the counting group's leader */
	uint64_t id[MAXV];
	struct perf_event_mmap_page *meta;
	char *data;
	size_t size;         /* data bytes, a power of 2 */
	uint64_t last[MAXV]; /* read mode: the counts at the last sample */
	uint64_t last_enabled, last_running;
	uint64_t in_time;  /* switch mode: when the running task came in */
	uint32_t last_tid; /* read mode: the last sample's task and time */
	uint64_t last_time;
	uint32_t gap_tid, gap_pid; /* -s: a task whose switch out left no sample */
	uint64_t gap_ns;
	int broken; /* records lost since the last sample: next delta unknown */
};

struct state {
	int mode_switch, ncpu, nv, quiet, debug, with_switch, no_read;
	uint64_t gaps, idle_gaps; /* -s: switches out that left no sample */
	const char *name[MAXV];
	struct cpu *cpu;
	struct task *t;
	size_t cap, len;
	uint64_t records, samples, lost, lost_events, throttles, unattr_n;
	uint64_t unattr[MAXV];
	uint64_t nonmono; /* samples whose counts went backwards */
	uint64_t mux;     /* samples whose group was not running all the time */
	char scratch[65536];
};

static int perf_open(struct perf_event_attr *a, int cpu, int group)
{
	return (int)syscall(SYS_perf_event_open, a, -1, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double self_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static struct task *task_get(struct state *s, uint32_t tid)
{
	size_t i;

	if (s->len * 2 >= s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 4096;
		struct task *nt = calloc(ncap, sizeof(*nt));

		if (!nt) {
			perror("switchgroups: calloc");
			exit(1);
		}
		for (size_t k = 0; k < s->cap; k++) {
			if (!s->t[k].used)
				continue;
			for (i = (s->t[k].tid * 2654435761u) & (ncap - 1); nt[i].used;
			     i = (i + 1) & (ncap - 1))
				;
			nt[i] = s->t[k];
		}
		free(s->t);
		s->t = nt;
		s->cap = ncap;
	}
	for (i = (tid * 2654435761u) & (s->cap - 1); s->t[i].used; i = (i + 1) & (s->cap - 1))
		if (s->t[i].tid == tid)
			return &s->t[i];
	s->t[i].used = 1;
	s->t[i].tid = tid;
	s->len++;
	return &s->t[i];
}

/* A sample's group read: nr, enabled, running, then {value, id} pairs. */
static void on_read_sample(struct state *s, struct cpu *c, const uint64_t *p)
{
	uint32_t pid = (uint32_t)p[0], tid = (uint32_t)(p[0] >> 32);
	uint64_t nr = p[2], enabled = p[3], running = p[4];
	uint64_t d[MAXV];
	struct task *t;
	int back = 0;

	s->samples++;
	if (nr != (uint64_t)s->nv)
		return;
	for (int k = 0; k < s->nv; k++) {
		uint64_t v = p[5 + 2 * k];

		if (p[6 + 2 * k] != c->id[k])
			return;
		if (v < c->last[k])
			back = 1;
		d[k] = v - c->last[k];
		c->last[k] = v;
	}
	if (enabled - c->last_enabled != running - c->last_running)
		s->mux++;
	c->last_enabled = enabled;
	c->last_running = running;
	if (back)
		s->nonmono++;
	if (s->debug && d[0] != 1)
		fprintf(stderr, "debug: cpu %d tid %u delta switches %llu time %llu\n",
		        (int)(c - s->cpu), tid, (unsigned long long)d[0], (unsigned long long)p[1]);
	if (c->broken || back) {
		/* Records were lost in between: this delta spans several tasks. */
		c->broken = 0;
		s->unattr_n++;
		for (int k = 0; k < s->nv; k++)
			s->unattr[k] += d[k];
		return;
	}
	c->last_tid = tid;
	c->last_time = p[1];
	if (c->gap_ns) {
		/* -s: a switch in record named a task whose switch out left no
		 * sample (the idle task): its time and switch are its own. */
		uint64_t g = c->gap_ns < d[1] ? c->gap_ns : d[1];

		t = task_get(s, c->gap_tid);
		t->pid = c->gap_pid;
		if (d[0] > 1) {
			t->n++;
			t->xn++;
			t->v[0]++;
			t->xv[0]++;
			d[0]--;
		}
		t->v[1] += g;
		t->xv[1] += g;
		d[1] -= g;
		c->gap_ns = 0;
	}
	t = task_get(s, tid);
	t->pid = pid;
	t->n++;
	t->xn++;
	for (int k = 0; k < s->nv; k++) {
		t->v[k] += d[k];
		t->xv[k] += d[k];
	}
}

/* Switch mode: an out record charges the time since the last in record. */
static void on_switch(struct state *s, struct cpu *c, const struct perf_event_header *h,
                      const uint32_t *p)
{
	/* next_prev_pid, next_prev_tid, then sample_id: pid, tid, time. */
	uint32_t pid = p[2], tid = p[3];
	uint64_t time;
	struct task *t;

	memcpy(&time, p + 4, 8);
	if (!s->mode_switch) {
		/* Read mode with -s: an in record names the task before. */
		if (!(h->misc & PERF_RECORD_MISC_SWITCH_OUT) && c->last_time &&
		    c->last_tid != p[1] && time > c->last_time) {
			c->gap_tid = p[1];
			c->gap_pid = p[0];
			c->gap_ns = time - c->last_time;
			s->gaps++;
			s->idle_gaps += p[1] == 0;
		}
		return;
	}
	if (!(h->misc & PERF_RECORD_MISC_SWITCH_OUT)) {
		c->in_time = time;
		return;
	}
	s->samples++;
	t = task_get(s, tid);
	t->pid = pid;
	t->n++;
	t->xn++;
	if (c->in_time && time > c->in_time && !c->broken) {
		t->v[1] += time - c->in_time;
		t->xv[1] += time - c->in_time;
	}
	c->broken = 0;
	c->in_time = 0;
}

static void on_record(struct state *s, struct cpu *c, const struct perf_event_header *h)
{
	const char *body = (const char *)(h + 1);

	s->records++;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (s->no_read)
			s->samples++;
		else if (!s->mode_switch)
			on_read_sample(s, c, (const uint64_t *)body);
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		on_switch(s, c, h, (const uint32_t *)body);
		break;
	case PERF_RECORD_COMM: {
		uint32_t pid, tid;
		struct task *t;

		memcpy(&pid, body, 4);
		memcpy(&tid, body + 4, 4);
		t = task_get(s, tid);
		t->pid = pid;
		snprintf(t->comm, sizeof(t->comm), "%s", body + 8);
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
			/* The slice in which it execs counts as after the exec. */
			t->xn = 0;
			memset(t->xv, 0, sizeof(t->xv));
		}
		break;
	}
	case PERF_RECORD_LOST: {
		uint64_t n;

		memcpy(&n, body + 8, 8);
		s->lost += n;
		s->lost_events++;
		c->broken = 1;
		break;
	}
	case PERF_RECORD_THROTTLE:
		s->throttles++;
		c->broken = 1;
		break;
	}
}

/* The ring protocol: load head (acquire), read records up to it, store
 * tail (release). A record that wraps is copied out first. */
static void drain(struct state *s, struct cpu *c)
{
	uint64_t head = __atomic_load_n(&c->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = c->meta->data_tail;

	while (tail < head) {
		size_t off = tail & (c->size - 1);
		struct perf_event_header h;

		if (off + sizeof(h) <= c->size) {
			memcpy(&h, c->data + off, sizeof(h));
		} else {
			size_t a = c->size - off;

			memcpy(&h, c->data + off, a);
			memcpy((char *)&h + a, c->data, sizeof(h) - a);
		}
		if (h.size < sizeof(h))
			break;
		if (off + h.size <= c->size) {
			on_record(s, c, (const struct perf_event_header *)(c->data + off));
		} else {
			size_t a = c->size - off;

			memcpy(s->scratch, c->data + off, a);
			memcpy(s->scratch + a, c->data, h.size - a);
			on_record(s, c, (const struct perf_event_header *)s->scratch);
		}
		tail += h.size;
	}
	__atomic_store_n(&c->meta->data_tail, tail, __ATOMIC_RELEASE);
}

/* Open the members into slots from first on; with leader -1 the first one opened
 * leads (disabled, for a counting group). Returns the slots filled. */
static int open_members(struct state *s, struct cpu *c, int cpu, int leader, int first)
{
	int k = first;

	for (size_t m = 0; m < NMEMBERS; m++) {
		struct perf_event_attr a = {.size = sizeof(a)};

		a.type = members[m].type;
		a.config = members[m].config;
		a.disabled = leader < 0;
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
		                PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		c->fd[k] = perf_open(&a, cpu, leader);
		if (c->fd[k] < 0) {
			if (members[m].optional)
				continue;
			fprintf(stderr, "switchgroups: %s on cpu %d: %s\n", members[m].name, cpu,
			        strerror(errno));
			return -1;
		}
		if (leader < 0)
			leader = c->fd[k];
		if (cpu == 0)
			s->name[k] = members[m].name;
		else if (!s->name[k] || strcmp(s->name[k], members[m].name))
			return fprintf(stderr, "switchgroups: CPUs differ in members\n"), -1;
		ioctl(c->fd[k], PERF_EVENT_IOC_ID, &c->id[k]);
		k++;
	}
	return k;
}

static int open_cpu(struct state *s, struct cpu *c, int cpu, size_t ring, size_t wakeup)
{
	struct perf_event_attr a = {.size = sizeof(a)};
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m;
	int n;

	a.type = PERF_TYPE_SOFTWARE;
	a.disabled = 1;
	a.sample_id_all = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)wakeup;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
	                PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (s->mode_switch) {
		a.config = PERF_COUNT_SW_DUMMY;
		a.context_switch = 1;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	} else {
		a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		if (!s->no_read)
			a.sample_type |= PERF_SAMPLE_READ;
		a.context_switch = (uint64_t)s->with_switch;
	}
	c->fd[0] = perf_open(&a, cpu, -1);
	if (c->fd[0] < 0) {
		fprintf(stderr, "switchgroups: leader on cpu %d: %s\n", cpu, strerror(errno));
		return -1;
	}
	ioctl(c->fd[0], PERF_EVENT_IOC_ID, &c->id[0]);
	if (cpu == 0)
		s->name[0] = s->mode_switch ? "switches" : "context-switches";
	if (s->mode_switch) {
		/* A plain counting group: task-clock leads, read each second. */
		n = open_members(s, c, cpu, -1, 1);
		if (n < 0)
			return -1;
		c->cfd = c->fd[1];
	} else {
		n = open_members(s, c, cpu, c->fd[0], 1);
		if (n < 0)
			return -1;
	}
	s->nv = n;
	c->size = ring;
	m = mmap(NULL, page + ring, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd[0], 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "switchgroups: mmap %zu KB on cpu %d: %s\n", ring / 1024, cpu,
		        strerror(errno));
		return -1;
	}
	c->meta = m;
	c->data = (char *)m + page;
	return 0;
}

static void report(struct state *s, int want_pid, const char *want_comm)
{
	uint64_t sum[MAXV] = {0}, sumn = 0, fin[MAXV] = {0}, grp[3 + 2 * MAXV];
	uint64_t tot[MAXV] = {0}, totn = 0, xtot[MAXV] = {0}, xtotn = 0;
	int first = s->mode_switch ? 1 : 0, shown = 0;

	printf("%8s %8s %-16s %10s", "tid", "pid", "comm", "switches");
	for (int k = 1; k < s->nv; k++)
		printf(" %14s", s->name[k]);
	printf("   | from its last exec: switches %s ...\n", s->name[1]);
	for (size_t i = 0; i < s->cap; i++) {
		struct task *t = &s->t[i];

		if (!t->used)
			continue;
		sumn += t->n;
		for (int k = 0; k < s->nv; k++)
			sum[k] += t->v[k];
		if (!((want_pid >= 0 && t->pid == (uint32_t)want_pid) ||
		      (want_comm && !strcmp(t->comm, want_comm)) ||
		      (want_comm && !strcmp(want_comm, "*") && t->n >= 1000)))
			continue;
		shown++;
		printf("%8u %8u %-16s %10llu", t->tid, t->pid, t->comm, (unsigned long long)t->n);
		for (int k = 1; k < s->nv; k++)
			printf(" %14llu", (unsigned long long)t->v[k]);
		printf("   | %llu", (unsigned long long)t->xn);
		for (int k = 1; k < s->nv; k++)
			printf(" %llu", (unsigned long long)t->xv[k]);
		printf("\n");
		totn += t->n;
		xtotn += t->xn;
		for (int k = 0; k < s->nv; k++) {
			tot[k] += t->v[k];
			xtot[k] += t->xv[k];
		}
	}
	if (shown > 1) {
		printf("%8s %8s %-16s %10llu", "all", "", "", (unsigned long long)totn);
		for (int k = 1; k < s->nv; k++)
			printf(" %14llu", (unsigned long long)tot[k]);
		printf("   | %llu", (unsigned long long)xtotn);
		for (int k = 1; k < s->nv; k++)
			printf(" %llu", (unsigned long long)xtot[k]);
		printf("\n");
	}
	if (s->mode_switch)
		return;
	/* The groups' own counts now, against the sum of what was charged: the
	 * difference is what the running tasks did since their last switch. */
	for (int c = 0; c < s->ncpu; c++) {
		if (read(s->cpu[c].fd[first], grp, sizeof(grp)) < 0)
			continue;
		for (int k = 0; k < s->nv; k++)
			fin[k] += grp[3 + 2 * k];
	}
	printf("check: %llu samples, %llu charged to tasks, %llu after lost records "
	       "(unattributed)\n",
	       (unsigned long long)s->samples, (unsigned long long)sumn,
	       (unsigned long long)s->unattr_n);
	for (int k = 0; k < s->nv; k++)
		printf("check: %-16s groups %14llu = tasks %14llu + unattributed %12llu + "
		       "in flight %llu\n",
		       s->name[k], (unsigned long long)fin[k], (unsigned long long)sum[k],
		       (unsigned long long)s->unattr[k],
		       (unsigned long long)(fin[k] - sum[k] - s->unattr[k]));
}

int main(int argc, char **argv)
{
	size_t ring = 2048 * 1024, wakeup = 0;
	double secs = 0, cpu0, cpu_last;
	uint64_t start, rec_last = 0, lost_last = 0;
	int opt, want_pid = -1, ep, sfd, tfd, tick = 0, stop = 0;
	const char *want_comm = NULL;
	struct state *s = calloc(1, sizeof(*s));
	struct itimerspec its = {{1, 0}, {1, 0}};
	struct epoll_event ev;
	sigset_t set;

	if (!s)
		return 1;
	while ((opt = getopt(argc, argv, "m:p:n:t:r:w:qDsx")) != -1) {
		switch (opt) {
		case 'm':
			s->mode_switch = !strcmp(optarg, "switch");
			break;
		case 'p':
			want_pid = atoi(optarg);
			break;
		case 'n':
			want_comm = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		case 'r':
			ring = (size_t)atol(optarg) * 1024;
			break;
		case 'w':
			wakeup = (size_t)atol(optarg) * 1024;
			break;
		case 'q':
			s->quiet = 1;
			break;
		case 's':
			s->with_switch = 1;
			break;
		case 'x':
			s->no_read = 1;
			break;
		case 'D':
			s->debug = 1;
			break;
		default:
			fprintf(stderr, "usage: switchgroups [-m read|switch] [-p PID] [-n COMM] "
			                "[-t SECS] [-r RING_KB] [-w WAKEUP_KB] [-q]\n");
			return 2;
		}
	}
	if (ring < 8192 || (ring & (ring - 1))) {
		fprintf(stderr, "switchgroups: the ring must be a power of 2, at least 8 KB\n");
		return 2;
	}
	if (!wakeup)
		wakeup = ring / 4;
	s->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	s->cpu = calloc((size_t)s->ncpu, sizeof(*s->cpu));
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (!s->cpu || sfd < 0 || tfd < 0 || ep < 0)
		return perror("switchgroups: setup"), 1;
	for (int c = 0; c < s->ncpu; c++) {
		if (open_cpu(s, &s->cpu[c], c, ring, wakeup))
			return 1;
		ev.events = EPOLLIN;
		ev.data.u64 = (uint64_t)c;
		epoll_ctl(ep, EPOLL_CTL_ADD, s->cpu[c].fd[0], &ev);
	}
	ev.data.u64 = 1000000;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.u64 = 1000001;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	timerfd_settime(tfd, 0, &its, NULL);
	fprintf(stderr, "switchgroups: mode %s, %d CPUs, ring %zu KB, wakeup at %zu KB, %d values:",
	        s->mode_switch ? "switch" : "read", s->ncpu, ring / 1024, wakeup / 1024, s->nv);
	for (int k = 0; k < s->nv; k++)
		fprintf(stderr, " %s", s->name[k]);
	fprintf(stderr, "\n");
	for (int c = 0; c < s->ncpu; c++) {
		ioctl(s->cpu[c].fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
		if (s->mode_switch)
			ioctl(s->cpu[c].cfd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	}
	start = now_ns();
	cpu0 = cpu_last = self_cpu();
	while (!stop) {
		struct epoll_event evs[64];
		int n = epoll_wait(ep, evs, 64, -1);

		for (int i = 0; i < n; i++) {
			uint64_t u = evs[i].data.u64;

			if (u < (uint64_t)s->ncpu) {
				drain(s, &s->cpu[u]);
			} else if (u == 1000000) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) > 0)
					stop = 1;
			} else {
				uint64_t x;
				double now;

				if (read(tfd, &x, sizeof(x)) < 0)
					continue;
				for (int c = 0; c < s->ncpu; c++)
					drain(s, &s->cpu[c]);
				tick++;
				now = self_cpu();
				if (!s->quiet)
					fprintf(stderr,
					        "t=%d records/s %llu lost %llu (total %llu) "
					        "cpu %.3f s (%.1f%%)\n",
					        tick, (unsigned long long)(s->records - rec_last),
					        (unsigned long long)(s->lost - lost_last),
					        (unsigned long long)s->lost, now - cpu_last,
					        100 * (now - cpu_last));
				rec_last = s->records;
				lost_last = s->lost;
				cpu_last = now;
				if (secs > 0 && (now_ns() - start) / 1e9 >= secs)
					stop = 1;
			}
		}
	}
	for (int c = 0; c < s->ncpu; c++)
		ioctl(s->cpu[c].fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	for (int c = 0; c < s->ncpu; c++)
		drain(s, &s->cpu[c]);
	{
		double el = (now_ns() - start) / 1e9, cpu = self_cpu() - cpu0;

		fprintf(stderr,
		        "switchgroups: %.1f s, %llu records (%.0f/s), %llu samples, lost %llu in "
		        "%llu records, %llu throttles, %llu samples with the group not running "
		        "throughout, %llu going backwards, %zu tasks, own CPU %.3f s (%.2f%%)\n",
		        el, (unsigned long long)s->records, s->records / el,
		        (unsigned long long)s->samples, (unsigned long long)s->lost,
		        (unsigned long long)s->lost_events, (unsigned long long)s->throttles,
		        (unsigned long long)s->mux, (unsigned long long)s->nonmono, s->len, cpu,
		        100 * cpu / el);
	}
	if (s->with_switch)
		fprintf(stderr,
		        "switchgroups: %llu switches out left no sample, %llu of them the idle "
		        "task's\n",
		        (unsigned long long)s->gaps, (unsigned long long)s->idle_gaps);
	report(s, want_pid, want_comm);
	return 0;
}
