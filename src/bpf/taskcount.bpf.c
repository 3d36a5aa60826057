/* taskcount.bpf.c: at every context switch, charge the outgoing task with
 * what the CPU's counters counted since the previous switch on that CPU. */
/* linux/bpf.h first: bpf_helpers.h needs its types. */
#include <linux/bpf.h>

#include <bpf/bpf_helpers.h>

#include "taskcount.h"

/* Set by the loader before load (.rodata). */
const volatile unsigned int nr_cpus = 1;
const volatile unsigned int nr_events = 0;

/* Per-CPU counters: event E on CPU C at index E * nr_cpus + C. Sized by
 * the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(unsigned int));
	__uint(value_size, sizeof(unsigned int));
	__uint(max_entries, 1);
} counters SEC(".maps");

/* Each CPU's readings at its last switch. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, unsigned int);
	__type(value, struct taskcount_counts);
} last SEC(".maps");

/* What could not go to a task row: the idle task's slices, and slices of
 * tasks that found the map full. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TASKCOUNT_SPILL_N);
	__type(key, unsigned int);
	__type(value, struct taskcount_counts);
} spill SEC(".maps");

/* Cumulative counts per task. max_entries is set by the loader; entries
 * are allocated when a task first switches out and deleted by userspace. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct taskcount_key);
	__type(value, struct taskcount_task);
} tasks SEC(".maps");

/* A zeroed entry to insert from (too big for the stack beside the rest). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, unsigned int);
	__type(value, struct taskcount_task);
} blank SEC(".maps");

static __always_inline void add(struct taskcount_counts *to, const struct taskcount_counts *d)
{
#pragma unroll
	for (int i = 0; i < TASKCOUNT_MAX_EVENTS; i++) {
		to->value[i] += d->value[i];
		to->enabled[i] += d->enabled[i];
		to->running[i] += d->running[i];
	}
}

/* Charge the current task with what the CPU counted since the last time
 * (switch or exec) on this CPU; at_exec: it is exec'ing, remember its
 * counts so far. */
#define TASKCOUNT_TASK_DEAD 0x80 /* include/linux/sched.h */

static __always_inline int charge(int at_exec, unsigned long long prev_state)
{
	unsigned int zero = 0, cpu = bpf_get_smp_processor_id();
	struct taskcount_counts *prev = bpf_map_lookup_elem(&last, &zero), d = {};
	struct taskcount_task *t;
	struct taskcount_key key = {};
	unsigned long long id;

	if (!prev)
		return 0;
#pragma unroll
	for (int i = 0; i < TASKCOUNT_MAX_EVENTS; i++) {
		struct bpf_perf_event_value v;

		if (i >= nr_events)
			break;
		if (bpf_perf_event_read_value(&counters, i * nr_cpus + cpu, &v, sizeof(v)))
			continue;
		d.value[i] = v.counter - prev->value[i];
		d.enabled[i] = v.enabled - prev->enabled[i];
		d.running[i] = v.running - prev->running[i];
		prev->value[i] = v.counter;
		prev->enabled[i] = v.enabled;
		prev->running[i] = v.running;
	}
	id = bpf_get_current_pid_tgid();
	key.tid = (unsigned int)id;
	if (key.tid == 0) {
		unsigned int k = TASKCOUNT_SPILL_IDLE;
		struct taskcount_counts *s = bpf_map_lookup_elem(&spill, &k);

		if (s)
			add(s, &d);
		return 0;
	}
	key.task = (unsigned long long)bpf_get_current_task();
	t = bpf_map_lookup_elem(&tasks, &key);
	if (!t) {
		struct taskcount_task *b = bpf_map_lookup_elem(&blank, &zero);

		if (b) {
			b->tgid = (unsigned int)(id >> 32);
			b->first_ns = bpf_ktime_get_boot_ns();
			bpf_map_update_elem(&tasks, &key, b, BPF_NOEXIST);
			t = bpf_map_lookup_elem(&tasks, &key);
		}
	}
	if (!t) {
		unsigned int k = TASKCOUNT_SPILL_DROPPED;
		struct taskcount_counts *s = bpf_map_lookup_elem(&spill, &k);

		if (s)
			add(s, &d);
		return 0;
	}
	add(&t->c, &d);
	if (at_exec) {
		t->execs++;
		t->exec_c = t->c;
	} else {
		t->slices++;
		t->dead = (prev_state & TASKCOUNT_TASK_DEAD) != 0;
	}
	bpf_get_current_comm(t->comm, sizeof(t->comm));
	return 0;
}

/* Still the outgoing task here: sched_switch fires before the switch (and
 * before its context-switches count). Its arguments: preempt, prev, next,
 * prev_state (since Linux 5.18). */
SEC("raw_tracepoint/sched_switch")
int taskcount_switch(struct bpf_raw_tracepoint_args *ctx)
{
	return charge(0, ctx->args[3]);
}

/* The new image is loaded: what came before is the exec'ing program's. */
SEC("raw_tracepoint/sched_process_exec")
int taskcount_exec(void *ctx)
{
	return charge(1, 0);
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
