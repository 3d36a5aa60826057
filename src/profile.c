/* profile: sampling, hotspots and symbols tied together and rendered into the model. */
#include "profile.h"

#include "profile_priv.h"

#include "demangle.h"
#include "events.h"
#include "procfs.h"
#include "untrusted.h"
#include "unwind.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUERY_ROWS 4096 /* rows merged by symbol per refresh */
/* Distinct hotspot keys kept before idle ones fold into their symbol's. */
#define HOT_SOFT_CAP 8192

/* ---- side band: keep symbols and command names current ---- */

static void sb_mmap(const struct record *r, void *arg)
{
	struct profile *p = arg;
	const struct records_mmap *m = &r->mmap;

	if (r->cpumode == RECORDS_CPUMODE_KERNEL)
		return; /* kernel module maps: kallsyms covers them */
	symbols_mmap(p->sym, (pid_t)m->pid, m->addr, m->len, m->pgoff, m->filename,
	             m->mmap2 && !m->has_build_id ? m->maj : 0,
	             m->mmap2 && !m->has_build_id ? m->min : 0,
	             m->mmap2 && !m->has_build_id ? m->ino : 0);
	hotspots_symbols_changed(&p->hot, m->pid); /* it may cover an older mapping */
}

static uint32_t comm_home(pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (PROFILE_COMMS - 1);
}

/* pid's entry, or NULL. */
static struct profile_comm *comm_find(struct profile *p, pid_t pid)
{
	const uint32_t key = (uint32_t)pid + 1;

	if (pid < 0)
		return NULL;
	for (uint32_t i = comm_home(pid);; i = (i + 1) & (PROFILE_COMMS - 1)) {
		if (p->comms[i].pid1 == key)
			return &p->comms[i];
		if (!p->comms[i].pid1)
			return NULL;
	}
}

/* Remove pid's entry (backward shift: the entries after it in its run move
 * back, so that every one stays reachable). */
void profile_comm_forget(struct profile *p, pid_t pid)
{
	const uint32_t mask = PROFILE_COMMS - 1;
	struct profile_comm *c = comm_find(p, pid);
	uint32_t i;

	if (!c)
		return;
	i = (uint32_t)(c - p->comms);
	for (uint32_t j = (i + 1) & mask; p->comms[j].pid1; j = (j + 1) & mask) {
		const uint32_t home = comm_home((pid_t)(p->comms[j].pid1 - 1));

		if (((j - home) & mask) >= ((j - i) & mask)) {
			p->comms[i] = p->comms[j];
			i = j;
		}
	}
	memset(&p->comms[i], 0, sizeof(p->comms[i]));
	p->nr_comms--;
}

static bool exit_pending(const struct profile *p, pid_t pid);

/* The table at 3/4: the entries of processes that are gone, and whose
 * exit is not waiting to be retired, go (their rows are retired, named);
 * when that frees too little, all but those waiting; then all. */
static void comm_sweep(struct profile *p)
{
	for (int pass = 0; pass < 2 && p->nr_comms * 4 >= PROFILE_COMMS * 3u; pass++)
		for (uint32_t i = 0; i < PROFILE_COMMS; i++)
			while (p->comms[i].pid1) {
				const pid_t pid = (pid_t)(p->comms[i].pid1 - 1);

				if (exit_pending(p, pid) ||
				    (!pass && !(kill(pid, 0) && errno == ESRCH)))
					break;
				profile_comm_forget(
				    p, pid); /* slot i holds another entry now, or none */
			}
	if (p->nr_comms * 4 >= PROFILE_COMMS * 3u) {
		memset(p->comms, 0, sizeof(p->comms));
		p->nr_comms = 0;
	}
}

/* pid's entry, made (a new process instance) when it has none; NULL for
 * a pid no process has. */
static struct profile_comm *comm_slot(struct profile *p, pid_t pid)
{
	struct profile_comm *c = pid < 0 ? NULL : comm_find(p, pid);
	uint32_t i;

	if (c || pid < 0)
		return c;
	if ((p->nr_comms + 1) * 4 > PROFILE_COMMS * 3u)
		comm_sweep(p);
	for (i = comm_home(pid); p->comms[i].pid1; i = (i + 1) & (PROFILE_COMMS - 1))
		;
	p->comms[i] = (struct profile_comm){.pid1 = (uint32_t)pid + 1, .serial = ++p->serial_clock};
	p->nr_comms++;
	return &p->comms[i];
}

