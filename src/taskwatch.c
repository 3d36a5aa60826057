/* taskwatch: new, exec'ing and exiting tasks, promptly, from a side-band dummy event per CPU. */
#include "taskwatch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TASKWATCH_PAGES       8 /* data pages per CPU: ~1300 FORK records */
#define TASKWATCH_SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

static void dispatch(const struct record *r, void *arg);

int taskwatch_open(struct taskwatch *w, const int *cpus, int nr_cpus,
                   const struct taskwatch_ops *ops)
{
	struct perf_event_attr attr = {
	    .size = sizeof(attr),
	    .type = PERF_TYPE_SOFTWARE,
	    .config = PERF_COUNT_SW_DUMMY,
	    .sample_type = TASKWATCH_SAMPLE_TYPE,
	    .sample_id_all = 1,
	    .task = 1,
	    .comm = 1,
	    .comm_exec = 1,
	    /* Wake on every record, so a new task is counted at once.
	     * wakeup_events counts samples only; a 1-byte watermark counts
	     * side-band records too. */
	    .watermark = 1,
	    .wakeup_watermark = 1,
	    .exclude_kernel = 1,
	    .exclude_hv = 1,
	};
	int ret;

	memset(w, 0, sizeof(*w));
	w->ops = *ops;
	sbqueue_init(&w->sbq, dispatch, w);
	ret = records_format_init(&w->fmt, TASKWATCH_SAMPLE_TYPE, 0, true);
	if (ret < 0)
		return ret;
	w->cpus = calloc((size_t)nr_cpus + 1, sizeof(*w->cpus));
	if (!w->cpus)
		return -ENOMEM;
	for (int i = 0; i < nr_cpus; i++) {
		ret = ring_open_cpu(&attr, cpus[i], TASKWATCH_PAGES, &w->cpus[i].fd,
		                    &w->cpus[i].ring);
		if (ret) {
			taskwatch_close(w);
			return ret;
		}
		w->nr++;
	}
	return 0;
}

void taskwatch_for_each_fd(const struct taskwatch *w, void (*fn)(int fd, void *arg), void *arg)
{
	for (int i = 0; i < w->nr; i++)
		fn(w->cpus[i].fd, arg);
}

/* The ops, as the queue hands records over in time order. */
static void dispatch(const struct record *r, void *arg)
{
	struct taskwatch *w = arg;

	switch (r->type) {
	case PERF_RECORD_FORK:
		if (w->ops.fork)
			w->ops.fork((pid_t)r->task.pid, (pid_t)r->task.tid, (pid_t)r->task.ppid,
			            w->ops.arg);
		break;
	case PERF_RECORD_EXIT:
		if (w->ops.exit)
			w->ops.exit((pid_t)r->task.pid, (pid_t)r->task.tid, w->ops.arg);
		break;
	case PERF_RECORD_COMM:
		if (r->comm.exec && w->ops.exec)
			w->ops.exec((pid_t)r->comm.pid, (pid_t)r->comm.tid, r->comm.comm,
			            w->ops.arg);
		break;
	}
}

static void on_record(const struct perf_event_header *h, void *arg)
{
	struct taskwatch *w = arg;
	struct record r;

	w->records++;
	if (records_decode(&w->fmt, h, &r) != 0)
		return;
	sbqueue_seen(&w->sbq, &r);
	switch (r.type) {
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_COMM:
		sbqueue_push(&w->sbq, &r);
		break;
	case PERF_RECORD_LOST:
		w->lost++;
		break;
	}
}

static int drain_all(void *ctx)
{
	struct taskwatch *w = ctx;
	int n = 0;

	for (int i = 0; i < w->nr; i++)
		n += ring_drain(&w->cpus[i].ring, on_record, w);
	return n;
}

/* Any wake-up drains every ring: a task that forks on one CPU and exits
 * on another must not have its EXIT applied before its FORK. */
int taskwatch_drain(struct taskwatch *w, int fd)
{
	return sbqueue_round(&w->sbq, drain_all, w);
}

void taskwatch_close(struct taskwatch *w)
{
	for (int i = 0; i < w->nr; i++)
		ring_close_cpu(&w->cpus[i].fd, &w->cpus[i].ring);
	free(w->cpus);
	sbqueue_free(&w->sbq);
	memset(w, 0, sizeof(*w));
}
