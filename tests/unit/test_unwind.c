/* test_unwind: DWARF unwinding of a stack captured from this very process, as a fake sample. */
#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols.h"
#include "unwind.h"

#define STACK_COPY 8192

/* What a REGS_USER + STACK_USER sample of this thread would carry. */
struct capture {
	uint64_t regs[8]; /* UNWIND_REGS_MASK order: bx, bp, sp, ip, r12, r13, r14, r15 */
	unsigned char stack[STACK_COPY];
	uint64_t stack_size;
};

/* The highest address of this thread's stack mapping. */
static uint64_t stack_top(uint64_t sp)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t top = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (sscanf(line, "%llx-%llx", &a, &b) == 2 && sp >= a && sp < b)
			top = b;
	}
	fclose(f);
	return top;
}

/* A copy of this thread's own stack, redzones of ASan's included (the
 * kernel copies them too): not through the intercepted memcpy. */
__attribute__((no_sanitize_address, noinline)) static void copy_stack(unsigned char *to,
								      uint64_t from, uint64_t n)
{
	const volatile unsigned char *p = (const volatile unsigned char *)(uintptr_t)from;

	for (uint64_t i = 0; i < n; i++)
		to[i] = p[i];
}

/* Registers at the asm, then the stack from that sp up: like the kernel's
 * copy at a sample, of the frames of take() and its callers. */
__attribute__((noinline)) static void take(struct capture *c)
{
	uint64_t *r = c->regs;
	uint64_t top, sp;

#if !defined(__x86_64__)
	(void)r, (void)top, (void)sp;
	skip(); /* --call-graph dwarf is x86-64 only */
#else
	__asm__ volatile("movq %%rbx, 0(%0)\n\t"
			 "movq %%rbp, 8(%0)\n\t"
			 "movq %%rsp, 16(%0)\n\t"
			 "leaq 0(%%rip), %%rax\n\t"
			 "movq %%rax, 24(%0)\n\t"
			 "movq %%r12, 32(%0)\n\t"
			 "movq %%r13, 40(%0)\n\t"
			 "movq %%r14, 48(%0)\n\t"
			 "movq %%r15, 56(%0)\n\t"
			 :
			 : "r"(r)
			 : "rax", "memory");
	sp = r[2];
	top = stack_top(sp);
	assert_true(top > sp);
	c->stack_size = top - sp < STACK_COPY ? top - sp : STACK_COPY;
	copy_stack(c->stack, sp, c->stack_size);
#endif
}

/* Two callers of distinct names between the test and the capture. */
__attribute__((noinline)) static void unwind_test_inner(struct capture *c)
{
	take(c);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) static void unwind_test_outer(struct capture *c)
{
	unwind_test_inner(c);
	__asm__ volatile("" ::: "memory");
}

static struct unwind_sample sample_of(const struct capture *c)
{
	return (struct unwind_sample){
		.pid = getpid(),
		.tid = (pid_t)syscall(SYS_gettid),
		.abi = PERF_SAMPLE_REGS_ABI_64,
		.mask = UNWIND_REGS_MASK,
		.regs = c->regs,
		.nr_regs = 8,
		.stack = c->stack,
		.stack_size = c->stack_size,
	};
}

struct fixture {
	struct symbols *sym;
	struct unwind *u;
	struct capture *cap;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->sym = symbols_new();
	assert_non_null(f->sym);
	assert_int_equal(symbols_process_scan(f->sym, getpid()), 0);
	f->u = unwind_new(f->sym);
	assert_non_null(f->u);
	f->cap = calloc(1, sizeof(*f->cap));
	assert_non_null(f->cap);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	unwind_free(f->u);
	symbols_free(f->sym);
	free(f->cap);
	free(f);
	return 0;
}

/* The index of the first frame named name at or after from, or -1. */
static int find_frame(struct symbols *sym, const uint64_t *ips, int n, int from, const char *name)
{
	for (int i = from; i < n; i++) {
		struct symbols_result r;

		assert_int_equal(symbols_resolve(sym, getpid(), ips[i], false, &r), 0);
		if (r.status == SYMBOLS_FOUND && !strcmp(r.name, name))
			return i;
	}
	return -1;
}