static void remember_comm(struct profile *p, pid_t pid, const char *comm)
{
	struct profile_comm *c = comm_slot(p, pid);

	if (c)
		util_strlcpy(c->comm, comm, sizeof(c->comm));
}

static void retire_pids(struct profile *p, uint32_t *pids, size_t nr);

static void sb_comm(const struct record *r, void *arg)
{
	struct profile *p = arg;

	/* The samples before an exec came before it (the sampler holds back
	 * those of a process whose exec is queued): they leave the table,
	 * named by the program and the mappings they were taken in. */
	if (r->comm.exec && hotspots_may_have_pid(&p->hot, r->comm.pid)) {
		uint32_t pid = r->comm.pid;

		retire_pids(p, &pid, 1);
	}
	if (r->comm.pid == r->comm.tid)
		remember_comm(p, (pid_t)r->comm.pid, r->comm.comm);
	if (r->comm.exec) {
		unwind_forget(p->unwind, (pid_t)r->comm.pid);
		symbols_exec(p->sym, (pid_t)r->comm.pid);
		hotspots_symbols_changed(&p->hot, r->comm.pid);
	}
}

/* The keys of a process that exited go to the retired table, named as it
 * was: pids (sorted, each once) exited since the last tick. */
static void retire_pids(struct profile *p, uint32_t *pids, size_t nr)
{
	qsort(pids, nr, sizeof(*pids), util_u32_cmp);
	size_t k = 0;
	for (size_t i = 0; i < nr; i++)
		if (!k || pids[k - 1] != pids[i])
			pids[k++] = pids[i];
	hotspots_take_pids(&p->hot, pids, k, profile_retire, p);
}

/* pid exited, and its keys wait for the tick to be retired. */
static bool exit_pending(const struct profile *p, pid_t pid)
{
	if (p->nr_exited > (int)ARRAY_SIZE(p->exited))
		return true; /* not all are listed: any may be */
	for (int i = 0; i < p->nr_exited; i++)
		if (p->exited[i] == (uint32_t)pid)
			return true;
	return false;
}

/* A new process with the pid of one that exited since the last tick: the
 * old one's keys are retired before the new one's samples join them. */
static void retire_now(struct profile *p, uint32_t pid)
{
	const int nr =
	    p->nr_exited < (int)ARRAY_SIZE(p->exited) ? p->nr_exited : (int)ARRAY_SIZE(p->exited);

	for (int i = 0; i < nr; i++) {
		if (p->exited[i] != pid)
			continue;
		retire_pids(p, &pid, 1);
		p->exited[i] = p->exited[nr - 1];
		if (p->nr_exited <= (int)ARRAY_SIZE(p->exited))
			p->nr_exited--;
		return;
	}
}

static void sb_fork(const struct record *r, void *arg)
{
	struct profile *p = arg;

	if (r->task.pid != r->task.ppid) {
		const struct profile_comm *parent = comm_find(p, (pid_t)r->task.ppid);
		char comm[sizeof(parent->comm)] = "";

		retire_now(p, r->task.pid); /* under its old name */
		if (parent && parent->comm[0])
			util_strlcpy(comm, parent->comm, sizeof(comm));
		else /* a parent not named yet: from /proc, while it runs */
			profile_comm_of(p, (pid_t)r->task.ppid, comm, sizeof(comm));
		if (!strcmp(comm, "?"))
			comm[0] = '\0';
		profile_comm_forget(p, (pid_t)r->task.pid); /* a recycled pid: a new process */
		/* A child has its parent's name until it execs (a COMM record);
		 * else it comes from /proc. */
		if (comm[0])
			remember_comm(p, (pid_t)r->task.pid, comm);
		/* The child runs its parent's code until it execs: the parent's
		 * mappings, read now while it runs if no record gave them. */
		uint64_t gen;
		symbols_maps(p->sym, (pid_t)r->task.ppid, NULL, 0, &gen);
		symbols_fork(p->sym, (pid_t)r->task.ppid, (pid_t)r->task.pid);
		hotspots_symbols_changed(&p->hot, r->task.pid); /* perhaps a recycled pid */
	}
}

