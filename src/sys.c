/* sys: the real kernel behind the sys_ops seam. */
#include "sys.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int kernel_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                  unsigned long flags)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int kernel_ioctl(int fd, unsigned long req, unsigned long arg)
{
	return ioctl(fd, req, arg);
}

const struct sys_ops sys_kernel_ops = {
    .perf_event_open = kernel_perf_event_open,
    .read = read,
    .ioctl = kernel_ioctl,
    .mmap = mmap,
    .munmap = munmap,
    .close = close,
};

const struct sys_ops *sys = &sys_kernel_ops;

const struct sys_ops *sys_set_ops(const struct sys_ops *ops)
{
	const struct sys_ops *old = sys;

	sys = ops ? ops : &sys_kernel_ops;
	return old;
}
