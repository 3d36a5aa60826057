/* loop: the single-threaded epoll loop: fds, a refresh tick, signals. */
#ifndef PFMTOP_LOOP_H
#define PFMTOP_LOOP_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

struct loop;

typedef void (*loop_fd_fn)(struct loop *l, int fd, uint32_t events, void *arg);
typedef void (*loop_tick_fn)(struct loop *l, uint64_t expirations, void *arg);
typedef void (*loop_signal_fn)(struct loop *l, int sig, pid_t sender, void *arg);

/* A new loop, or NULL with errno set. */
struct loop *loop_new(void);
/* Free the loop and its timerfd/signalfd (watched fds stay the caller's);
 * unblocks the signals it watched. */
void loop_free(struct loop *l);

/* Watch fd for events (EPOLLIN ...; 0 still reports HUP and ERR). 0 or -errno. */
int loop_add_fd(struct loop *l, int fd, uint32_t events, loop_fd_fn fn, void *arg);
/* Stop watching fd; 0 or -errno. Safe from inside a callback. */
int loop_del_fd(struct loop *l, int fd);

/* Call fn every interval_ns, on a grid that starts now (a periodic
 * timerfd). A tick that comes more than half an interval late is skipped,
 * so no interval is a sliver: expirations counts the grid points passed
 * since the last call (1 when none was missed). Replaces any earlier tick.
 * 0 or -errno. */
int loop_set_tick(struct loop *l, uint64_t interval_ns, loop_tick_fn fn, void *arg);

/* Block sigs and deliver them through a signalfd to fn. 0 or -errno. */
int loop_watch_signals(struct loop *l, const int *sigs, int nr, loop_signal_fn fn, void *arg);

/* Run until loop_stop(); returns its code, or -errno if epoll fails. */
int loop_run(struct loop *l);
void loop_stop(struct loop *l, int code);

#endif