static void sb_exit(const struct record *r, void *arg)
{
	struct profile *p = arg;

	if (r->task.pid == r->task.tid) {
		unwind_forget(p->unwind, (pid_t)r->task.pid);
		symbols_exit(p->sym, (pid_t)r->task.pid);
		/* Its keys' symbols stay valid (a recycled pid comes with a
		 * FORK); those not known yet are asked before the reap. */
		if (p->nr_exited < (int)ARRAY_SIZE(p->exited))
			p->exited[p->nr_exited] = r->task.pid;
		if (p->nr_exited <= (int)ARRAY_SIZE(p->exited))
			p->nr_exited++;
	}
}

/* --call-graph dwarf: one sample, in time order with the side band. Its
 * chain as the stacks table takes it: the kernel part the kernel wrote
 * (leaf first, behind PERF_CONTEXT_KERNEL), then PERF_CONTEXT_USER and the
 * user frames unwound from its registers and stack copy. */
static void dwarf_sample(const struct record *r, void *arg)
{
	struct profile *p = arg;
	const struct records_sample *s = &r->sample;
	uint64_t chain[STACKS_MAX_FRAMES];
	uint32_t n = 0;
	int k;

	for (uint64_t i = 0; i < s->nr_ips && n < STACKS_MAX_FRAMES - 2; i++) {
		if (s->ips[i] == PERF_CONTEXT_USER)
			break; /* no user part is asked for: never expected */
		chain[n++] = s->ips[i];
	}
	const struct unwind_sample smp = {
	    .pid = (pid_t)r->id.pid,
	    .tid = (pid_t)r->id.tid,
	    .abi = s->regs_abi,
	    .mask = UNWIND_REGS_MASK,
	    .regs = s->regs,
	    .nr_regs = s->nr_regs,
	    .stack = s->stack,
	    .stack_size = s->stack_dyn_size,
	};
	k = unwind_sample(p->unwind, &smp, chain + n + 1, (int)(STACKS_MAX_FRAMES - n - 1));
	if (k > 0) {
		chain[n] = PERF_CONTEXT_USER;
		n += 1 + (uint32_t)k;
	} else if (!n && s->ip) {
		/* neither part: the sampled ip alone, in its own mode */
		chain[n++] =
		    r->cpumode == RECORDS_CPUMODE_KERNEL ? PERF_CONTEXT_KERNEL : PERF_CONTEXT_USER;
		chain[n++] = s->ip;
	}
	if (n)
		stacks_add(&p->stacks, r->id.pid, chain, n);
}

/* Every process running as sampling starts: its mappings, and its name
 * now, while it runs (as perf synthesizes COMM records): one that exits
 * before its samples are read keeps it, where a read of /proc then would
 * find nothing. */
static void scan_all(struct profile *p)
{
	struct procfs_ids pids = {0};
	int n = procfs_pids(p->proc, &pids);
	char comm[sizeof(p->comms[0].comm)];

	for (int i = 0; i < n; i++) {
		symbols_process_scan(p->sym, pids.id[i]);
		profile_comm_of(p, pids.id[i], comm, sizeof(comm));
	}
	procfs_ids_free(&pids);
}