static void test_own_stack(void **state)
{
	struct fixture *f = *state;
	uint64_t ips[64];
	struct unwind_stats st;
	int n, at;

	unwind_test_outer(f->cap);
	struct unwind_sample smp = sample_of(f->cap);
	n = unwind_sample(f->u, &smp, ips, 64);
	assert_true(n >= 4);
	assert_int_equal(ips[0], f->cap->regs[3]);
	at = find_frame(f->sym, ips, n, 0, "take");
	assert_int_equal(at, 0);
	at = find_frame(f->sym, ips, n, at, "unwind_test_inner");
	assert_true(at > 0);
	at = find_frame(f->sym, ips, n, at, "unwind_test_outer");
	assert_true(at > 0);
	at = find_frame(f->sym, ips, n, at, "test_own_stack");
	assert_true(at > 0);
	/* through cmocka's runner (a library built without frame pointers) */
	at = find_frame(f->sym, ips, n, at, "main");
	assert_true(at > 0);

	/* Again: the process's unwinder is kept, not built again. */
	n = unwind_sample(f->u, &smp, ips, 64);
	assert_true(n >= 4);
	unwind_get_stats(f->u, &st);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.dwfl_new, 1);
	assert_true(st.modules >= 2); /* the test binary and libc at least */

	/* A bound on the depth is kept. */
	assert_int_equal(unwind_sample(f->u, &smp, ips, 2), 2);
	assert_int_equal(unwind_sample(f->u, &smp, ips, 0), 0);

	/* Forgotten (exec, exit): built again on the next sample. */
	unwind_forget(f->u, getpid());
	assert_true(unwind_sample(f->u, &smp, ips, 64) >= 4);
	unwind_get_stats(f->u, &st);
	assert_int_equal(st.dwfl_new, 2);
}

static void test_partial_and_garbage(void **state)
{
	struct fixture *f = *state;
	uint64_t ips[64];
	int n;

	unwind_test_outer(f->cap);
	struct unwind_sample smp = sample_of(f->cap);

	/* No stack at all: the sampled ip, perhaps a frame more, no crash. */
	smp.stack_size = 0;
	n = unwind_sample(f->u, &smp, ips, 64);
	assert_true(n >= 1 && n <= 2);
	assert_int_equal(ips[0], f->cap->regs[3]);

	/* A stack cut short keeps the frames found before the cut. */
	smp.stack_size = 16;
	n = unwind_sample(f->u, &smp, ips, 64);
	assert_true(n >= 1);

	/* Garbage on the stack and in the registers: bounded, no crash. */
	for (size_t i = 0; i < sizeof(f->cap->stack); i++)
		f->cap->stack[i] = (unsigned char)(i * 131 + 7);
	smp.stack_size = sizeof(f->cap->stack);
	n = unwind_sample(f->u, &smp, ips, 64);
	assert_true(n >= 1 && n <= 64);
	f->cap->regs[3] = 0x10; /* an ip in no mapping */
	n = unwind_sample(f->u, &smp, ips, 64);
	assert_true(n >= 1); /* libdw may still try rbp as a frame pointer */
	assert_int_equal(ips[0], 0x10);

	/* No user registers (a kernel thread), a 32-bit task, a short mask. */
	smp.abi = PERF_SAMPLE_REGS_ABI_NONE;
	assert_int_equal(unwind_sample(f->u, &smp, ips, 64), 0);
	smp.abi = PERF_SAMPLE_REGS_ABI_32;
	assert_int_equal(unwind_sample(f->u, &smp, ips, 64), 0);
	smp.abi = PERF_SAMPLE_REGS_ABI_64;
	smp.nr_regs = 3; /* sp is there, ip is not */
	assert_int_equal(unwind_sample(f->u, &smp, ips, 64), 0);

	/* A process nothing is known of: the ip alone. */
	smp = sample_of(f->cap);
	smp.pid = smp.tid = 0x3fffffff;
	assert_int_equal(unwind_sample(f->u, &smp, ips, 64), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_own_stack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_and_garbage, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
