/* Unit tests for loop: fd callbacks, the tick, signals through signalfd, stop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "loop.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct ctx {
	int ticks, fd_events, signals, last_sig;
	int efd;
};

static void on_tick(struct loop *l, uint64_t n, void *arg)
{
	struct ctx *c = arg;

	/* On a busy machine one call may stand for several grid points (n > 1):
	 * the fd is woken on the first call, whatever its n, and the loop
	 * stops once the fd and the signal it raises have been seen. */
	if (c->ticks == 0)
		eventfd_write(c->efd, 1); /* wake the fd watcher */
	c->ticks += (int)n;
	if (c->ticks >= 3 && c->signals)
		loop_stop(l, 42);
}

static void on_fd(struct loop *l, int fd, uint32_t ev, void *arg)
{
	struct ctx *c = arg;
	eventfd_t v;

	eventfd_read(fd, &v);
	c->fd_events++;
	if (c->fd_events == 1)
		raise(SIGUSR1);
}

static void on_sig(struct loop *l, int sig, pid_t sender, void *arg)
{
	struct ctx *c = arg;

	c->signals++;
	c->last_sig = sig;
}

static void test_loop_runs(void **state)
{
	struct ctx c = {0};
	struct loop *l = loop_new();
	const int sigs[] = {SIGUSR1};

	assert_non_null(l);
	c.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert_int_equal(loop_add_fd(l, c.efd, EPOLLIN, on_fd, &c), 0);
	assert_int_equal(loop_add_fd(l, c.efd, EPOLLIN, on_fd, &c), -EEXIST);
	assert_int_equal(loop_watch_signals(l, sigs, 1, on_sig, &c), 0);
	assert_int_equal(loop_set_tick(l, 20000000ull, on_tick, &c), 0);
	uint64_t t0 = util_now_ns();
	assert_int_equal(loop_run(l), 42);
	uint64_t dt = util_now_ns() - t0;
	assert_true(c.ticks >= 3);
	assert_int_equal(c.fd_events, 1);
	assert_int_equal(c.signals, 1);
	assert_int_equal(c.last_sig, SIGUSR1);
	/* Three 20 ms ticks cannot pass in less than 60 ms: no busy loop. */
	assert_true(dt >= 55000000ull);
	assert_int_equal(loop_del_fd(l, c.efd), 0);
	assert_int_equal(loop_del_fd(l, c.efd), -ENOENT);
	loop_free(l);
	/* The signal mask is restored: SIGUSR1 is no longer blocked. */
	sigset_t now;
	sigprocmask(SIG_BLOCK, NULL, &now);
	assert_false(sigismember(&now, SIGUSR1));
	close(c.efd);
}

static void del_self(struct loop *l, int fd, uint32_t ev, void *arg)
{
	int *calls = arg;

	(*calls)++;
	loop_del_fd(l, fd);
	loop_stop(l, 0);
}

static void test_delete_inside_callback(void **state)
{
	struct loop *l = loop_new();
	int calls = 0, efd = eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC);

	assert_int_equal(loop_add_fd(l, efd, EPOLLIN, del_self, &calls), 0);
	assert_int_equal(loop_run(l), 0);
	assert_int_equal(calls, 1);
	loop_free(l);
	close(efd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loop_runs),
		cmocka_unit_test(test_delete_inside_callback),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