int profile_open(struct profile *p, const struct profile_config *cfg, const struct profile_where *w,
                 char *err, size_t errlen)
{
	struct event_desc ev;
	int ret;

	if (!w->zeroed)
		memset(p, 0, sizeof(*p));
	p->cfg = cfg;
	p->proc = w->proc;
	err[0] = '\0';
	if (!cfg->enabled || w->nr_targets == 0)
		return 0;
	struct sampler_config sc = {
	    .targets = w->targets,
	    .nr_targets = w->nr_targets,
	    .inherit = w->inherit,
	    .cpus = w->cpus,
	    .nr_cpus = w->nr_cpus,
	    .enable_on_exec = w->enable_on_exec,
	    .user_only = w->user_only,
	    .freq = cfg->freq,
	    .period = cfg->period,
	    .mmap_pages = cfg->mmap_pages                      ? cfg->mmap_pages
	                  : cfg->callchain && cfg->dwarf_stack ? PROFILE_DWARF_PAGES
	                                                       : 0,
	    .probe = w->probe,
	    .hot = &p->hot,
	    .stacks = cfg->callchain && !cfg->dwarf_stack ? &p->stacks : NULL,
	    .sb = {sb_mmap, sb_comm, sb_fork, sb_exit, p},
	};
	stacks_init(&p->stacks, 0);
	if (cfg->event) {
		ret = events_resolve(NULL, cfg->event, &ev, err, errlen);
		if (ret)
			return ret;
		sc.event = &ev.attr;
		sc.event_name = cfg->event;
	}
	p->rows = calloc(QUERY_ROWS, sizeof(*p->rows));
	p->sym = symbols_new();
	if (hotkeys_parse(cfg->hot_keys[0] ? cfg->hot_keys : HOTKEYS_DEFAULT, &p->keys, err,
	                  errlen)) {
		profile_close(p);
		return -EINVAL;
	}
	if (!p->rows || !p->sym ||
	    hotspots_init(&p->hot, hotkeys_has(&p->keys, HOTKEYS_TID) ? HOTSPOTS_BY_THREAD : 0, 0,
	                  HOT_SOFT_CAP)) {
		profile_close(p);
		snprintf(err, errlen, "out of memory for the hotspot tables");
		return -ENOMEM;
	}
	p->hot.drop = profile_retire; /* dropped for room: kept, named */
	p->hot.drop_arg = p;
	p->cap_rows = QUERY_ROWS;
	if (cfg->callchain && cfg->dwarf_stack) {
		p->unwind = unwind_new(p->sym);
		if (!p->unwind) {
			profile_close(p);
			snprintf(err, errlen, "out of memory for the unwinder");
			return -ENOMEM;
		}
		sc.dwarf =
		    (struct sampler_dwarf){cfg->dwarf_stack, UNWIND_REGS_MASK, dwarf_sample, p};
	}
	ret = sampler_open(&p->samp, &sc, err, errlen);
	if (ret) {
		profile_close(p);
		return ret;
	}
	p->scan_all = w->nr_pids == 0; /* the whole machine (or cgroups) */
	for (int i = 0; i < w->nr_pids; i++)
		symbols_process_scan(p->sym, w->pids[i]);
	p->open = true;
	return 0;
}

void profile_prepare(struct profile *p)
{
	if (!p->open || p->prepared)
		return;
	p->prepared = true;
	symbols_load_kernel(p->sym);
	if (p->scan_all)
		scan_all(p);
}

int profile_enable(struct profile *p)
{
	return p->open ? sampler_enable(&p->samp) : 0;
}

int profile_disable(struct profile *p)
{
	return p->open ? sampler_disable(&p->samp) : 0;
}

void profile_for_each_fd(struct profile *p, void (*fn)(int fd, void *arg), void *arg)
{
	if (p->open)
		sampler_for_each_fd(&p->samp, fn, arg);
}

void profile_drain(struct profile *p, int fd)
{
	if (p->open)
		sampler_drain(&p->samp, fd);
}

/* A process's name: COMM records keep the table current (exec and
 * prctl renames both send one); /proc is read only for a process no record
 * named yet, such as one running before pfmtop started. */
void profile_comm_of(struct profile *p, pid_t pid, char *buf, size_t len)
{
	const struct profile_comm *c = comm_find(p, pid);
	struct procfs_task t;

	if (!c || !c->comm[0]) {
		/* Gone (or never readable): "?" until a COMM record or a FORK
		 * of a new process with its pid, not a read of /proc a tick. */
		remember_comm(p, pid, procfs_task_stat(p->proc, pid, 0, &t) ? "?" : t.comm);
		c = comm_find(p, pid);
	}
	util_strlcpy(buf, c ? c->comm : "?", len);
}

/* True the first time pid is asked about in this tick: its mappings are
 * read again from /proc at most once a tick, however many of its rows miss. */
static bool first_scan_this_tick(struct profile *p, pid_t pid)
{
	struct profile_scan *sc = &p->scans[(uint32_t)pid % ARRAY_SIZE(p->scans)];

	if (sc->pid == pid && sc->tick == p->ticks)
		return false;
	sc->pid = pid;
	sc->tick = p->ticks;
	return true;
}

