/* test_symbols: address resolution against this process, libc, the kernel and fixtures. */
#include "symbols.h"
#include "testutil.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
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

#include <sys/stat.h>
#include <sys/wait.h>

/* Above PID_MAX_LIMIT (4194304): never a live process. */
#define FAKE_PID 5000001

static char fixture_root[PATH_MAX];
static char hidden_root[PATH_MAX];

/* A function of libc itself: sanitizers interpose many libc names, so
 * RTLD_DEFAULT could hand back their wrapper. */
static void *libc_sym(const char *name)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *addr;

	assert_non_null(libc);
	addr = dlsym(libc, name);
	dlclose(libc);
	return addr;
}

/* Called once so it is real code; noclone keeps its name intact. */
__attribute__((noinline, noclone)) static int probe_target(int n)
{
	volatile int acc = 0;
	int i;

	for (i = 0; i < n; i++)
		acc += i * 3 + (acc >> 2);
	return acc;
}

static int setup(void **state)
{
	struct symbols *s = symbols_new();

	assert_non_null(s);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	symbols_free(*state);
	return 0;
}

static void resolve(struct symbols *s, pid_t pid, uint64_t ip, bool kernel,
                    struct symbols_result *r)
{
	assert_int_equal(symbols_resolve(s, pid, ip, kernel, r), 0);
}

static void test_own_static_function(void **state)
{
	struct symbols *s = *state;
	uintptr_t fn = (uintptr_t)probe_target;
	struct symbols_result r;
	char exe[PATH_MAX];
	ssize_t n;

	assert_true(probe_target(10) >= 0);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';

	assert_int_equal(symbols_process_scan(s, getpid()), 0);
	resolve(s, getpid(), fn, false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "probe_target");
	assert_int_equal(r.offset, 0);
	assert_string_equal(r.module, strrchr(exe, '/') + 1);

	resolve(s, getpid(), fn + 5, false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "probe_target");
	assert_int_equal(r.offset, 5);
}

/* The name we give must be the function dladdr names, or an alias of it. */
static void check_libc(struct symbols *s, const char *sym)
{
	void *addr = libc_sym(sym);
	struct symbols_result r;
	Dl_info info;

	assert_non_null(addr);
	assert_true(dladdr(addr, &info));
	resolve(s, getpid(), (uintptr_t)addr, false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.module, "libc.so.6");
	assert_int_equal(r.offset, 0);
	if ((!info.dli_sname || strcmp(r.name, info.dli_sname)) && libc_sym(r.name) != addr)
		fail_msg("%s: named %s, which is not an alias of it", sym, r.name);

	resolve(s, getpid(), (uintptr_t)addr + 3, false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_int_equal(r.offset, 3);
}

static void test_libc_functions(void **state)
{
	struct symbols *s = *state;

	/* no explicit scan: the first lookup reads /proc/PID/maps */
	check_libc(s, "qsort");
	check_libc(s, "getpid");
	check_libc(s, "strtoull");
}

static void test_live_kernel(void **state)
{
	struct symbols *s = *state;
	struct symbols_result r;
	unsigned long long addr = 0;
	char line[512], name[256], type;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f) {
		print_message("SKIP(host): no /proc/kallsyms\n");
		skip();
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;

		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    (type == 'T' || type == 't') && !strcmp(name, "schedule")) {
			addr = a;
			break;
		}
	}
	fclose(f);
	if (!addr) {
		print_message("SKIP(host): kallsyms hides addresses (kptr_restrict) or lacks "
			      "schedule\n");
		skip();
	}
	assert_int_equal(symbols_load_kernel(s), 0);
	assert_false(symbols_kernel_hidden(s));
	resolve(s, 0, addr + 4, true, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "schedule");
	assert_int_equal(r.offset, 4);
	assert_string_equal(r.module, "[kernel]");
}

static void test_kallsyms_fixture(void **state)
{
	struct symbols *s = *state;
	struct symbols_result r;
	struct symbols_stats st;

	assert_int_equal(symbols_set_root(s, fixture_root), 0);
	assert_int_equal(symbols_load_kernel(s), 0);
	assert_false(symbols_kernel_hidden(s));
	symbols_stats(s, &st);
	assert_int_equal(st.kernel_symbols, 9); /* text only, aliases merged */

	resolve(s, 0, 0xffffffff81001015, true, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "do_thing"); /* over the local __do_thing_alias */
	assert_int_equal(r.offset, 5);
	assert_string_equal(r.module, "[kernel]");

	resolve(s, 0, 0xffffffff81000010, true, &r);
	assert_string_equal(r.name, "startup_64"); /* over _stext */

	resolve(s, 0, 0xffffffff81001300, true, &r); /* some_data is not code */
	assert_string_equal(r.name, "weak_fn");
	assert_int_equal(r.offset, 0x200);

	resolve(s, 0, 0xffffffffc0001404, true, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "ext4_sync_fs");
	assert_int_equal(r.offset, 4);
	assert_string_equal(r.module, "[ext4]");

	resolve(s, 0, 0xffffffffc0003010, true, &r);
	assert_string_equal(r.name, "xfs_foo");
	assert_string_equal(r.module, "[xfs]");

	resolve(s, 0, 0xffffffff80000000, true, &r); /* below the first symbol */
	assert_int_equal(r.status, SYMBOLS_UNKNOWN);
	assert_string_equal(r.name, "[unknown]");
	assert_string_equal(r.module, "[kernel]");

	resolve(s, 0, 0xffffffffc0100000, true, &r); /* far past the last */
	assert_int_equal(r.status, SYMBOLS_UNKNOWN);
}

