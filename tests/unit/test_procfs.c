/* test_procfs: /proc parsing against fixtures and against this very process. */
#include "procfs.h"
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char fixture_root[PATH_MAX];
static struct procfs pf;

static int use_fixture(void **state)
{
	procfs_close(&pf);
	procfs_init(&pf, fixture_root);
	return 0;
}

static int use_live(void **state)
{
	procfs_close(&pf);
	procfs_init(&pf, NULL);
	return 0;
}

static void test_stat_with_odd_comm(void **state)
{
	struct procfs_task t;

	assert_int_equal(procfs_task_read(&pf, 4242, 0, &t), 0);
	assert_int_equal(t.pid, 4242);
	assert_int_equal(t.tid, 4242);
	assert_string_equal(t.comm, "evil ) (name");
	assert_int_equal(t.state, 'R');
	assert_int_equal(t.ppid, 1);
	assert_int_equal(t.utime, 37);
	assert_int_equal(t.stime, 12);
	assert_int_equal(t.num_threads, 2);
	assert_int_equal(t.starttime, 987654);
	assert_int_equal(t.processor, 3);
	assert_int_equal(t.uid, 1001); /* the effective uid */

	/* tid == pid is the main thread alone, not the process's sum */
	assert_int_equal(procfs_task_read(&pf, 4242, 4242, &t), 0);
	assert_int_equal(t.utime, 30);
	assert_int_equal(t.tid, 4242);
}

static void test_thread(void **state)
{
	struct procfs_task t;

	assert_int_equal(procfs_task_read(&pf, 4242, 4243, &t), 0);
	assert_int_equal(t.pid, 4242);
	assert_int_equal(t.tid, 4243);
	assert_string_equal(t.comm, "worker 1");
	assert_int_equal(t.state, 'S');
	assert_int_equal(t.utime, 7);
	assert_int_equal(t.stime, 2);
	assert_int_equal(t.starttime, 987700);
	assert_int_equal(t.processor, 6);
	assert_int_equal(t.uid, 1001);
}