void profile_resolve(struct profile *p, const struct hotspots_row *row, struct symbols_result *r)
{
	symbols_resolve(p->sym, (pid_t)row->pid, row->ip, row->kernel, r);
	if (r->status == SYMBOLS_UNKNOWN && !row->kernel &&
	    first_scan_this_tick(p, (pid_t)row->pid) &&
	    symbols_process_scan(p->sym, (pid_t)row->pid) == 0)
		symbols_resolve(p->sym, (pid_t)row->pid, row->ip, row->kernel, r);
}

/* A row's symbol for the hotspot table's cache: its start address, known
 * without resolving again when another key of the same address (another
 * CPU, another process in the kernel) or a call chain's frame found it.
 * Kernel symbols are read once, so a kernel miss stays one; a user miss may
 * not (mappings not read yet, a JIT's map growing). */
static enum hotspots_sym symbol_of(const struct hotspots_row *row, uint64_t *start, void *arg)
{
	return profile_frame_symbol(arg, row, start);
}

/* Merge key: the symbol's start address (unique within a process), cached
 * per hotspot key. */
uint64_t profile_symbol_key(const struct hotspots_row *row, void *arg)
{
	struct profile *p = arg;
	uint64_t start;

	if (hotspots_symbol(&p->hot, row, symbol_of, p, &start) != HOTSPOTS_SYM_FOUND)
		return 0;
	return start | 1; /* never 0 */
}

static void health_figures(const struct sampler_health *h, struct model_health_figures *f)
{
	f->samples = h->samples;
	f->lost_records = h->lost_records;
	f->lost_samples = h->lost_samples;
	f->lost_samples_hw = h->lost_samples_hw;
	f->throttles = h->throttles;
	f->corrupt = h->corrupt;
	f->throttled = h->throttled;
}

static void fill_health(struct profile *p, struct model *m, bool accumulated)
{
	struct model_sampling *ms = &m->sampling;
	struct sampler_health h;

	ms->enabled = true;
	util_strlcpy(ms->event, p->samp.event, sizeof(ms->event));
	util_strlcpy(ms->why, p->samp.fallback ? p->samp.why : "", sizeof(ms->why));
	ms->freq = p->samp.attr.freq ? p->samp.attr.sample_freq : 0;
	ms->period = p->samp.attr.freq ? 0 : p->samp.attr.sample_period;
	ms->accumulated = accumulated;
	ms->hide_kernel = p->cfg->hide_kernel;
	ms->hide_user = p->cfg->hide_user;
	ms->filter_pid = p->cfg->filter ? p->cfg->filter_pid : -1;
	ms->filter_cpu = p->cfg->filter ? p->cfg->filter_cpu : -1;
	sampler_health(&p->samp, -1, SAMPLER_INTERVAL, &h);
	health_figures(&h, &ms->interval);
	sampler_health(&p->samp, -1, SAMPLER_TOTAL, &h);
	health_figures(&h, &ms->total);
	ms->max_rate = p->samp.max_rate_now;
	ms->max_rate_start = p->samp.max_rate_start;
	ms->max_rate_lowered = p->samp.max_rate_lowered;
	ms->nr_rings = 0;
	ms->throttled_now = 0;
	for (int i = 0; i < p->samp.nr_rings; i++) {
		struct model_ring *r = model_add_ring(m);
		if (!r)
			break;
		r->cpu = p->samp.rings[i].cpu;
		r->pid = p->samp.rings[i].pid;
		sampler_health(&p->samp, i, SAMPLER_INTERVAL, &h);
		health_figures(&h, &r->interval);
		sampler_health(&p->samp, i, SAMPLER_TOTAL, &h);
		health_figures(&h, &r->total);
		r->throttled_now = h.throttled;
		ms->throttled_now += h.throttled;
	}
}

/* Processes whose mappings the hotspot table's rows still need for their
 * names, gathered when the first exited one is due to be forgotten. */
struct still_named_pids {
	struct profile *p;
	uint32_t *pids;
	size_t nr;
	bool gathered;
};