static void test_kallsyms_hidden(void **state)
{
	struct symbols *s = *state;
	struct symbols_result r;
	char buf[64];

	assert_int_equal(symbols_set_root(s, hidden_root), 0);
	/* not loaded explicitly: the first kernel lookup reads it */
	resolve(s, 0, 0xffffffff81001015, true, &r);
	assert_true(symbols_kernel_hidden(s));
	assert_int_equal(r.status, SYMBOLS_KERNEL_HIDDEN);
	assert_string_equal(r.name, "[kernel]");
	assert_string_equal(r.module, "[kernel]");
	assert_int_equal(symbols_format(&r, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "[kernel]");

	assert_int_equal(symbols_load_kernel(s), 0);
	assert_true(symbols_kernel_hidden(s));

	/* unreadable kallsyms: an error, and ips still show as [kernel] */
	assert_int_equal(symbols_set_root(s, "/nonexistent-root"), 0);
	assert_int_equal(symbols_load_kernel(s), -ENOENT);
	assert_true(symbols_kernel_hidden(s));
	resolve(s, 0, 0xffffffff81001015, true, &r);
	assert_int_equal(r.status, SYMBOLS_KERNEL_HIDDEN);
}

static void test_maps_fixture(void **state)
{
	struct symbols *s = *state;
	struct symbols_result r;
	struct symbols_stats st;

	assert_int_equal(symbols_set_root(s, fixture_root), 0);
	assert_int_equal(symbols_process_scan(s, 4242), 0);

	/* a binary that cannot be read: module+file offset */
	resolve(s, 4242, 0x55d0c0a01234, false, &r);
	assert_int_equal(r.status, SYMBOLS_NO_SYMBOL);
	assert_string_equal(r.name, "app+0x1234");
	assert_string_equal(r.module, "app");
	assert_int_equal(r.offset, 0x1234);

	/* deleted, and gone from disk: pgoff counts */
	resolve(s, 4242, 0x7f2000000010, false, &r);
	assert_int_equal(r.status, SYMBOLS_NO_SYMBOL);
	assert_string_equal(r.name, "libgone.so+0x2010");
	assert_string_equal(r.module, "libgone.so");

	resolve(s, 4242, 0x7f3000000010, false, &r);
	assert_int_equal(r.status, SYMBOLS_NO_SYMBOL);
	assert_string_equal(r.name, "[vdso]+0x10");

	/* [stack] is not executable: no mapping, no perf map entry */
	resolve(s, 4242, 0x7ffc00000010, false, &r);
	assert_int_equal(r.status, SYMBOLS_UNKNOWN);
	assert_string_equal(r.name, "[unknown]");
	assert_string_equal(r.module, "[unknown]");

	symbols_stats(s, &st);
	assert_int_equal(st.elf_failures, 2);
	assert_int_equal(st.elf_loads, 0);
	/* a failed binary is not retried */
	resolve(s, 4242, 0x55d0c0a01000, false, &r);
	assert_string_equal(r.name, "app+0x1000");
	symbols_stats(s, &st);
	assert_int_equal(st.elf_failures, 2);
}

static void test_perf_map(void **state)
{
	struct symbols *s = *state;
	struct symbols_result r;
	struct symbols_stats st;
	char buf[128];

	assert_int_equal(symbols_set_root(s, fixture_root), 0);
	resolve(s, 4242, 0x7f1000000110, false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "LazyCompile:*fib /srv/app.js:3");
	assert_int_equal(r.offset, 0x10);
	assert_string_equal(r.module, "[jit]");
	assert_int_equal(symbols_format(&r, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "LazyCompile:*fib /srv/app.js:3+0x10");

	/* the later line for one address wins */
	resolve(s, 4242, 0x7f1000000210, false, &r);
	assert_string_equal(r.name, "Builtin: replaced");

	/* anonymous code the JIT did not describe: its 4 KB page */
	resolve(s, 4242, 0x7f1000000400, false, &r);
	assert_int_equal(r.status, SYMBOLS_NO_SYMBOL);
	assert_string_equal(r.name, "0x7f1000000000");
	assert_int_equal(r.offset, 0x400);
	assert_string_equal(r.module, "[anon]");

	/* a JIT's memfd is no ELF binary: the perf map names its code */
	resolve(s, 4242, 0x7f4000000108, false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "memfd_jit_fn");
	assert_int_equal(r.offset, 8);
	resolve(s, 4242, 0x7f4000000200, false, &r);
	assert_int_equal(r.status, SYMBOLS_NO_SYMBOL);
	assert_string_equal(r.name, "memfd:jit-code+0x200");

	/* code outside every mapping, described by the perf map */
	resolve(s, 4242, 0x7f3100000004, false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "code_outside_any_mapping");
	assert_int_equal(r.offset, 4);

	symbols_stats(s, &st);
	assert_int_equal(st.jit_loads, 1); /* misses re-check, an unchanged file is not re-read */
}

static void test_perf_map_other_namespace(void **state)
{
	struct symbols *s = *state;
	struct symbols_result r;

	/* pid 4343 is pid 7 in its own namespace and /tmp is its own */
	assert_int_equal(symbols_set_root(s, fixture_root), 0);
	resolve(s, 4343, 0x7f5000000020, false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "container_jit_fn");
	assert_int_equal(r.offset, 0x20);
}

static pid_t keep_pid; /* the process keep() wants kept, 0 none */

static bool keep(pid_t pid, void *arg)
{
	(void)arg;
	return pid == keep_pid;
}

static bool keep_all(pid_t pid, void *arg)
{
	(void)pid;
	(void)arg;
	return true;
}

/* Exited processes a caller keeps are bounded: past SYMBOLS_KEEP_EXITED the
 * longest gone are forgotten, the newest stay resolvable. */
static void test_kept_exited_bounded(void **state)
{
	struct symbols *s = *state;
	const int n = SYMBOLS_KEEP_EXITED + 40;
	struct symbols_result r;

	for (int k = 0; k < n; k++) {
		const pid_t pid = FAKE_PID + 1000 + k;

		assert_int_equal(symbols_mmap(s, pid, 0x400000, 0x1000, 0, "/nonexistent/x.out", 0, 0, 0),
		                 0);
		symbols_exit(s, pid);
		symbols_reap(s, keep_all, NULL);
	}
	for (int k = 0; k < SYMBOLS_REAP_AFTER; k++)
		symbols_reap(s, keep_all, NULL);
	resolve(s, FAKE_PID + 1000, 0x400010, false, &r);
	assert_int_equal(r.status, SYMBOLS_UNKNOWN); /* the first to exit */
	resolve(s, FAKE_PID + 1000 + 39, 0x400010, false, &r);
	assert_int_equal(r.status, SYMBOLS_UNKNOWN);
	resolve(s, FAKE_PID + 1000 + 40, 0x400010, false, &r);
	assert_string_equal(r.name, "x.out+0x10");
	resolve(s, FAKE_PID + 1000 + n - 1, 0x400010, false, &r);
	assert_string_equal(r.name, "x.out+0x10");
}

static void test_fork_exec_exit(void **state)
{
	struct symbols *s = *state;
	const pid_t a = FAKE_PID, b = FAKE_PID + 1;
	struct symbols_result r;
	struct symbols_stats st;

	assert_int_equal(symbols_mmap(s, a, 0x400000, 0x2000, 0, "/nonexistent/a.out", 0, 0, 0), 0);
	resolve(s, a, 0x400010, false, &r);
	assert_string_equal(r.name, "a.out+0x10");

	/* a later mapping punches a hole; the tail keeps its file offset */
	assert_int_equal(symbols_mmap(s, a, 0x400800, 0x100, 0x3000, "/nonexistent/b.so", 0, 0, 0),
	                 0);
	resolve(s, a, 0x400810, false, &r);
	assert_string_equal(r.name, "b.so+0x3010");
	resolve(s, a, 0x400900, false, &r);
	assert_string_equal(r.name, "a.out+0x900");
	resolve(s, a, 0x400700, false, &r);
	assert_string_equal(r.name, "a.out+0x700");

	assert_int_equal(symbols_fork(s, a, b), 0);
	resolve(s, b, 0x400810, false, &r);
	assert_string_equal(r.name, "b.so+0x3010");
	resolve(s, b, 0x400010, false, &r);
	assert_string_equal(r.name, "a.out+0x10");
	assert_int_equal(symbols_fork(s, a, a), 0); /* a thread: nothing */

	/* exec: b's old image is gone; its new one comes from MMAP */
	symbols_exec(s, b);
	resolve(s, b, 0x400010, false, &r);
	assert_int_equal(r.status, SYMBOLS_UNKNOWN);
	assert_int_equal(symbols_mmap(s, b, 0x500000, 0x1000, 0, "/nonexistent/c.out", 0, 0, 0), 0);
	resolve(s, b, 0x500020, false, &r);
	assert_string_equal(r.name, "c.out+0x20");
	resolve(s, a, 0x400010, false, &r); /* the parent is untouched */
	assert_string_equal(r.name, "a.out+0x10");

	/* exit: still resolvable for SYMBOLS_REAP_AFTER reaps (a refresh may
	 * come between the exit and the last rows), gone after */
	symbols_exit(s, a);
	resolve(s, a, 0x400010, false, &r);
	assert_string_equal(r.name, "a.out+0x10");
	for (int k = 1; k < SYMBOLS_REAP_AFTER; k++) {
		symbols_reap(s, NULL, NULL);
		symbols_exit(s, a); /* a second EXIT does not restart the grace */
		resolve(s, a, 0x400010, false, &r);
		assert_string_equal(r.name, "a.out+0x10");
	}
	/* kept while the caller still names it (its rows in the totals), however
	 * many refreshes that takes; forgotten at the first reap after */
	keep_pid = a;
	for (int k = 0; k < 5; k++) {
		symbols_reap(s, keep, NULL);
		resolve(s, a, 0x400010, false, &r);
		assert_string_equal(r.name, "a.out+0x10");
	}
	keep_pid = 0;
	symbols_reap(s, keep, NULL);
	resolve(s, a, 0x400010, false, &r);
	assert_int_equal(r.status, SYMBOLS_UNKNOWN);
	resolve(s, b, 0x500020, false, &r);
	assert_string_equal(r.name, "c.out+0x20");

	symbols_stats(s, &st);
	assert_int_equal(st.processes, 1);
	assert_int_equal(symbols_mmap(s, a, 0x1000, 0, 0, "/x", 0, 0, 0), -EINVAL);
	assert_int_equal(symbols_mmap(s, 0, 0x1000, 0x1000, 0, "/x", 0, 0, 0), -EINVAL);
}

static void test_fork_keeps_child_records(void **state)
{
	struct symbols *s = *state;
	const pid_t a = FAKE_PID, b = FAKE_PID + 1;
	struct symbols_result r;

	assert_int_equal(symbols_mmap(s, a, 0x400000, 0x2000, 0, "/nonexistent/a.out", 0, 0, 0), 0);
	/* the child's MMAP read before its FORK (another CPU's ring) */
	assert_int_equal(symbols_mmap(s, b, 0x401000, 0x1000, 0, "/nonexistent/d.so", 0, 0, 0), 0);
	assert_int_equal(symbols_fork(s, a, b), 0);
	resolve(s, b, 0x400010, false, &r);
	assert_string_equal(r.name, "a.out+0x10");
	resolve(s, b, 0x401010, false, &r);
	assert_string_equal(r.name, "d.so+0x10");

	/* an exited pid coming back in a FORK is someone new */
	symbols_exit(s, b);
	assert_int_equal(symbols_fork(s, FAKE_PID + 7, b), 0);
	resolve(s, b, 0x401010, false, &r);
	assert_int_equal(r.status, SYMBOLS_UNKNOWN);
}

struct libc_map {
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char path[PATH_MAX];
};

/* The executable mapping of libc in this process, from /proc/self/maps. */
static void find_libc(struct libc_map *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128], perms[8];
	bool found = false;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &m->start, &m->end, perms,
		           &m->pgoff, &m->maj, &m->min, &m->ino, &at) < 7 ||
		    !at || perms[2] != 'x' || !strstr(line + at, "/libc.so.6"))
			continue;
		snprintf(m->path, sizeof(m->path), "%s", line + at);
		m->path[strcspn(m->path, "\n")] = '\0';
		found = true;
	}
	fclose(f);
	assert_true(found);
}

