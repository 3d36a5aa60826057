/* fake_sys: a sys_ops table for unit tests: eventfds for perf fds, queued
 * read payloads, assigned ids, heap-backed rings. */
#ifndef PFMTOP_FAKE_SYS_H
#define PFMTOP_FAKE_SYS_H

#include "sys.h"

#include <stdbool.h>
#include <stdint.h>

#define FAKE_MAX_EVENTS 512
#define FAKE_MAX_READS 16

struct fake_read {
	size_t len;  /* bytes read() returns; 0 = read() returns 0 */
	int err;     /* when non-zero read() fails with this errno */
	unsigned char data[1024];
};

struct fake_event {
	bool used, closed;
	int fd;
	struct perf_event_attr attr;
	pid_t pid;
	int cpu, group_fd;
	unsigned long flags;
	uint64_t id;
	int nr_enable, nr_disable, nr_reset;
	unsigned long last_ioctl_arg;
	size_t last_read_len; /* buffer size of the last read() */
	struct fake_read reads[FAKE_MAX_READS];
	int nr_reads, next_read;
	void *ring;
	size_t ring_len;
};

/* Install the fake (and reset it); sys_set_ops(NULL) uninstalls. */
void fake_sys_install(void);
/* Forget every event (closing the eventfds still open). */
void fake_sys_reset(void);

/* Decide the result of each perf_event_open: return 0 to succeed or a
 * positive errno to fail it. NULL = everything opens. */
typedef int (*fake_open_rule)(const struct perf_event_attr *attr, pid_t pid, int cpu,
			      int group_fd);
void fake_sys_set_open_rule(fake_open_rule rule);

/* The event behind fd, or NULL. */
struct fake_event *fake_sys_event(int fd);
/* The n-th event opened (0-based, in open order), or NULL. */
struct fake_event *fake_sys_event_at(int n);
int fake_sys_nr_opened(void);
/* Number of fds opened and not yet closed. */
int fake_sys_nr_open_fds(void);

/* Queue what the next read() of fd returns. */
void fake_sys_queue_read(int fd, const void *data, size_t len);
void fake_sys_queue_read_error(int fd, int err);

/* Queue a PERF_FORMAT_GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING read
 * on leader fd: values[i] pairs with ids[i]. */
void fake_sys_queue_group_read(int fd, uint64_t enabled, uint64_t running, int nr,
			       const uint64_t *values, const uint64_t *ids);

#endif