static bool still_named(pid_t pid, void *arg)
{
	struct still_named_pids *k = arg;
	const uint32_t key = (uint32_t)pid;

	if (!k->gathered) {
		k->gathered = true;
		k->pids = malloc((k->p->hot.used + 1) * sizeof(*k->pids));
		if (!k->pids)
			return false; /* forget: names are lost, memory is not */
		k->nr = hotspots_user_pids(&k->p->hot, k->pids, k->p->hot.used + 1);
		/* -g: the chains of processes that exited are named at the
		 * end (folded stacks, call trees) from their mappings, kept
		 * while their retired rows keep the process. */
		if (k->p->cfg && k->p->cfg->callchain) {
			const size_t more = profile_retired_count(k->p);
			uint32_t *all = realloc(k->pids, (k->nr + more + 1) * sizeof(*all));

			if (all) {
				k->pids = all;
				k->nr += profile_retired_pids(k->p, all + k->nr, more);
				qsort(all, k->nr, sizeof(*all), util_u32_cmp);
			}
		}
	}
	return k->nr && bsearch(&key, k->pids, k->nr, sizeof(key), util_u32_cmp);
}

void profile_warm(struct profile *p)
{
	struct hotspots_filter f = HOTSPOTS_FILTER_ALL;
	struct hotspots_totals tot;

	profile_prepare(p);
	if (!p->open)
		return;
	sampler_drain(&p->samp, -1);
	/* resolves every key's symbol (to fold them) */
	(void)hotspots_top_all(&p->hot, HOTSPOTS_INTERVAL, &f, symbol_of, p, &p->rows, &p->cap_rows,
	                       0, &tot);
}

/* Retire the keys of the processes that exited since the last tick; when
 * more exited than the list holds, of every process in the table that is
 * gone. */
static void retire_exited(struct profile *p)
{
	if (p->nr_exited <= (int)ARRAY_SIZE(p->exited)) {
		retire_pids(p, p->exited, (size_t)p->nr_exited);
	} else {
		uint32_t *pids = malloc((p->hot.used + 1) * sizeof(*pids));
		size_t n = pids ? hotspots_user_pids(&p->hot, pids, p->hot.used + 1) : 0, k = 0;

		for (size_t i = 0; i < n; i++)
			if (pids[i] && kill((pid_t)pids[i], 0) && errno == ESRCH)
				pids[k++] = pids[i];
		retire_pids(p, pids, k);
		free(pids);
	}
	p->nr_exited = 0;
}

uint32_t profile_serial_of(struct profile *p, pid_t pid)
{
	char comm[16];
	const struct profile_comm *c;

	profile_comm_of(p, pid, comm, sizeof(comm));
	c = comm_find(p, pid);
	return c ? c->serial : 0;
}

/* The rows ranked: those of "other" taken out of rows[0..*n) into
 * m->sampling.hot_other with the figures no row holds (the table's
 * overflow, when nothing is filtered out), the totals behind the shares
 * set, and each share recomputed as the row's weight over them. */
static void rank_rows(struct profile *p, struct model *m, int *n, const struct hotspots_filter *f,
                      const struct hotspots_sums *all)
{
	struct model_sampling *s = &m->sampling;
	uint64_t weight = 0, samples = 0;
	int k = 0;

	memset(&s->hot_other, 0, sizeof(s->hot_other));
	for (int i = 0; i < *n; i++) {
		struct hotspots_row *r = &p->rows[i];

		if (profile_row_is_other(r)) {
			s->hot_other.weight += r->weight;
			s->hot_other.samples += r->samples;
			continue;
		}
		weight += r->weight;
		samples += r->samples;
		p->rows[k++] = *r;
	}
	*n = k;
	if (f->cpu < 0 && f->pid < 0 && f->tid < 0 && !p->cfg->hide_kernel && !p->cfg->hide_user) {
		/* figures that found no key: every row's and none's */
		s->hot_other.weight += all->overflow_weight;
		s->hot_other.samples += all->overflow_samples;
		if (s->accumulated) {
			s->hot_other.weight += p->retired_lost_weight;
			s->hot_other.samples += p->retired_lost_samples;
		}
	}
	s->hot_other.folded = s->hot_other.samples;
	s->total_weight = weight + s->hot_other.weight;
	s->total_samples = samples + s->hot_other.samples;
	for (int i = 0; i < k; i++)
		p->rows[i].share = s->total_weight
		                       ? 100.0 * (double)p->rows[i].weight / (double)s->total_weight
		                       : 0.0;
}

/* "other": what the rows shown leave of the total (the rows ranked below
 * the cut, and what folded for room). */
