/* counters: counting groups on one target (a CPU or a task), read and scaled. */
#include "counters.h"

#include "sys.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

struct counter_value counters_scale(uint64_t dvalue, uint64_t denabled, uint64_t drunning)
{
	struct counter_value v = {.value = NAN, .coverage = 0, .state = COUNTER_NOT_COUNTED};

	if (denabled == 0) {
		/* Never enabled in the interval: a task target that did not run
		 * (its time only passes while it runs), or one waiting for exec.
		 * Nothing happened, which is a count of zero, not a gap. */
		v.value = (double)dvalue;
		v.coverage = 1.0;
		v.state = COUNTER_OK;
		return v;
	}
	if (drunning == 0)
		return v;
	if (drunning >= denabled) {
		v.value = (double)dvalue;
		v.coverage = 1.0;
		v.state = COUNTER_OK;
	} else {
		v.coverage = (double)drunning / (double)denabled;
		v.value = (double)dvalue * (double)denabled / (double)drunning;
		v.state = COUNTER_MULTIPLEXED;
	}
	return v;
}

size_t counters_read_size(uint64_t read_format, int nr)
{
	size_t times = !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
	               !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t per = 1 + !!(read_format & PERF_FORMAT_ID) + !!(read_format & PERF_FORMAT_LOST);

	if (read_format & PERF_FORMAT_GROUP)
		return sizeof(uint64_t) * (1 + times + per * (size_t)nr);
	return sizeof(uint64_t) * (times + per);
}

int counters_parse_read(const void *buf, size_t len, uint64_t read_format,
                        struct counters_read *out)
{
	const uint64_t *w = buf;
	size_t n = len / sizeof(uint64_t), k = 0;
	bool has_id = read_format & PERF_FORMAT_ID, has_lost = read_format & PERF_FORMAT_LOST;

	memset(out, 0, offsetof(struct counters_read, v));
	if (len % sizeof(uint64_t))
		return -EINVAL;
	if (read_format & PERF_FORMAT_GROUP) {
		if (n < 1)
			return -EINVAL;
		out->nr = w[k++];
		if (out->nr > 64 || len != counters_read_size(read_format, (int)out->nr))
			return -EINVAL;
	} else {
		if (len != counters_read_size(read_format, 1))
			return -EINVAL;
		out->nr = 1;
		out->v[0].value = w[k++];
	}
	if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		out->enabled = w[k++];
	if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		out->running = w[k++];
	if (!(read_format & PERF_FORMAT_GROUP)) {
		if (has_id)
			out->v[0].id = w[k++];
		return 0;
	}
	for (uint64_t i = 0; i < out->nr; i++) {
		out->v[i].value = w[k++];
		if (has_id)
			out->v[i].id = w[k++];
		if (has_lost)
			k++;
	}
	return 0;
}

static void close_all(struct counter_set *s)
{
	/* Members before leaders, so a leader's close never strands a member. */
	for (int i = s->nr - 1; i >= 0; i--) {
		if (s->c[i].fd >= 0) {
			sys->close(s->c[i].fd);
			s->c[i].fd = -1;
		}
	}
	s->nr_open = 0;
}

static int open_set(struct counter_set *s, const struct counters_config *cfg, pid_t pid, int cpu,
                    unsigned long flags)
{
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->cpu = cpu;
	s->cfg = cfg;
	s->nr = cfg->nr;
	s->c = calloc((size_t)cfg->nr, sizeof(*s->c));
	if (!s->c)
		return -ENOMEM;
	/* Every fd -1 first: a failure part-way closes only what was opened. */
	for (int i = 0; i < cfg->nr; i++)
		s->c[i].fd = -1;
	for (int i = 0; i < cfg->nr; i++) {
		struct perf_event_attr attr = cfg->ev[i].attr;
		struct counter *c = &s->c[i];
		int fd, leader_fd = -1;

		/* A group's members need not be adjacent: its leader is the
		 * first of them that opened. */
		for (int j = 0; j < i && leader_fd < 0; j++)
			if (cfg->ev[j].group == cfg->ev[i].group && s->c[j].fd >= 0)
				leader_fd = s->c[j].fd;
		if (cfg->ev[i].skip_err) {
			c->err = cfg->ev[i].skip_err;
			continue;
		}
		attr.size = sizeof(attr);
		attr.read_format = COUNTERS_READ_FORMAT;
		attr.inherit = cfg->inherit;
		attr.disabled = leader_fd < 0 && !cfg->enabled;
		attr.pinned = attr.pinned && leader_fd < 0; /* :D pins a group by its leader */
		attr.enable_on_exec = leader_fd < 0 && cfg->enable_on_exec;
		fd = sys->perf_event_open(&attr, pid, cpu, leader_fd, PERF_FLAG_FD_CLOEXEC | flags);
		if (fd < 0) {
			int err = errno;
			if (err == EMFILE || err == ENFILE || err == ESRCH) {
				close_all(s);
				return -err;
			}
			c->err = err;
			continue;
		}
		c->fd = fd;
		s->nr_open++;
		if (sys->ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&c->id) < 0) {
			int err = errno;
			close_all(s);
			return -err;
		}
		if (leader_fd < 0)
			leader_fd = fd;
	}
	return 0;
}

int counters_open(struct counter_set *s, const struct counters_config *cfg, pid_t pid, int cpu)
{
	return open_set(s, cfg, pid, cpu, 0);
}