/* A zombie's /proc/PID/maps is empty: a scan then (a lookup that missed,
 * say) must keep what was known of it, not forget every mapping. */
static void test_zombie_keeps_maps(void **state)
{
	struct symbols *s = *state;
	void *addr = libc_sym("qsort");
	struct symbols_result r;
	siginfo_t info;
	int go, status;
	pid_t pid = testutil_child_waiting(&go);

	assert_int_equal(symbols_process_scan(s, pid), 0); /* a fork: our own maps */
	resolve(s, pid, (uintptr_t)addr, false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_int_equal(write(go, "x", 1), 1);
	close(go);
	memset(&info, 0, sizeof(info));
	assert_int_equal(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT), 0); /* a zombie now */
	assert_int_not_equal(symbols_process_scan(s, pid), 0);
	resolve(s, pid, (uintptr_t)addr, false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.module, "libc.so.6");
	assert_ptr_equal(libc_sym(r.name), addr);
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

static void test_shared_binary_read_once(void **state)
{
	struct symbols *s = *state;
	void *addr = libc_sym("qsort");
	struct symbols_result r;
	struct symbols_stats st;
	struct libc_map m;
	pid_t pid;

	find_libc(&m);
	for (pid = FAKE_PID; pid < FAKE_PID + 3; pid++)
		assert_int_equal(symbols_mmap(s, pid, m.start, m.end - m.start, m.pgoff, m.path,
		                              m.maj, m.min, m.ino),
		                 0);
	assert_int_equal(symbols_fork(s, FAKE_PID, FAKE_PID + 3), 0);
	for (pid = FAKE_PID; pid < FAKE_PID + 4; pid++) {
		resolve(s, pid, (uintptr_t)addr, false, &r);
		assert_int_equal(r.status, SYMBOLS_FOUND);
		assert_string_equal(r.module, "libc.so.6");
		assert_ptr_equal(libc_sym(r.name), addr);
	}
	symbols_stats(s, &st);
	assert_int_equal(st.elf_loads, 1);
	assert_int_equal(st.binaries, 1);

	/* every process that mapped it gone, the binary stays cached */
	for (pid = FAKE_PID; pid < FAKE_PID + 4; pid++)
		symbols_exit(s, pid);
	symbols_reap(s, NULL, NULL);
	assert_int_equal(symbols_mmap(s, FAKE_PID, m.start, m.end - m.start, m.pgoff, m.path, m.maj,
	                              m.min, m.ino),
	                 0);
	resolve(s, FAKE_PID, (uintptr_t)addr, false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	symbols_stats(s, &st);
	assert_int_equal(st.elf_loads, 1);
}

static void test_deleted_binary(void **state)
{
	struct symbols *s = *state;
	void *addr = libc_sym("qsort");
	char deleted[PATH_MAX + 16];
	struct symbols_result r;
	struct libc_map m;

	find_libc(&m);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", m.path);

	/* a file at the old path with another inode is not the one mapped */
	assert_int_equal(symbols_mmap(s, FAKE_PID, m.start, m.end - m.start, m.pgoff, deleted,
	                              m.maj, m.min, m.ino + 1),
	                 0);
	resolve(s, FAKE_PID, (uintptr_t)addr, false, &r);
	assert_int_equal(r.status, SYMBOLS_NO_SYMBOL);
	assert_string_equal(r.module, "libc.so.6");
	assert_int_equal(r.offset, (uintptr_t)addr - m.start + m.pgoff);
	assert_true(!strncmp(r.name, "libc.so.6+0x", strlen("libc.so.6+0x")));

	/* the same inode still there (or through map_files): read it */
	assert_int_equal(symbols_mmap(s, FAKE_PID + 1, m.start, m.end - m.start, m.pgoff, deleted,
	                              m.maj, m.min, m.ino),
	                 0);
	resolve(s, FAKE_PID + 1, (uintptr_t)addr, false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_ptr_equal(libc_sym(r.name), addr);
}

static void test_unused_binaries_bounded(void **state)
{
	struct symbols *s = *state;
	struct symbols_stats st;
	char path[64];
	int i;

	for (i = 0; i < 200; i++) {
		snprintf(path, sizeof(path), "/nonexistent/lib%d.so", i);
		assert_int_equal(symbols_mmap(s, FAKE_PID, 0x10000 * (uint64_t)(i + 1), 0x1000, 0,
		                              path, 0, 0, 0),
		                 0);
	}
	symbols_stats(s, &st);
	assert_int_equal(st.binaries, 200);
	symbols_exit(s, FAKE_PID);
	for (i = 0; i < SYMBOLS_REAP_AFTER; i++)
		symbols_reap(s, NULL, NULL);
	symbols_stats(s, &st);
	assert_true(st.binaries > 0 && st.binaries < 200);
	assert_int_equal(st.processes, 0);
}

/* What write_elf_spec() puts in a file besides its segments. */
struct elf_spec {
	int tabs;                      /* 1 .symtab, 2 .dynsym (names prefixed "dyn_"), 3 both */
	const unsigned char *build_id; /* an NT_GNU_BUILD_ID note, when set */
	size_t build_id_len;
	const char *link; /* a .gnu_debuglink naming this file, when set */
	uint32_t link_crc;
};

/* CRC-32 as .gnu_debuglink has it (zlib's), bit by bit. */
static uint32_t crc32_of(const unsigned char *p, size_t n)
{
	uint32_t crc = 0xffffffff;

	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? 0xedb88320 ^ crc >> 1 : crc >> 1;
	}
	return ~crc;
}

/*
 * A small ELF whose text segment loads away from its file offset: file
 * bytes [0x1000, 0x3000) at vaddr 0x801000, with the symbol tables, note
 * and debug link spec asks for. Returns the CRC-32 of the file written.
 */
static uint32_t write_elf_spec(const char *path, const struct elf_spec *spec)
{
	static const char names[] = "\0func_a\0__func_a_alias\0func_b\0func_c\0data_x\0"
	                            "dyn_a\0";
	static const char shstr[] = "\0.symtab\0.strtab\0.dynsym\0.shstrtab\0"
	                            ".note.gnu.build-id\0.gnu_debuglink";
	enum { N_A = 1, N_ALIAS = 8, N_B = 23, N_C = 30, N_DATA = 37, N_DYN_A = 44 };
	enum {
		OFF_PH = 0x40,
		OFF_STR = 0x100,
		OFF_SYM = 0x140,
		OFF_DYN = 0x240,
		OFF_NOTE = 0x280,
		OFF_LINK = 0x2c0,
		OFF_SHSTR = 0x300,
		OFF_SH = 0x380,
		FILE_SIZE = 0x3000
	};
	const int tabs = spec->tabs;
	const Elf64_Sym syms[] = {
	    {0},
	    {.st_name = N_A,
	     .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
	     .st_shndx = 1,
	     .st_value = 0x801100,
	     .st_size = 0x40},
	    {.st_name = N_ALIAS,
	     .st_info = ELF64_ST_INFO(STB_LOCAL, STT_FUNC),
	     .st_shndx = 1,
	     .st_value = 0x801100,
	     .st_size = 0x40},
	    {.st_name = N_B,
	     .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
	     .st_shndx = 1,
	     .st_value = 0x801200}, /* no size: runs to func_c */
	    {.st_name = N_DATA,
	     .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
	     .st_shndx = 1,
	     .st_value = 0x801250,
	     .st_size = 8},
	    {.st_name = N_C,
	     .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_GNU_IFUNC),
	     .st_shndx = 1,
	     .st_value = 0x801300,
	     .st_size = 0x10},
	};
	const Elf64_Sym dyn[] = {
	    {0},
	    {.st_name = N_DYN_A,
	     .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
	     .st_shndx = 1,
	     .st_value = 0x801100,
	     .st_size = 0x40},
	};
	unsigned char *buf = calloc(1, FILE_SIZE);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + OFF_PH);
	Elf64_Shdr *sh = (Elf64_Shdr *)(buf + OFF_SH);
	int nsh = 0, strndx;
	uint32_t crc;
	FILE *f;

	assert_non_null(buf);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = OFF_PH;
	eh->e_shoff = OFF_SH;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 2;
	eh->e_shentsize = sizeof(*sh);
	ph[0] = (Elf64_Phdr){.p_type = PT_LOAD,
	                     .p_flags = PF_R,
	                     .p_offset = 0,
	                     .p_vaddr = 0x400000,
	                     .p_filesz = 0x1000,
	                     .p_memsz = 0x1000};
	ph[1] = (Elf64_Phdr){.p_type = PT_LOAD,
	                     .p_flags = PF_R | PF_X,
	                     .p_offset = 0x1000,
	                     .p_vaddr = 0x801000,
	                     .p_filesz = 0x2000,
	                     .p_memsz = 0x2000};
	memcpy(buf + OFF_STR, names, sizeof(names));
	memcpy(buf + OFF_SYM, syms, sizeof(syms));
	memcpy(buf + OFF_DYN, dyn, sizeof(dyn));
	memcpy(buf + OFF_SHSTR, shstr, sizeof(shstr));

	nsh++; /* the null section */
	strndx = nsh++;
	sh[strndx] = (Elf64_Shdr){.sh_name = 9,
	                          .sh_type = SHT_STRTAB,
	                          .sh_offset = OFF_STR,
	                          .sh_size = sizeof(names),
	                          .sh_addralign = 1};
	if (tabs & 1)
		sh[nsh++] = (Elf64_Shdr){.sh_name = 1,
		                         .sh_type = SHT_SYMTAB,
		                         .sh_offset = OFF_SYM,
		                         .sh_size = sizeof(syms),
		                         .sh_link = strndx,
		                         .sh_info = 1,
		                         .sh_addralign = 8,
		                         .sh_entsize = sizeof(Elf64_Sym)};
	if (tabs & 2)
		sh[nsh++] = (Elf64_Shdr){.sh_name = 17,
		                         .sh_type = SHT_DYNSYM,
		                         .sh_offset = OFF_DYN,
		                         .sh_size = sizeof(dyn),
		                         .sh_link = strndx,
		                         .sh_info = 1,
		                         .sh_addralign = 8,
		                         .sh_entsize = sizeof(Elf64_Sym)};
	if (spec->build_id) {
		Elf64_Nhdr nh = {
		    .n_namesz = 4, .n_descsz = spec->build_id_len, .n_type = NT_GNU_BUILD_ID};

		assert_true(spec->build_id_len <= OFF_LINK - OFF_NOTE - sizeof(nh) - 4);
		memcpy(buf + OFF_NOTE, &nh, sizeof(nh));
		memcpy(buf + OFF_NOTE + sizeof(nh), "GNU", 4);
		memcpy(buf + OFF_NOTE + sizeof(nh) + 4, spec->build_id, spec->build_id_len);
		sh[nsh++] =
		    (Elf64_Shdr){.sh_name = 35,
		                 .sh_type = SHT_NOTE,
		                 .sh_flags = SHF_ALLOC,
		                 .sh_offset = OFF_NOTE,
		                 .sh_size = sizeof(nh) + 4 + ((spec->build_id_len + 3) & ~3u),
		                 .sh_addralign = 4};
	}
	if (spec->link) {
		/* the name, NUL, padding to 4, the CRC (little-endian, like the file) */
		size_t at = (strlen(spec->link) + 1 + 3) & ~(size_t)3;

		assert_true(at + 4 <= OFF_SHSTR - OFF_LINK);
		memcpy(buf + OFF_LINK, spec->link, strlen(spec->link));
		memcpy(buf + OFF_LINK + at, &spec->link_crc, 4);
		sh[nsh++] = (Elf64_Shdr){.sh_name = 54,
		                         .sh_type = SHT_PROGBITS,
		                         .sh_offset = OFF_LINK,
		                         .sh_size = at + 4,
		                         .sh_addralign = 4};
	}
	sh[nsh] = (Elf64_Shdr){.sh_name = 25,
	                       .sh_type = SHT_STRTAB,
	                       .sh_offset = OFF_SHSTR,
	                       .sh_size = sizeof(shstr),
	                       .sh_addralign = 1};
	eh->e_shstrndx = nsh++;
	eh->e_shnum = nsh;

	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, FILE_SIZE, f), FILE_SIZE);
	assert_int_equal(fclose(f), 0);
	crc = crc32_of(buf, FILE_SIZE);
	free(buf);
	return crc;
}

