/* sys: the one seam between pfmtop and the kernel's perf interface. */
#ifndef PFMTOP_SYS_H
#define PFMTOP_SYS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Every perf_event_open, read, ioctl, mmap, munmap and close on a perf fd
 * goes through this table. Functions follow the libc convention: -1 and
 * errno on failure. Tests install a fake with sys_set_ops().
 */
struct sys_ops {
	int (*perf_event_open)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
	                       unsigned long flags);
	ssize_t (*read)(int fd, void *buf, size_t len);
	int (*ioctl)(int fd, unsigned long req, unsigned long arg);
	void *(*mmap)(void *addr, size_t len, int prot, int flags, int fd, off_t off);
	int (*munmap)(void *addr, size_t len);
	int (*close)(int fd);
};

/* The ops in force; never NULL. Starts as the real kernel. */
extern const struct sys_ops *sys;

/* The real kernel's ops. */
extern const struct sys_ops sys_kernel_ops;

/* Install ops (NULL restores the kernel's); returns the previous table. */
const struct sys_ops *sys_set_ops(const struct sys_ops *ops);

#endif
