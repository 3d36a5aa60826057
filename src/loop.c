/* loop: the single-threaded epoll loop: fds, a refresh tick, signals. */
#include "loop.h"

#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

struct watch {
	int fd;
	loop_fd_fn fn;
	void *arg;
	struct watch *next; /* on the free list once deleted */
	bool dead;
};

struct loop {
	int epfd;
	int tfd, sfd;
	loop_tick_fn tick_fn;
	void *tick_arg;
	uint64_t tick_ns, tick_base; /* the grid: tick_base + k * tick_ns */
	uint64_t tick_skipped;       /* grid points passed without a call */
	loop_signal_fn sig_fn;
	void *sig_arg;
	sigset_t watched, saved;
	bool stopping;
	int code;
	struct watch *dead;   /* deleted in this pass; freed after it */
	struct watch **index; /* by fd */
	int index_len;
};

struct loop *loop_new(void)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->tfd = l->sfd = -1;
	sigemptyset(&l->watched);
	sigprocmask(SIG_BLOCK, NULL, &l->saved);
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		int err = errno;
		free(l);
		errno = err;
		return NULL;
	}
	return l;
}

static void free_dead(struct loop *l)
{
	while (l->dead) {
		struct watch *w = l->dead;
		l->dead = w->next;
		free(w);
	}
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->index_len; i++)
		free(l->index[i]);
	free(l->index);
	free_dead(l);
	if (l->tfd >= 0)
		close(l->tfd);
	if (l->sfd >= 0) {
		close(l->sfd);
		sigprocmask(SIG_SETMASK, &l->saved, NULL);
	}
	close(l->epfd);
	free(l);
}

int loop_add_fd(struct loop *l, int fd, uint32_t events, loop_fd_fn fn, void *arg)
{
	struct epoll_event ev = {.events = events};
	struct watch *w;

	if (fd < 0)
		return -EBADF;
	if (fd >= l->index_len) {
		int n = l->index_len ? l->index_len : 64;
		while (n <= fd)
			n *= 2;
		struct watch **idx = realloc(l->index, (size_t)n * sizeof(*idx));
		if (!idx)
			return -ENOMEM;
		memset(idx + l->index_len, 0, (size_t)(n - l->index_len) * sizeof(*idx));
		l->index = idx;
		l->index_len = n;
	}
	if (l->index[fd])
		return -EEXIST;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->fn = fn;
	w->arg = arg;
	ev.data.ptr = w;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int err = -errno;
		free(w);
		return err;
	}
	l->index[fd] = w;
	return 0;
}

int loop_del_fd(struct loop *l, int fd)
{
	struct watch *w;

	if (fd < 0 || fd >= l->index_len || !(w = l->index[fd]))
		return -ENOENT;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
	l->index[fd] = NULL;
	/* Events for w may still be in this pass's batch: keep it until the end. */
	w->dead = true;
	w->next = l->dead;
	l->dead = w;
	return 0;
}

static void on_timer(struct loop *l, int fd, uint32_t events, void *arg)
{
	uint64_t n = 0;

	if (read(fd, &n, sizeof(n)) != sizeof(n) || !l->tick_fn)
		return;
	/*
	 * Keep the grid: a tick handled more than half an interval late (the
	 * last call took that long) would end a long interval now and leave a
	 * sliver to the next grid point. Skip it: the next call comes at that
	 * point, with every grid point passed counted in its expirations.
	 */
	uint64_t late = (util_now_ns() - l->tick_base) % l->tick_ns;
	if (late > l->tick_ns / 2) {
		l->tick_skipped += n;
		return;
	}
	n += l->tick_skipped;
	l->tick_skipped = 0;
	l->tick_fn(l, n, l->tick_arg);
}

int loop_set_tick(struct loop *l, uint64_t interval_ns, loop_tick_fn fn, void *arg)
{
	struct itimerspec its = {
	    .it_interval = {(time_t)(interval_ns / 1000000000ull),
	                    (long)(interval_ns % 1000000000ull)},
	};

	its.it_value = its.it_interval;
	if (l->tfd < 0) {
		l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (l->tfd < 0)
			return -errno;
		int err = loop_add_fd(l, l->tfd, EPOLLIN, on_timer, NULL);
		if (err)
			return err;
	}
	l->tick_fn = fn;
	l->tick_arg = arg;
	l->tick_ns = interval_ns ? interval_ns : 1;
	l->tick_skipped = 0;
	l->tick_base = util_now_ns();
	if (timerfd_settime(l->tfd, 0, &its, NULL) < 0)
		return -errno;
	return 0;
}

static void on_signal(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct signalfd_siginfo si;

	while (read(fd, &si, sizeof(si)) == sizeof(si))
		if (l->sig_fn)
			l->sig_fn(l, (int)si.ssi_signo, (pid_t)si.ssi_pid, l->sig_arg);
}

int loop_watch_signals(struct loop *l, const int *sigs, int nr, loop_signal_fn fn, void *arg)
{
	for (int i = 0; i < nr; i++)
		sigaddset(&l->watched, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &l->watched, NULL) < 0)
		return -errno;
	l->sfd = signalfd(l->sfd, &l->watched, SFD_CLOEXEC | SFD_NONBLOCK);
	if (l->sfd < 0)
		return -errno;
	l->sig_fn = fn;
	l->sig_arg = arg;
	if (l->sfd < l->index_len && l->index[l->sfd])
		return 0;
	return loop_add_fd(l, l->sfd, EPOLLIN, on_signal, NULL);
}

int loop_run(struct loop *l)
{
	struct epoll_event evs[64];

	l->stopping = false;
	while (!l->stopping) {
		int n = epoll_wait(l->epfd, evs, 64, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (int i = 0; i < n && !l->stopping; i++) {
			struct watch *w = evs[i].data.ptr;
			if (!w->dead)
				w->fn(l, w->fd, evs[i].events, w->arg);
		}
		free_dead(l);
	}
	free_dead(l);
	return l->code;
}

void loop_stop(struct loop *l, int code)
{
	l->stopping = true;
	l->code = code;
}