static void write_elf(const char *path, int tabs)
{
	const struct elf_spec spec = {.tabs = tabs};

	write_elf_spec(path, &spec);
}

/* Map file bytes [0x1000, 0x3000) of path at 0x7f0000000000 in pid. */
#define ELF_MAP 0x7f0000000000ULL

static uint64_t ip_of(uint64_t vaddr)
{
	return ELF_MAP + (vaddr - 0x801000);
}

static void test_load_bias(void **state)
{
	struct symbols *s = *state;
	char dir[] = "/tmp/test_symbols.XXXXXX", path[64], gone[64];
	struct symbols_result r;
	struct symbols_stats st;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/libbias.so", dir);
	write_elf(path, 1);
	assert_int_equal(symbols_mmap(s, FAKE_PID, ELF_MAP, 0x2000, 0x1000, path, 0, 0, 0), 0);

	resolve(s, FAKE_PID, ip_of(0x801104), false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "func_a"); /* the global name of the two */
	assert_int_equal(r.offset, 4);
	assert_string_equal(r.module, "libbias.so");

	resolve(s, FAKE_PID, ip_of(0x801230), false, &r); /* sizeless; data_x is no code */
	assert_string_equal(r.name, "func_b");
	assert_int_equal(r.offset, 0x30);

	resolve(s, FAKE_PID, ip_of(0x801308), false, &r); /* an IFUNC */
	assert_string_equal(r.name, "func_c");
	assert_int_equal(r.offset, 8);

	/* past func_a's size, before func_b: no symbol, the ELF address */
	resolve(s, FAKE_PID, ip_of(0x801180), false, &r);
	assert_int_equal(r.status, SYMBOLS_NO_SYMBOL);
	assert_string_equal(r.name, "libbias.so+0x801180");
	resolve(s, FAKE_PID, ip_of(0x801310), false, &r);
	assert_int_equal(r.status, SYMBOLS_NO_SYMBOL);

	symbols_stats(s, &st);
	assert_int_equal(st.elf_loads, 1);

	/* read, then deleted: the cached symbols still serve */
	assert_int_equal(unlink(path), 0);
	resolve(s, FAKE_PID, ip_of(0x801104), false, &r);
	assert_string_equal(r.name, "func_a");

	/* .symtab beats .dynsym; .dynsym when there is no .symtab */
	snprintf(path, sizeof(path), "%s/both.so", dir);
	write_elf(path, 3);
	snprintf(gone, sizeof(gone), "%s/dynonly.so", dir);
	write_elf(gone, 2);
	assert_int_equal(symbols_mmap(s, FAKE_PID + 1, ELF_MAP, 0x2000, 0x1000, path, 0, 0, 0), 0);
	assert_int_equal(symbols_mmap(s, FAKE_PID + 2, ELF_MAP, 0x2000, 0x1000, gone, 0, 0, 0), 0);
	resolve(s, FAKE_PID + 1, ip_of(0x801104), false, &r);
	assert_string_equal(r.name, "func_a");
	resolve(s, FAKE_PID + 2, ip_of(0x801104), false, &r);
	assert_string_equal(r.name, "dyn_a");
	assert_int_equal(r.offset, 4);
	resolve(s, FAKE_PID + 2, ip_of(0x801230), false, &r);
	assert_int_equal(r.status, SYMBOLS_NO_SYMBOL);

	unlink(path);
	unlink(gone);
	rmdir(dir);
}