static void hot_other(struct model *m)
{
	struct model_sampling *s = &m->sampling;
	uint64_t weight = 0, samples = 0;

	for (int i = 0; i < m->nr_hot; i++) {
		weight += m->hot[i].weight;
		samples += m->hot[i].samples;
	}
	s->hot_other.weight = s->total_weight > weight ? s->total_weight - weight : 0;
	s->hot_other.samples = s->total_samples > samples ? s->total_samples - samples : 0;
	s->hot_other.rows = m->hot_total > m->nr_hot ? m->hot_total - m->nr_hot : 0;
	s->hot_other.share =
	    s->total_weight ? 100.0 * (double)s->hot_other.weight / (double)s->total_weight : 0.0;
}

void profile_tick(struct profile *p, struct model *m, bool totals)
{
	bool accumulated = totals || (p->cfg && p->cfg->accumulated);
	enum hotspots_mode mode = accumulated ? HOTSPOTS_TOTAL : HOTSPOTS_INTERVAL;
	struct hotspots_filter f = HOTSPOTS_FILTER_ALL;
	struct hotspots_totals tot;
	int n, kept = 0;

	m->nr_hot = 0;
	m->hot_total = 0;
	m->sampling.nr_rings = 0;
	p->ticks++;
	profile_prepare(p);
	if (!p->open) {
		m->sampling.enabled = false;
		return;
	}
	if (m->final)
		sampler_tick_final(&p->samp);
	else
		sampler_tick(&p->samp);
	fill_health(p, m, accumulated);
	/* The grouping may change between ticks (the viewer's key); a list
	 * that does not parse (it was checked when given) is the default. */
	char err[160];
	if (hotkeys_parse(p->cfg->hot_keys[0] ? p->cfg->hot_keys : HOTKEYS_DEFAULT, &p->keys, err,
	                  sizeof(err)))
		hotkeys_parse(HOTKEYS_DEFAULT, &p->keys, err, sizeof(err));
	hotkeys_format(&p->keys, m->sampling.hot_keys, sizeof(m->sampling.hot_keys));
	if (p->cfg->filter) {
		f.pid = p->cfg->filter_pid;
		f.cpu = p->cfg->filter_cpu;
	}
	f.by_cpu = hotkeys_has(&p->keys, HOTKEYS_CPU);
	/* Every row (a group's weight must be whole, and rows below any cut
	 * may belong to a group above it), folded by symbol as they are read,
	 * with room for the retired ones. */
	n = hotspots_top_all(&p->hot, mode, &f, symbol_of, p, &p->rows, &p->cap_rows,
	                     accumulated ? (int)profile_retired_count(p) : 0, &tot);
	if (n >= 0 && accumulated) /* the keys that left the table, named */
		n += profile_retired_rows(p, &f, p->rows + n, p->cap_rows - n);
	for (int i = 0; i < n; i++)
		if (!(p->rows[i].kernel ? p->cfg->hide_kernel : p->cfg->hide_user))
			p->rows[kept++] = p->rows[i];
	n = profile_group_rows(p, p->rows, kept, f.by_cpu);
	rank_rows(p, m, &n, &f, &tot.all);
	m->hot_total = n;
	m->nr_paths = m->nr_frames = 0;
	m->sampling.callchain = false;
	/* -g: children mode ranks the rows and the chains' other functions */
	if (!p->cfg->callchain || !profile_call_trees(p, p->rows, n, m, accumulated))
		for (int i = 0; i < n && i < p->cfg->top; i++) {
			struct model_hotspot *h = model_add_hotspot(m);
			if (!h)
				break;
			profile_fill_row(p, &p->rows[i], h);
		}
	hot_other(m);
	stacks_interval_reset(&p->stacks);
	/* Before the exited processes' symbols go: their keys, named. */
	if (p->nr_exited)
		retire_exited(p);
	profile_annotate_tick(p, m, n);
	hotspots_trim(&p->hot, symbol_of, p);
	hotspots_interval_reset(&p->hot);
	struct still_named_pids named_pids = {.p = p};
	symbols_reap(p->sym, still_named, &named_pids);
	free(named_pids.pids);
}

