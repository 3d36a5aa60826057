/* fake_sys: a sys_ops table for unit tests (see fake_sys.h). */
#include "fake_sys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

static struct fake_event events[FAKE_MAX_EVENTS];
static int nr_events;
static fake_open_rule open_rule;
static uint64_t next_id = 1000;

struct fake_event *fake_sys_event(int fd)
{
	for (int i = 0; i < nr_events; i++)
		if (events[i].used && !events[i].closed && events[i].fd == fd)
			return &events[i];
	return NULL;
}

struct fake_event *fake_sys_event_at(int n)
{
	return n >= 0 && n < nr_events ? &events[n] : NULL;
}

int fake_sys_nr_opened(void)
{
	return nr_events;
}

int fake_sys_nr_open_fds(void)
{
	int n = 0;

	for (int i = 0; i < nr_events; i++)
		n += events[i].used && !events[i].closed;
	return n;
}

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		     unsigned long flags)
{
	if (nr_events == FAKE_MAX_EVENTS) {
		errno = EMFILE;
		return -1;
	}
	if (open_rule) {
		int err = open_rule(attr, pid, cpu, group_fd);
		if (err) {
			errno = err;
			return -1;
		}
	}
	if (group_fd != -1 && !fake_sys_event(group_fd)) {
		errno = EBADF;
		return -1;
	}
	int fd = eventfd(0, EFD_CLOEXEC);
	if (fd < 0)
		return -1;
	struct fake_event *e = &events[nr_events++];
	memset(e, 0, sizeof(*e));
	e->used = true;
	e->fd = fd;
	e->attr = *attr;
	e->pid = pid;
	e->cpu = cpu;
	e->group_fd = group_fd;
	e->flags = flags;
	e->id = next_id++;
	return fd;
}

static ssize_t fake_read(int fd, void *buf, size_t len)
{
	struct fake_event *e = fake_sys_event(fd);

	if (!e) {
		errno = EBADF;
		return -1;
	}
	e->last_read_len = len;
	if (e->next_read >= e->nr_reads) {
		errno = EAGAIN;
		return -1;
	}
	struct fake_read *r = &e->reads[e->next_read++];
	if (r->err) {
		errno = r->err;
		return -1;
	}
	if (len < r->len) {
		errno = ENOSPC; /* what the kernel says about a short buffer */
		return -1;
	}
	memcpy(buf, r->data, r->len);
	return (ssize_t)r->len;
}

static int fake_ioctl(int fd, unsigned long req, unsigned long arg)
{
	struct fake_event *e = fake_sys_event(fd);

	if (!e) {
		errno = EBADF;
		return -1;
	}
	e->last_ioctl_arg = arg;
	switch (req) {
	case PERF_EVENT_IOC_ENABLE:
		e->nr_enable++;
		return 0;
	case PERF_EVENT_IOC_DISABLE:
		e->nr_disable++;
		return 0;
	case PERF_EVENT_IOC_RESET:
		e->nr_reset++;
		return 0;
	case PERF_EVENT_IOC_ID:
		*(uint64_t *)arg = e->id;
		return 0;
	default:
		return 0;
	}
}

static void *fake_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct fake_event *e = fake_sys_event(fd);

	if (!e) {
		errno = EBADF;
		return MAP_FAILED;
	}
	void *p = aligned_alloc(4096, len);
	if (!p) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	memset(p, 0, len);
	e->ring = p;
	e->ring_len = len;
	return p;
}

static int fake_munmap(void *addr, size_t len)
{
	for (int i = 0; i < nr_events; i++) {
		if (events[i].ring == addr) {
			free(addr);
			events[i].ring = NULL;
			events[i].ring_len = 0;
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

static int fake_close(int fd)
{
	struct fake_event *e = fake_sys_event(fd);

	if (!e)
		return close(fd);
	e->closed = true;
	return close(fd);
}

static const struct sys_ops fake_ops = {
	.perf_event_open = fake_open,
	.read = fake_read,
	.ioctl = fake_ioctl,
	.mmap = fake_mmap,
	.munmap = fake_munmap,
	.close = fake_close,
};

void fake_sys_reset(void)
{
	for (int i = 0; i < nr_events; i++) {
		if (events[i].used && !events[i].closed)
			close(events[i].fd);
		free(events[i].ring);
	}
	memset(events, 0, sizeof(events));
	nr_events = 0;
	open_rule = NULL;
	next_id = 1000;
}

void fake_sys_install(void)
{
	fake_sys_reset();
	sys_set_ops(&fake_ops);
}

void fake_sys_set_open_rule(fake_open_rule rule)
{
	open_rule = rule;
}

static struct fake_read *queue_slot(int fd)
{
	struct fake_event *e = fake_sys_event(fd);

	if (!e || e->nr_reads == FAKE_MAX_READS)
		abort();
	struct fake_read *r = &e->reads[e->nr_reads++];
	memset(r, 0, sizeof(*r));
	return r;
}

void fake_sys_queue_read(int fd, const void *data, size_t len)
{
	struct fake_read *r = queue_slot(fd);

	if (len > sizeof(r->data))
		abort();
	r->len = len;
	memcpy(r->data, data, len);
}

void fake_sys_queue_read_error(int fd, int err)
{
	queue_slot(fd)->err = err;
}

void fake_sys_queue_group_read(int fd, uint64_t enabled, uint64_t running, int nr,
			       const uint64_t *values, const uint64_t *ids)
{
	uint64_t buf[3 + 2 * 64];

	if (nr > 64)
		abort();
	buf[0] = (uint64_t)nr;
	buf[1] = enabled;
	buf[2] = running;
	for (int i = 0; i < nr; i++) {
		buf[3 + 2 * i] = values[i];
		buf[4 + 2 * i] = ids[i];
	}
	fake_sys_queue_read(fd, buf, sizeof(uint64_t) * (3 + 2 * (size_t)nr));
}