/* mkdir -p root/rel. */
static void make_dirs(const char *root, const char *rel)
{
	char path[PATH_MAX];
	size_t n = strlen(root);

	assert_true(snprintf(path, sizeof(path), "%s/%s", root, rel) < (int)sizeof(path));
	for (char *p = path + n + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		assert_true(!mkdir(path, 0755) || errno == EEXIST);
		*p = '/';
	}
	assert_true(!mkdir(path, 0755) || errno == EEXIST);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_tree(const char *root)
{
	assert_int_equal(nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* Write root/rel as spec says; its CRC-32. */
static uint32_t put_elf(const char *root, const char *rel, const struct elf_spec *spec)
{
	char path[PATH_MAX];

	assert_true(snprintf(path, sizeof(path), "%s/%s", root, rel) < (int)sizeof(path));
	return write_elf_spec(path, spec);
}

/* Map /rel (a path below the resolver's root) in pid; the name at vaddr. */
static void resolve_in(struct symbols *s, pid_t pid, const char *file, uint64_t vaddr,
                       struct symbols_result *r)
{
	assert_int_equal(symbols_mmap(s, pid, ELF_MAP, 0x2000, 0x1000, file, 0, 0, 0), 0);
	resolve(s, pid, ip_of(vaddr), false, r);
}

static void test_debug_file_by_build_id(void **state)
{
	/* first byte 0x0a: the directory keeps its leading zero */
	static const unsigned char id[20] = {0x0a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45,
	                                     0x67, 0x89, 0xab, 0xcd, 0xef, 0x10, 0x32,
	                                     0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe};
	static const unsigned char id2[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
	static const unsigned char id3[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x89};
	struct symbols *s = *state;
	char root[] = "/tmp/test_symbols.XXXXXX";
	const struct elf_spec bin = {.tabs = 2, .build_id = id, .build_id_len = sizeof(id)};
	const struct elf_spec dbg = {.tabs = 1, .build_id = id, .build_id_len = sizeof(id)};
	const struct elf_spec bin2 = {.tabs = 2, .build_id = id2, .build_id_len = sizeof(id2)};
	const struct elf_spec dbg3 = {.tabs = 1, .build_id = id3, .build_id_len = sizeof(id3)};
	struct symbols_result r;
	struct symbols_stats st;

	assert_non_null(mkdtemp(root));
	make_dirs(root, "opt/app");
	make_dirs(root, "usr/lib/debug/.build-id/0a");
	make_dirs(root, "usr/lib/debug/.build-id/11");
	/* stripped to .dynsym, as distributions ship them */
	put_elf(root, "opt/app/libbid.so", &bin);
	/* spelled out here, not built by the code under test */
	put_elf(root, "usr/lib/debug/.build-id/0a/bcdef00123456789abcdef1032547698badcfe.debug",
	        &dbg);
	assert_int_equal(symbols_set_root(s, root), 0);

	/* the debug file's .symtab names win over the binary's .dynsym ... */
	resolve_in(s, FAKE_PID, "/opt/app/libbid.so", 0x801104, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "func_a");
	assert_int_equal(r.offset, 4);
	assert_string_equal(r.module, "libbid.so");
	/* ... and name what only it knows, through the binary's load bias */
	resolve(s, FAKE_PID, ip_of(0x801230), false, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "func_b");
	assert_int_equal(r.offset, 0x30);
	symbols_stats(s, &st);
	assert_int_equal(st.elf_loads, 1);
	assert_int_equal(st.debug_loads, 1);
	assert_int_equal(st.binaries, 1); /* the debug file is no binary of its own */

	/* a file at a build id's path whose own note differs is someone else's */
	put_elf(root, "opt/app/libstale.so", &bin2);
	put_elf(root, "usr/lib/debug/.build-id/11/22334455667788.debug", &dbg3);
	resolve_in(s, FAKE_PID + 1, "/opt/app/libstale.so", 0x801104, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "dyn_a");
	symbols_stats(s, &st);
	assert_int_equal(st.elf_loads, 2);
	assert_int_equal(st.debug_loads, 1);

	rm_tree(root);
}

static void test_debug_file_by_link(void **state)
{
	static const struct {
		const char *bin, *dbg; /* below root */
	} where[] = {
	    {"opt/app/libbeside.so", "opt/app/libbeside.so.debug"},
	    {"opt/app/libdot.so", "opt/app/.debug/libdot.so.debug"},
	    {"opt/app/libglobal.so", "usr/lib/debug/opt/app/libglobal.so.debug"},
	};
	enum { NR_WHERE = sizeof(where) / sizeof(where[0]) };
	const struct elf_spec dbg = {.tabs = 1};
	struct symbols *s = *state;
	char root[] = "/tmp/test_symbols.XXXXXX", file[PATH_MAX];
	struct symbols_result r;
	struct symbols_stats st;
	struct elf_spec bin = {.tabs = 2};
	size_t i;

	assert_non_null(mkdtemp(root));
	make_dirs(root, "opt/app/.debug");
	make_dirs(root, "usr/lib/debug/opt/app");
	assert_int_equal(symbols_set_root(s, root), 0);

	/* beside the binary, in .debug/ there, under /usr/lib/debug/DIR/ */
	for (i = 0; i < NR_WHERE; i++) {
		bin.link = strrchr(where[i].dbg, '/') + 1;
		bin.link_crc = put_elf(root, where[i].dbg, &dbg);
		put_elf(root, where[i].bin, &bin);
		snprintf(file, sizeof(file), "/%s", where[i].bin);
		resolve_in(s, FAKE_PID + i, file, 0x801104, &r);
		assert_int_equal(r.status, SYMBOLS_FOUND);
		assert_string_equal(r.name, "func_a");
		assert_int_equal(r.offset, 4);
		assert_string_equal(r.module, strrchr(file, '/') + 1);
	}
	symbols_stats(s, &st);
	assert_int_equal(st.debug_loads, NR_WHERE);

	/* the right name with the wrong CRC: another build's debug file */
	bin.link = "libbad.so.debug";
	bin.link_crc = put_elf(root, "opt/app/libbad.so.debug", &dbg) ^ 1;
	put_elf(root, "opt/app/libbad.so", &bin);
	resolve_in(s, FAKE_PID + 10, "/opt/app/libbad.so", 0x801104, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, "dyn_a");
	resolve(s, FAKE_PID + 10, ip_of(0x801230), false, &r);
	assert_int_equal(r.status, SYMBOLS_NO_SYMBOL);

	/* a link that is a path, not a file name, is not followed */
	bin.link = "../app/libbeside.so.debug";
	bin.link_crc = put_elf(root, "opt/app/libbeside.so.debug", &dbg);
	put_elf(root, "opt/app/libpath.so", &bin);
	resolve_in(s, FAKE_PID + 11, "/opt/app/libpath.so", 0x801104, &r);
	assert_string_equal(r.name, "dyn_a");

	symbols_stats(s, &st);
	assert_int_equal(st.debug_loads, NR_WHERE);
	assert_int_equal(st.elf_loads, NR_WHERE + 2);
	rm_tree(root);
}

/* ---- kallsyms written by the tests ---- */

/* Core kernel in address order, then modules: what kallsyms looks like. */
static const char ksyms_sorted[] = "ffffffff81000000 T _stext\n"
                                   "ffffffff81000000 T startup_64\n"
                                   "ffffffff81000100 t __pfx_do_thing\n"
                                   "ffffffff81000110 t __do_thing_alias\n"
                                   "ffffffff81000110 T do_thing\n"
                                   "ffffffff81000200 W weak_fn\n"
                                   "ffffffff81000280 D some_data\n"
                                   "ffffffff81000300 T schedule\n"
                                   "ffffffff81000400 T _etext\n"
                                   "ffffffffc0001000 t ext4_fill_super\t[ext4]\n"
                                   "ffffffffc0003000 t ext4_sync_fs\t[ext4]\n"
                                   "ffffffffc0003040 T xfs_foo\t[xfs]\n"
                                   "ffffffffc0003080 t xfs_bar\t[xfs]\n"
                                   "ffffffffc0200000 t bpf_prog_1234_foo\t[bpf]\n";

/* The same lines out of order: modules first (each still in one run),
 * core symbols before and after them, aliases apart. */
static const char ksyms_shuffled[] = "ffffffff81000300 T schedule\n"
                                     "ffffffff81000110 T do_thing\n"
                                     "ffffffff81000000 T startup_64\n"
                                     "ffffffffc0200000 t bpf_prog_1234_foo\t[bpf]\n"
                                     "ffffffffc0003080 t xfs_bar\t[xfs]\n"
                                     "ffffffffc0003040 T xfs_foo\t[xfs]\n"
                                     "ffffffffc0003000 t ext4_sync_fs\t[ext4]\n"
                                     "ffffffffc0001000 t ext4_fill_super\t[ext4]\n"
                                     "ffffffff81000400 T _etext\n"
                                     "ffffffff81000280 D some_data\n"
                                     "ffffffff81000200 W weak_fn\n"
                                     "ffffffff81000110 t __do_thing_alias\n"
                                     "ffffffff81000100 t __pfx_do_thing\n"
                                     "ffffffff81000000 T _stext\n";

/* Write len bytes of text as root/proc/kallsyms and read it (its buffer
 * bufsize bytes, 0: the default); the load's result. */
static int load_kallsyms(struct symbols *s, const char *root, const char *text, size_t len,
                         size_t bufsize)
{
	char path[PATH_MAX];
	FILE *f;

	make_dirs(root, "proc");
	assert_true(snprintf(path, sizeof(path), "%s/proc/kallsyms", root) < (int)sizeof(path));
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(symbols_set_root(s, root), 0);
	symbols_set_kallsyms_buffer(s, bufsize);
	return symbols_load_kernel(s);
}

/* What a kernel ip resolves to, as one comparable string. */
static void kernel_label(struct symbols *s, uint64_t ip, char *buf, size_t len)
{
	struct symbols_result r;

	resolve(s, 0, ip, true, &r);
	snprintf(buf, len, "%d %s+0x%" PRIx64 " %s", (int)r.status, r.name, r.offset, r.module);
}

enum { NR_PROBES = 14 * 8, LABEL_MAX = SYMBOLS_NAME_MAX + SYMBOLS_MODULE_MAX + 64 };

/* Addresses around every symbol of ksyms_sorted. */
static void ksyms_probes(uint64_t *ips)
{
	static const int64_t delta[8] = {-1, 0, 1, 0x3f, 0x40, 0xfff, 0x1000, 0x1001};
	const char *line = ksyms_sorted;
	size_t n = 0;

	for (; *line; line = strchr(line, '\n') + 1) {
		uint64_t a = strtoull(line, NULL, 16);

		for (size_t i = 0; i < 8; i++)
			ips[n++] = a + delta[i];
	}
	assert_int_equal(n, NR_PROBES);
}

/* Labels of the probes, from what s has loaded. */
static void ksyms_labels(struct symbols *s, char (*labels)[LABEL_MAX])
{
	uint64_t ips[NR_PROBES];

	ksyms_probes(ips);
	for (size_t i = 0; i < NR_PROBES; i++)
		kernel_label(s, ips[i], labels[i], sizeof(labels[i]));
}

static void assert_kernel(struct symbols *s, uint64_t ip, const char *name, uint64_t offset,
                          const char *module)
{
	struct symbols_result r;

	resolve(s, 0, ip, true, &r);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, name);
	assert_int_equal(r.offset, offset);
	assert_string_equal(r.module, module);
}

static void assert_kernel_unknown(struct symbols *s, uint64_t ip)
{
	struct symbols_result r;

	resolve(s, 0, ip, true, &r);
	assert_int_equal(r.status, SYMBOLS_UNKNOWN);
	assert_string_equal(r.module, "[kernel]");
}

static void test_kallsyms_modules(void **state)
{
	struct symbols *s = *state;
	char root[] = "/tmp/test_symbols.XXXXXX";
	struct symbols_stats st;

	assert_non_null(mkdtemp(root));
	assert_int_equal(load_kallsyms(s, root, ksyms_sorted, strlen(ksyms_sorted), 0), 0);
	symbols_stats(s, &st);
	assert_int_equal(st.kernel_symbols, 11); /* text only, aliases merged */

	assert_kernel(s, 0xffffffff81000004, "startup_64", 4, "[kernel]");
	assert_kernel(s, 0xffffffff81000115, "do_thing", 5, "[kernel]");
	assert_kernel(s, 0xffffffff81000290, "weak_fn", 0x90, "[kernel]"); /* not some_data */
	/* the last core symbol ends SYM_TAIL (4096) after its start */
	assert_kernel(s, 0xffffffff810013ff, "_etext", 0xfff, "[kernel]");
	assert_kernel_unknown(s, 0xffffffff81001400);

	/* a module's symbols end where the next one starts ... */
	assert_kernel(s, 0xffffffffc0002fff, "ext4_fill_super", 0x1fff, "[ext4]");
	/* ... its last one where the next module starts, if that is closer */
	assert_kernel(s, 0xffffffffc000303f, "ext4_sync_fs", 0x3f, "[ext4]");
	assert_kernel(s, 0xffffffffc0003040, "xfs_foo", 0, "[xfs]");
	/* else SYM_TAIL after its start, not up to the next module */
	assert_kernel(s, 0xffffffffc000407f, "xfs_bar", 0xfff, "[xfs]");
	assert_kernel_unknown(s, 0xffffffffc0004080);
	assert_kernel_unknown(s, 0xffffffffc01fffff);
	assert_kernel(s, 0xffffffffc0200010, "bpf_prog_1234_foo", 0x10, "[bpf]");
	assert_kernel_unknown(s, 0xffffffffc0201000);
	assert_kernel_unknown(s, 0xffffffff80ffffff);
	rm_tree(root);
}

static void test_kallsyms_out_of_order(void **state)
{
	struct symbols *s = *state;
	char root[] = "/tmp/test_symbols.XXXXXX";
	static char sorted[NR_PROBES][LABEL_MAX], shuffled[NR_PROBES][LABEL_MAX];
	struct symbols_stats st;

	assert_non_null(mkdtemp(root));
	assert_int_equal(load_kallsyms(s, root, ksyms_sorted, strlen(ksyms_sorted), 0), 0);
	ksyms_labels(s, sorted);
	/* reloaded into the same resolver: nothing of the first table stays */
	assert_int_equal(load_kallsyms(s, root, ksyms_shuffled, strlen(ksyms_shuffled), 0), 0);
	symbols_stats(s, &st);
	assert_int_equal(st.kernel_symbols, 11);
	ksyms_labels(s, shuffled);
	for (size_t i = 0; i < NR_PROBES; i++)
		assert_string_equal(shuffled[i], sorted[i]);
	assert_kernel(s, 0xffffffff81000000, "startup_64", 0, "[kernel]");
	assert_kernel(s, 0xffffffff81000111, "do_thing", 1, "[kernel]");
	assert_kernel(s, 0xffffffffc0002fff, "ext4_fill_super", 0x1fff, "[ext4]");
	assert_kernel(s, 0xffffffffc000303f, "ext4_sync_fs", 0x3f, "[ext4]");
	rm_tree(root);
}

static void test_kallsyms_split_reads(void **state)
{
	struct symbols *s = *state;
	char root[] = "/tmp/test_symbols.XXXXXX";
	static char whole[NR_PROBES][LABEL_MAX], split[NR_PROBES][LABEL_MAX];
	size_t len = strlen(ksyms_sorted), bufsize;
	struct symbols_stats st;

	assert_non_null(mkdtemp(root));
	assert_int_equal(load_kallsyms(s, root, ksyms_sorted, len, 0), 0);
	ksyms_labels(s, whole);
	/* every line fits in 48 bytes; the reads split them everywhere */
	for (bufsize = 48; bufsize <= len + 1; bufsize++) {
		assert_int_equal(load_kallsyms(s, root, ksyms_sorted, len, bufsize), 0);
		symbols_stats(s, &st);
		assert_int_equal(st.kernel_symbols, 11);
		ksyms_labels(s, split);
		for (size_t i = 0; i < NR_PROBES; i++)
			assert_string_equal(split[i], whole[i]);
	}
	rm_tree(root);
}

static void test_kallsyms_long_line(void **state)
{
	/* Read 32 bytes at a time, the second line fills the buffer with its
	 * first 32 bytes; what follows in it looks like a line of its own. */
	static const char text[] = "ffffffff81000000 T first\n"
	                           "ffffffff81000100 T long_name_xyz"
	                           "ffffffff81000180 T bogus\n"
	                           "ffffffff81000200 T last\n";
	struct symbols *s = *state;
	char root[] = "/tmp/test_symbols.XXXXXX";
	struct symbols_stats st;

	assert_non_null(mkdtemp(root));
	/* a line longer than the buffer is skipped, all of it and only it */
	assert_int_equal(load_kallsyms(s, root, text, strlen(text), 32), 0);
	symbols_stats(s, &st);
	assert_int_equal(st.kernel_symbols, 2);
	assert_kernel(s, 0xffffffff81000184, "first", 0x184, "[kernel]");
	assert_kernel(s, 0xffffffff81000204, "last", 4, "[kernel]");
	/* a name ends at a space */
	assert_int_equal(load_kallsyms(s, root, text, strlen(text), 0), 0);
	assert_kernel(s, 0xffffffff81000184, "long_name_xyzffffffff81000180", 0x84, "[kernel]");
	rm_tree(root);
}

static void test_kallsyms_aliases(void **state)
{
	/* pairs of names for one address; the one kept comes first */
	static const char *const pairs[][2] = {
	    {"T global_one", "t local_one"},   /* non-local over local */
	    {"W __weak_two", "t local_two"},   /* even with more underscores */
	    {"T _one_under", "T __two_under"}, /* fewer leading underscores */
	    {"T strong", "W weak"},            /* global over weak */
	    {"T _aaa", "W zzz"},               /* global over weak first (perf's order) */
	    {"T shorter", "T short"},          /* the longer name (perf's) */
	    {"T abc", "T abd"},                /* then the first in strcmp order */
	};
	enum { NR_PAIRS = sizeof(pairs) / sizeof(pairs[0]) };
	struct symbols *s = *state;
	char root[] = "/tmp/test_symbols.XXXXXX", text[1024];
	struct symbols_stats st;

	assert_non_null(mkdtemp(root));
	for (int order = 0; order < 2; order++) {
		size_t n = 0;

		for (size_t i = 0; i < NR_PAIRS; i++)
			for (int k = 0; k < 2; k++)
				n += snprintf(text + n, sizeof(text) - n, "%016" PRIx64 " %s\n",
				              UINT64_C(0xffffffff81000000) + 0x100 * i,
				              pairs[i][k ^ order]);
		assert_true(n < sizeof(text));
		assert_int_equal(load_kallsyms(s, root, text, n, 0), 0);
		symbols_stats(s, &st);
		assert_int_equal(st.kernel_symbols, NR_PAIRS);
		for (size_t i = 0; i < NR_PAIRS; i++)
			assert_kernel(s, UINT64_C(0xffffffff81000000) + 0x100 * i + 8,
			              pairs[i][0] + 2, 8, "[kernel]");
	}
	rm_tree(root);
}

static void test_kallsyms_control_bytes(void **state)
{
	static const char text[] = "ffffffffc0002000 t ctl\001name\177\t[m\033od]\n"
	                           "ffffffffc0004000 t second\t[m\033od]\n"
	                           "ffffffffc0004100 t\ttabbed\n";
	struct symbols *s = *state;
	char root[] = "/tmp/test_symbols.XXXXXX";
	struct symbols_stats st;

	assert_non_null(mkdtemp(root));
	assert_int_equal(load_kallsyms(s, root, text, strlen(text), 0), 0);
	symbols_stats(s, &st);
	assert_int_equal(st.kernel_symbols, 2); /* "t\ttabbed" is malformed */
	/* one module: the first symbol ends where the second starts. Names
	 * are kept as they are: every renderer cleans them (untrusted.h). */
	assert_kernel(s, 0xffffffffc0003fff, "ctl\001name\177", 0x1fff, "[m\033od]");
	assert_kernel(s, 0xffffffffc0004000, "second", 0, "[m\033od]");
	assert_kernel(s, 0xffffffffc0004100, "second", 0x100, "[m\033od]");
	rm_tree(root);
}

static void test_kallsyms_last_line(void **state)
{
	static const char text[] = "ffffffff81000000 T first\n"
	                           "ffffffff81000100 T last_fn"; /* no newline */
	static const size_t bufsize[] = {0, 32, 40}; /* the default; the last line split */
	struct symbols *s = *state;
	char root[] = "/tmp/test_symbols.XXXXXX";
	struct symbols_stats st;

	assert_non_null(mkdtemp(root));
	for (size_t i = 0; i < sizeof(bufsize) / sizeof(bufsize[0]); i++) {
		assert_int_equal(load_kallsyms(s, root, text, strlen(text), bufsize[i]), 0);
		symbols_stats(s, &st);
		assert_int_equal(st.kernel_symbols, 2);
		assert_kernel(s, 0xffffffff81000104, "last_fn", 4, "[kernel]");
	}
	rm_tree(root);
}

static void test_kallsyms_empty(void **state)
{
	struct symbols *s = *state;
	char root[] = "/tmp/test_symbols.XXXXXX";
	struct symbols_result r;
	struct symbols_stats st;

	assert_non_null(mkdtemp(root));
	/* no address shown: as hidden, like all-zero addresses */
	assert_int_equal(load_kallsyms(s, root, "", 0, 0), 0);
	assert_true(symbols_kernel_hidden(s));
	symbols_stats(s, &st);
	assert_int_equal(st.kernel_symbols, 0);
	resolve(s, 0, 0xffffffff81000000, true, &r);
	assert_int_equal(r.status, SYMBOLS_KERNEL_HIDDEN);

	/* addresses but no code: read, and nothing resolves */
	assert_int_equal(load_kallsyms(s, root, "ffffffff81000000 D data\n", 24, 0), 0);
	assert_false(symbols_kernel_hidden(s));
	assert_kernel_unknown(s, 0xffffffff81000000);
	rm_tree(root);
}

static void test_format(void **state)
{
	struct symbols_result r = {.status = SYMBOLS_FOUND, .offset = 0, .name = "main"};
	char buf[32], tiny[6];

	assert_int_equal(symbols_format(&r, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "main");
	r.offset = 0x1f;
	assert_int_equal(symbols_format(&r, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "main+0x1f");
	assert_int_equal(symbols_format(&r, tiny, sizeof(tiny)), -ENOSPC);
	assert_string_equal(tiny, "main+");

	r = (struct symbols_result){
	    .status = SYMBOLS_NO_SYMBOL, .offset = 0x10, .name = "x.so+0x10"};
	assert_int_equal(symbols_format(&r, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "x.so+0x10");
	r = (struct symbols_result){.status = SYMBOLS_UNKNOWN, .name = "[unknown]"};
	assert_int_equal(symbols_format(&r, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "[unknown]");
}

int main(void)
{
	const char *fx = testutil_fixtures();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_own_static_function, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_libc_functions, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_zombie_keeps_maps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_live_kernel, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kallsyms_fixture, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kallsyms_hidden, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kallsyms_modules, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kallsyms_out_of_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kallsyms_split_reads, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kallsyms_long_line, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kallsyms_aliases, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kallsyms_control_bytes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kallsyms_last_line, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kallsyms_empty, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_maps_fixture, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_perf_map, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_perf_map_other_namespace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kept_exited_bounded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fork_exec_exit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fork_keeps_child_records, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shared_binary_read_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_deleted_binary, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_load_bias, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unused_binaries_bounded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_debug_file_by_build_id, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_debug_file_by_link, setup, teardown),
	    cmocka_unit_test(test_format),
	};

	/* test_live_kernel reads the real kallsyms: not into ~/.cache
	 * (test_ksym_cache tests the cache) */
	setenv("PFMTOP_NO_KSYM_CACHE", "1", 1);
	snprintf(fixture_root, sizeof(fixture_root), "%s/symbols/root", fx);
	snprintf(hidden_root, sizeof(hidden_root), "%s/symbols/hidden", fx);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