void profile_close(struct profile *p)
{
	if (p->open)
		sampler_close(&p->samp);
	profile_annotate_free(p);
	hotspots_fini(&p->hot);
	stacks_fini(&p->stacks);
	unwind_free(p->unwind);
	profile_hot_free(p);
	profile_retired_free(p);
	symbols_free(p->sym);
	free(p->rows);
	memset(p, 0, sizeof(*p));
}

/* ---- folded call chains ---- */

struct fold_line {
	char *text; /* "comm;root;...;leaf" */
	uint64_t samples;
};

struct folded {
	struct profile *p;
	struct fold_line *v;
	int nr, cap;
	int err;
};

/* A frame's name for a folded line: safe text, and no ';' (the separator). */
static void frame_name(FILE *f, const char *name)
{
	char clean[sizeof(((struct model_hotspot *)0)->symbol)];

	untrusted_text(clean, sizeof(clean), name);
	for (char *c = clean; *c; c++)
		if (*c == ';')
			*c = ':';
	fputs(clean, f);
}

static void fold_one(uint32_t pid, const uint64_t *ips, uint32_t nr, uint64_t samples, void *arg)
{
	struct folded *fo = arg;
	struct profile *p = fo->p;
	char comm[32], name[sizeof(((struct model_hotspot *)0)->symbol)];
	size_t len = 0;
	char *line = NULL;
	FILE *f;

	if (fo->err || util_grow(&fo->v, fo->nr, &fo->cap, sizeof(*fo->v), 256)) {
		fo->err = ENOMEM;
		return;
	}
	f = open_memstream(&line, &len);
	if (!f) {
		fo->err = ENOMEM;
		return;
	}
	/* Each part of the chain begins (at its leaf end) with a PERF_CONTEXT_*
	 * marker: which frames are kernel code, in one pass from the leaf. */
	bool in_kernel[STACKS_MAX_FRAMES], kernel = false;
	for (uint32_t i = 0; i < nr; i++) {
		if (ips[i] >= PERF_CONTEXT_MAX)
			kernel =
			    ips[i] == PERF_CONTEXT_KERNEL || ips[i] == PERF_CONTEXT_GUEST_KERNEL;
		in_kernel[i] = kernel;
	}
	profile_comm_of(p, (pid_t)pid, comm, sizeof(comm));
	frame_name(f, pid ? comm : "[idle]");
	/* The kernel writes the leaf first: read from the root. */
	for (uint32_t i = nr; i-- > 0;) {
		struct symbols_result r;

		if (ips[i] >= PERF_CONTEXT_MAX)
			continue;
		kernel = in_kernel[i];
		symbols_resolve(p->sym, (pid_t)pid, ips[i], kernel, &r);
		fputc(';', f);
		frame_name(f, p->cfg->raw_names || kernel ? r.name
		                                          : demangle(r.name, name, sizeof(name)));
		if (kernel)
			fputs("_[k]", f);
	}
	if (fclose(f)) {
		free(line);
		fo->err = ENOMEM;
		return;
	}
	fo->v[fo->nr++] = (struct fold_line){line, samples};
}

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct fold_line *)a)->text, ((const struct fold_line *)b)->text);
}

char *profile_folded(struct profile *p, size_t *len)
{
	struct folded fo = {.p = p};
	char *out = NULL;
	FILE *f = NULL;

	if (!p->open || !p->cfg->callchain) {
		errno = EINVAL;
		return NULL;
	}
	stacks_for_each(&p->stacks, fold_one, &fo);
	if (!fo.err)
		f = open_memstream(&out, len);
	if (f) {
		/* Chains of different addresses that name the same functions: one line. */
		qsort(fo.v, (size_t)fo.nr, sizeof(*fo.v), by_text);
		for (int i = 0; i < fo.nr;) {
			uint64_t sum = 0;
			int j = i;

			for (; j < fo.nr && !strcmp(fo.v[j].text, fo.v[i].text); j++)
				sum += fo.v[j].samples;
			fprintf(f, "%s %llu\n", fo.v[i].text, (unsigned long long)sum);
			i = j;
		}
		if (fclose(f)) {
			free(out);
			out = NULL;
		}
	}
	for (int i = 0; i < fo.nr; i++)
		free(fo.v[i].text);
	free(fo.v);
	if (!out)
		errno = ENOMEM;
	return out;
}