static void test_gone_and_broken(void **state)
{
	struct procfs_task t;
	struct procfs_ids tids = {0};
	char buf[64];

	assert_int_equal(procfs_task_read(&pf, 999, 0, &t), -ENOENT);
	assert_int_equal(procfs_task_read(&pf, 4242, 4299, &t), -ENOENT);
	assert_int_equal(procfs_threads(&pf, 999, &tids), -ENOENT);
	procfs_ids_free(&tids);
	assert_int_equal(procfs_cmdline(&pf, 999, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(procfs_task_read(&pf, 77, 0, &t), -EINVAL);
}

static void test_threads_and_pids(void **state)
{
	struct procfs_ids l = {0};

	assert_int_equal(procfs_threads(&pf, 4242, &l), 2);
	assert_int_equal(l.id[0], 4242);
	assert_int_equal(l.id[1], 4243);
	assert_int_equal(procfs_threads(&pf, 2, &l), 1);
	assert_int_equal(l.id[0], 2);

	/* numeric directories only: not self, sys, stat or cpuinfo */
	assert_int_equal(procfs_pids(&pf, &l), 3);
	assert_int_equal(l.nr, 3);
	assert_int_equal(l.id[0], 2);
	assert_int_equal(l.id[1], 77);
	assert_int_equal(l.id[2], 4242);
	procfs_ids_free(&l);
}

/* A listing is never cut: 5000 threads (more than the 4096 a fixed array
 * once held) and as many processes, all listed, in order. */
static void test_long_listings(void **state)
{
	char root[] = "/tmp/pfmtop-procfs-long.XXXXXX", path[PATH_MAX];
	struct procfs big = {0};
	struct procfs_ids l = {0};
	const int n = 5000;

	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/1", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/1/task", root);
	assert_int_equal(mkdir(path, 0755), 0);
	for (int i = n; i >= 1; i--) {
		snprintf(path, sizeof(path), "%s/proc/1/task/%d", root, i);
		assert_int_equal(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/proc/%d", root, 100000 + i);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	procfs_init(&big, root);
	assert_int_equal(procfs_threads(&big, 1, &l), n);
	for (int i = 0; i < n; i++)
		assert_int_equal(l.id[i], i + 1);
	assert_int_equal(procfs_pids(&big, &l), n + 1);
	assert_int_equal(l.id[0], 1);
	assert_int_equal(l.id[n], 100000 + n);
	procfs_ids_free(&l);
	procfs_close(&big);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

static void test_cpu_times(void **state)
{
	struct procfs_cpu c[8];

	assert_int_equal(procfs_cpu_times(&pf, c, 8), 5);
	assert_int_equal(c[0].cpu, 0);
	/* user nice system idle iowait irq softirq steal */
	assert_int_equal(c[0].total, 1393280 + 32966 + 572056 + 13343292 + 6130 + 0 + 17875 + 0);
	assert_int_equal(c[0].busy, 1393280 + 32966 + 572056 + 0 + 17875 + 0);
	assert_int_equal(c[3].cpu, 3);
	assert_int_equal(c[4].cpu, 6);
	/* guest and guest_nice are inside user and nice already */
	assert_int_equal(c[4].total, 100 + 20 + 30 + 400 + 50 + 6 + 7 + 8);
	assert_int_equal(c[4].busy, 100 + 20 + 30 + 6 + 7 + 8);
	assert_int_equal(procfs_cpu_times(&pf, c, 2), 2);
}

static void test_cmdline(void **state)
{
	char buf[64];

	assert_int_equal(procfs_cmdline(&pf, 4242, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "./evil --flag x y");
	assert_int_equal(procfs_cmdline(&pf, 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "[kthreadd]");
	memset(buf, '#', sizeof(buf));
	assert_int_equal(procfs_cmdline(&pf, 4242, buf, 5), 0);
	assert_string_equal(buf, "./ev");
	assert_int_equal(buf[5], '#');
	assert_int_equal(procfs_cmdline(&pf, 2, buf, 4), 0);
	assert_string_equal(buf, "[kt");
}

static void test_users(void **state)
{
	const char *root = procfs_user(&pf, 0);

	assert_string_equal(root, "root");
	assert_ptr_equal(procfs_user(&pf, 0), root);
	assert_string_equal(procfs_user(&pf, 3999999), "3999999");
	assert_ptr_equal(procfs_user(&pf, 0), root);
	assert_true(procfs_hz() > 0);
	assert_int_equal(procfs_hz(), sysconf(_SC_CLK_TCK));
}

static void test_kept_stat_fixture(void **state)
{
	struct procfs_task a, b;
	int fd = -1;
	uid_t uid;

	/* open and keep; then read again through the same fd */
	assert_int_equal(procfs_task_stat_kept(&pf, 4242, 4243, &fd, true, &a), 0);
	assert_true(fd >= 0);
	assert_int_equal(procfs_task_stat(&pf, 4242, 4243, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	int kept = fd;
	assert_int_equal(procfs_task_stat_kept(&pf, 4242, 4243, &fd, true, &a), 0);
	assert_int_equal(fd, kept);
	assert_string_equal(a.comm, "worker 1");
	assert_int_equal(a.starttime, 987700);
	close(fd);

	/* not kept: read and closed */
	fd = -1;
	assert_int_equal(procfs_task_stat_kept(&pf, 4242, 0, &fd, false, &a), 0);
	assert_int_equal(fd, -1);
	assert_int_equal(a.utime, 37);
	assert_int_equal(procfs_task_stat_kept(&pf, 999, 0, &fd, true, &a), -ENOENT);
	assert_int_equal(fd, -1);
	assert_int_equal(procfs_task_stat_kept(&pf, 77, 0, &fd, false, &a), -EINVAL);

	assert_int_equal(procfs_task_uid(&pf, 4242, 0, &uid), 0);
	assert_int_equal(uid, 1001);
	assert_int_equal(procfs_task_uid(&pf, 2, 2, &uid), 0);
	assert_int_equal(uid, 0);
	assert_int_equal(procfs_task_uid(&pf, 999, 0, &uid), -ENOENT);
}

static void test_kept_stat_gone(void **state)
{
	struct procfs_task t;
	int go, fd = -1, status;
	pid_t pid = testutil_child_waiting(&go);

	assert_int_equal(procfs_task_stat_kept(&pf, pid, 0, &fd, true, &t), 0);
	assert_true(fd >= 0);
	uint64_t start = t.starttime;

	/* a zombie still reads, as one */
	assert_int_equal(write(go, "x", 1), 1);
	close(go);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(procfs_task_stat_kept(&pf, pid, 0, &fd, true, &t), 0);
		if (t.state == 'Z')
			break;
		usleep(1000);
	}
	assert_int_equal(t.state, 'Z');
	assert_int_equal(t.starttime, start);

	/* reaped: gone, and the fd is closed */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(procfs_task_stat_kept(&pf, pid, 0, &fd, true, &t), -ENOENT);
	assert_int_equal(fd, -1);
	assert_int_equal(procfs_task_stat_kept(&pf, pid, pid, &fd, true, &t), -ENOENT);
	assert_int_equal(fd, -1);
}

/* A kept fd stays with its task: when the PID goes to another task, the old
 * fd reads as gone, and only a fresh open sees the new one. Needs
 * ns_last_pid (root) to have the PID handed out again. */
static void test_kept_stat_recycled_pid(void **state)
{
	struct procfs_task t;
	int go, fd = -1, status;
	pid_t old = testutil_child_waiting(&go), pid = -1;
	uint64_t start;

	assert_int_equal(procfs_task_stat_kept(&pf, old, 0, &fd, true, &t), 0);
	start = t.starttime;
	assert_int_equal(write(go, "x", 1), 1);
	close(go);
	assert_int_equal(waitpid(old, &status, 0), old);

	/* The next fork takes ns_last_pid + 1, unless another fork on the
	 * machine comes first: a few tries. */
	for (int i = 0; i < 20 && pid != old; i++) {
		int ns = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
		char buf[16];
		int n = snprintf(buf, sizeof(buf), "%d", (int)old - 1);

		if (ns < 0 || write(ns, buf, (size_t)n) != n) {
			if (ns >= 0)
				close(ns);
			close(fd);
			print_message(
			    "SKIP(host): cannot write ns_last_pid (needs root in this PID "
			    "namespace)\n");
			skip();
		}
		close(ns);
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		pid = testutil_child_waiting(&go);
		close(go); /* EOF: it exits when read returns */
		if (pid != old) {
			waitpid(pid, &status, 0);
			pid = 0;
		}
	}
	if (pid != old) {
		close(fd);
		print_message("SKIP(host): other forks on the machine took PID %d 20 times\n",
		              (int)old);
		skip();
	}
	/* The new task holds the PID (a zombie at worst): the old fd does
	 * not show it. */
	assert_int_equal(procfs_task_stat_kept(&pf, old, 0, &fd, true, &t), -ENOENT);
	assert_int_equal(fd, -1);
	assert_int_equal(procfs_task_stat_kept(&pf, old, 0, &fd, true, &t), 0);
	assert_true(fd >= 0);
	assert_true(t.starttime >= start);
	close(fd);
	waitpid(pid, &status, 0);
}

/* /proc/loadavg of a root of files: parsed, read through one fd kept open
 * (a file replaced later is not seen: the real one changes in place), and a
 * malformed one refused. */
static void test_loadavg_fixture(void **state)
{
	static const char *const bad[] = {"", "0.5 0.5\n", "0.5 0.5 0.5 3 100 7\n",
	                                  "0.5 0.5 0.5 /100 7\n", "x 0.5 0.5 3/100 7\n"};
	char root[] = "/tmp/pfmtop-procfs-load.XXXXXX", path[PATH_MAX];
	struct procfs p = {0};
	double load[3];
	int running = -1, all = -1;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/loadavg", root);
	for (size_t i = 0; i <= sizeof(bad) / sizeof(*bad); i++) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(i ? bad[i - 1] : "1.50 0.25 10.00 3/456 789\n", f);
		assert_int_equal(fclose(f), 0);
		procfs_init(&p, root);
		if (i) {
			assert_int_equal(procfs_loadavg(&p, load, &running, &all), -EINVAL);
		} else {
			assert_int_equal(procfs_loadavg(&p, load, &running, &all), 0);
			assert_true(load[0] == 1.5 && load[1] == 0.25 && load[2] == 10.0);
			assert_int_equal(running, 3);
			assert_int_equal(all, 456);
			assert_int_equal(procfs_loadavg(&p, load, &running, &all), 0);
			assert_int_equal(all, 456);
		}
		procfs_close(&p);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

/* The live /proc/loadavg: as sscanf reads it, through one fd kept open. */
static void test_loadavg_live(void **state)
{
	double load[3], want[3];
	int running, all, r2, a2;
	char buf[128] = "";
	FILE *f;

	(void)state;
	for (int round = 0; round < 3; round++) {
		assert_int_equal(procfs_loadavg(&pf, load, &running, &all), 0);
		f = fopen("/proc/loadavg", "r");
		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		assert_int_equal(
		    sscanf(buf, "%lf %lf %lf %d/%d", &want[0], &want[1], &want[2], &r2, &a2), 5);
		/* the averages change every 5 s: equal unless one came between */
		if (load[0] != want[0] || load[1] != want[1] || load[2] != want[2])
			continue;
		assert_true(running >= 1 && running <= all);
		assert_true(all > 1);
		assert_int_equal(testutil_nr_fds_prefix("/proc/loadavg"), 1);
		procfs_close(&pf);
		assert_int_equal(testutil_nr_fds_prefix("/proc/loadavg"), 0);
		return;
	}
	fail_msg("/proc/loadavg changed under three reads in a row");
}

static void test_close(void **state)
{
	struct procfs_cpu c[64];
	struct procfs_task t;
	struct procfs_ids ids = {0};

	procfs_close(&pf);
	assert_int_equal(testutil_nr_fds_prefix("/proc"), 0);
	assert_true(procfs_cpu_times(&pf, c, 64) >= 1);
	assert_true(procfs_pids(&pf, &ids) >= 1);
	procfs_ids_free(&ids);
	assert_int_equal(procfs_task_stat(&pf, getpid(), 0, &t), 0);
	/* the /proc directory and /proc/stat stay open, nothing else */
	assert_int_equal(testutil_nr_fds_prefix("/proc"), 2);
	assert_int_equal(testutil_nr_fds_prefix("/proc/stat"), 1);
	assert_true(procfs_cpu_times(&pf, c, 64) >= 1);
	assert_int_equal(testutil_nr_fds_prefix("/proc"), 2);
	procfs_close(&pf);
	assert_int_equal(testutil_nr_fds_prefix("/proc"), 0);
	/* and they come back on use */
	assert_true(procfs_cpu_times(&pf, c, 64) >= 1);
	assert_int_equal(testutil_nr_fds_prefix("/proc/stat"), 1);
	procfs_close(&pf);
}

static void test_live_self(void **state)
{
	struct procfs_task a, b;
	pid_t self = getpid();
	struct procfs_ids ids = {0};
	char cmd[4096], comm[32];
	int n;

	assert_int_equal(procfs_task_read(&pf, self, 0, &a), 0);
	snprintf(comm, sizeof(comm), "%.15s", program_invocation_short_name);
	assert_string_equal(a.comm, comm);
	assert_int_equal(a.ppid, getppid());
	assert_int_equal(a.uid, geteuid());
	assert_int_equal(a.state, 'R');
	assert_true(a.num_threads >= 1);
	assert_true(a.processor >= 0);

	n = procfs_threads(&pf, self, &ids);
	assert_true(n >= 1);
	assert_int_equal(ids.id[0], self);
	assert_int_equal(procfs_task_read(&pf, self, ids.id[0], &b), 0);

	/* the start time tells this process apart from a recycled pid */
	for (volatile int i = 0; i < 1000000; i++)
		;
	assert_int_equal(procfs_task_read(&pf, self, 0, &b), 0);
	assert_int_equal(a.starttime, b.starttime);
	assert_true(b.utime + b.stime >= a.utime + a.stime);

	n = procfs_pids(&pf, &ids);
	assert_true(n >= 2);
	bool found = false;

	for (int i = 0; i < n; i++)
		found |= ids.id[i] == self;
	assert_true(found);
	for (int i = 1; i < n; i++)
		assert_true(ids.id[i - 1] < ids.id[i]);
	procfs_ids_free(&ids);

	assert_int_equal(procfs_cmdline(&pf, self, cmd, sizeof(cmd)), 0);
	assert_non_null(strstr(cmd, "test_procfs"));
	assert_int_equal(procfs_cmdline(&pf, 1, cmd, sizeof(cmd)), 0);
	assert_true(cmd[0] != '\0');

	struct procfs_cpu cpus[1024];

	n = procfs_cpu_times(&pf, cpus, 1024);
	assert_true(n >= 1);
	assert_int_equal(n, sysconf(_SC_NPROCESSORS_ONLN));
	for (int i = 0; i < n; i++)
		assert_true(cpus[i].busy <= cpus[i].total);
}

int main(void)
{
	const char *fixtures = testutil_fixtures();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_stat_with_odd_comm, use_fixture),
	    cmocka_unit_test_setup(test_thread, use_fixture),
	    cmocka_unit_test_setup(test_gone_and_broken, use_fixture),
	    cmocka_unit_test(test_long_listings),
	    cmocka_unit_test_setup(test_threads_and_pids, use_fixture),
	    cmocka_unit_test_setup(test_cpu_times, use_fixture),
	    cmocka_unit_test_setup(test_cmdline, use_fixture),
	    cmocka_unit_test_setup(test_users, use_fixture),
	    cmocka_unit_test_setup(test_kept_stat_fixture, use_fixture),
	    cmocka_unit_test_setup(test_live_self, use_live),
	    cmocka_unit_test_setup(test_kept_stat_gone, use_live),
	    cmocka_unit_test_setup(test_kept_stat_recycled_pid, use_live),
	    cmocka_unit_test_setup(test_close, use_live),
	    cmocka_unit_test(test_loadavg_fixture),
	    cmocka_unit_test_setup(test_loadavg_live, use_live),
	};

	snprintf(fixture_root, sizeof(fixture_root), "%s/proc-root", fixtures);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