int counters_open_cgroup(struct counter_set *s, const struct counters_config *cfg, int cgroup_fd,
                         int cpu)
{
	/* Inherit and enable_on_exec mean nothing for a cgroup. */
	struct counters_config c = *cfg;
	int ret;

	c.inherit = c.enable_on_exec = false;
	ret = open_set(s, &c, cgroup_fd, cpu, PERF_FLAG_PID_CGROUP);
	s->cfg = cfg;
	return ret;
}

int counters_open_fed(struct counter_set *s, const struct counters_config *cfg, pid_t pid,
                      const bool *fed, int err)
{
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->cpu = -1;
	s->cfg = cfg;
	s->nr = cfg->nr;
	s->c = calloc((size_t)cfg->nr + 1, sizeof(*s->c));
	if (!s->c)
		return -ENOMEM;
	for (int i = 0; i < cfg->nr; i++) {
		s->c[i].fd = -1;
		s->c[i].fed = fed[i];
		s->c[i].err = fed[i] ? 0 : err;
	}
	return 0;
}

void counters_feed(struct counter_set *s, int i, const struct counter_reading *r)
{
	s->c[i].prev = s->c[i].cur;
	s->c[i].cur = *r;
}

/* Index of the open leader of the group that event i belongs to, or -1. */
static int leader_of(const struct counter_set *s, int i)
{
	int g = s->cfg->ev[i].group;

	for (int j = 0; j < s->nr; j++)
		if (s->cfg->ev[j].group == g && s->c[j].fd >= 0)
			return j;
	return -1;
}

static bool is_leader(const struct counter_set *s, int i)
{
	return s->c[i].fd >= 0 && leader_of(s, i) == i;
}

int counters_leader_fd(const struct counter_set *s, int i)
{
	int l = leader_of(s, i);

	return l < 0 ? -1 : s->c[l].fd;
}

int counters_enable(struct counter_set *s)
{
	if (s->cfg->enable_on_exec)
		return 0;
	for (int i = 0; i < s->nr; i++)
		if (is_leader(s, i) && sys->ioctl(s->c[i].fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
			return -errno;
	return 0;
}

int counters_disable(struct counter_set *s)
{
	for (int i = 0; i < s->nr; i++)
		if (is_leader(s, i) && sys->ioctl(s->c[i].fd, PERF_EVENT_IOC_DISABLE, 0) < 0)
			return -errno;
	return 0;
}

static int read_group(struct counter_set *s, int leader)
{
	uint64_t buf[3 + 2 * 64];
	struct counters_read r;
	int g = s->cfg->ev[leader].group, nr = 0;
	ssize_t n;

	for (int j = leader; j < s->nr; j++)
		nr += s->cfg->ev[j].group == g && s->c[j].fd >= 0;
	n = sys->read(s->c[leader].fd, buf, counters_read_size(COUNTERS_READ_FORMAT, nr));
	if (n < 0)
		return -errno;
	for (int j = leader; j < s->nr; j++) {
		if (s->cfg->ev[j].group != g)
			continue;
		s->c[j].prev = s->c[j].cur;
		s->c[j].error = n == 0;
	}
	if (n == 0)
		return 0; /* a pinned group that could not be scheduled: a state, not EOF */
	if (counters_parse_read(buf, (size_t)n, COUNTERS_READ_FORMAT, &r) < 0)
		return -EIO;
	for (uint64_t k = 0; k < r.nr; k++) {
		for (int j = leader; j < s->nr; j++) {
			if (s->cfg->ev[j].group == g && s->c[j].fd >= 0 &&
			    s->c[j].id == r.v[k].id) {
				s->c[j].cur.value = r.v[k].value;
				s->c[j].cur.enabled = r.enabled;
				s->c[j].cur.running = r.running;
				break;
			}
		}
	}
	return 0;
}

int counters_read(struct counter_set *s)
{
	int ret = 0;

	for (int i = 0; i < s->nr; i++) {
		if (!is_leader(s, i))
			continue;
		int err = read_group(s, i);
		if (err && !ret)
			ret = err;
	}
	return ret;
}

void counters_hold(struct counter_set *s)
{
	for (int i = 0; i < s->nr; i++)
		if (s->c[i].fd >= 0 || s->c[i].fed)
			s->c[i].prev = s->c[i].cur;
}

void counters_close(struct counter_set *s)
{
	if (!s->c)
		return;
	close_all(s);
	free(s->c);
	s->c = NULL;
	s->nr = 0;
}

static struct counter_value value_between(const struct counter *c, const struct counter_reading *a,
                                          const struct counter_reading *b)
{
	struct counter_value v = {.value = NAN, .coverage = 0};

	if (c->fd < 0 && !c->fed) {
		v.state = COUNTER_UNSUPPORTED;
		return v;
	}
	if (c->error) {
		v.state = COUNTER_ERROR;
		return v;
	}
	return counters_scale(b->value - a->value, b->enabled - a->enabled,
	                      b->running - a->running);
}

struct counter_value counters_interval(const struct counter_set *s, int i)
{
	return value_between(&s->c[i], &s->c[i].prev, &s->c[i].cur);
}

struct counter_value counters_total(const struct counter_set *s, int i)
{
	return value_between(&s->c[i], &s->c[i].base, &s->c[i].cur);
}
