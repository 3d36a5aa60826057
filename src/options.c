/* options: the command line, parsed into a plain struct. */
#include "options.h"

#include "hotkeys.h"
#include "httpd.h"
#include "timeline.h"
#include "unwind.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const options_view_names[OPTIONS_NR_VIEWS] = {"overview", "cpus", "tasks", "hotspots",
                                                          "events"};

/* An argument for a message: quoted, a long one cut short (see util_quote_elided). */
#define ARG_SHOWN  48
#define QUOTED_MAX (ARG_SHOWN + 32)

static const char *quoted(char *buf, const char *arg)
{
	return util_quote_elided(buf, QUOTED_MAX, arg, ARG_SHOWN, NULL);
}

/* The one sentence of a usage error into err; -EINVAL, for the handlers to
 * return. */
__attribute__((format(printf, 3, 4))) static int refuse(char *err, size_t errlen, const char *fmt,
                                                        ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The items of a comma list, each passed to fn; an empty item ("1,",
 * ",1", "1,,2") is refused. 0, -EINVAL (empty item), or fn's error. */
static int for_each_item(const char *arg, int (*fn)(const char *item, void *ctx), void *ctx)
{
	char buf[4096];
	const char *p = arg;

	for (;;) {
		size_t n = strcspn(p, ",");

		if (!n || n >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, p, n);
		buf[n] = '\0';
		int ret = fn(buf, ctx);
		if (ret)
			return ret;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* What an item of -p or --cgroup is added to, and where its error goes. */
struct list_ctx {
	struct session_config *c;
	char *err;
	size_t errlen;
};

static int add_pid(const char *tok, void *arg)
{
	struct list_ctx *x = arg;
	struct session_config *c = x->c;
	char q[QUOTED_MAX];
	long pid;

	if (util_parse_long(tok, 1, INT_MAX, &pid))
		return refuse(x->err, x->errlen, "-p: %s is not a process ID; give PID[,PID...]",
		              quoted(q, tok));
	for (int i = 0; i < c->nr_pids; i++)
		if (c->pids[i] == (pid_t)pid)
			return 0; /* counted once */
	if (c->nr_pids == (int)ARRAY_SIZE(c->pids))
		return refuse(x->err, x->errlen, "-p: at most %zu processes", ARRAY_SIZE(c->pids));
	c->pids[c->nr_pids++] = (pid_t)pid;
	return 0;
}

static int add_cgroup(const char *tok, void *arg)
{
	struct list_ctx *x = arg;
	struct session_config *c = x->c;

	if (!strcmp(tok, "auto")) {
		c->cgroup_auto = true;
		return 0;
	}
	for (int i = 0; i < c->nr_cgroups; i++)
		if (!strcmp(c->cgroups[i], tok))
			return 0;
	if (strlen(tok) >= sizeof(c->cgroups[0]))
		return refuse(x->err, x->errlen, "--cgroup: a path longer than %zu characters",
		              sizeof(c->cgroups[0]) - 1);
	if (c->nr_cgroups == (int)ARRAY_SIZE(c->cgroups))
		return refuse(x->err, x->errlen, "--cgroup: at most %zu cgroups",
		              ARRAY_SIZE(c->cgroups));
	util_strlcpy(c->cgroups[c->nr_cgroups++], tok, sizeof(c->cgroups[0]));
	return 0;
}

/* -e: the reason first, then where: the list with a caret under the
 * column, as preset errors show it (a list too long for a line, or with
 * bytes that are not plain text, gets its column named instead). */
static void events_error(const char *arg, const char *perr, char *err, size_t errlen)
{
	char q[QUOTED_MAX + 32];
	int col = 0, used = 0;

	util_quote_elided(q, sizeof(q), arg, ARG_SHOWN, "events");
	if (sscanf(perr, "column %d: %n", &col, &used) >= 1 && used > 0 && col > 0 &&
	    snprintf(err, errlen, "-e: %s (column %d)", perr + used, col) < (int)errlen &&
	    !events_caret(err, errlen, arg, (size_t)col - 1, 1))
		return;
	if (used > 0)
		snprintf(err, errlen, "-e: %s (column %d of %s)", perr + used, col, q);
	else
		snprintf(err, errlen, "-e: %s (in %s)", perr, q);
}

/*
 * The handlers: one per option, called with its argument (NULL if it has
 * none) in the order given. Each returns 0, OPT_DONE when nothing after it
 * is to be read (-h, -V), or -EINVAL with one sentence in err. What needs
 * the whole command line (conflicts, defaults) waits for options_finish().
 */
#define OPT_DONE 1

static int opt_batch(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->batch = true;
	return 0;
}

static int opt_delay(struct options *o, const char *arg, char *err, size_t errlen)
{
	char q[QUOTED_MAX];

	if (util_parse_seconds(arg, &o->session.interval_ns))
		return refuse(
		    err, errlen,
		    "-d: %s is not a delay; give seconds between 0.01 and 86400, e.g. -d 0.5",
		    quoted(q, arg));
	o->delay_given = true;
	return 0;
}

static int opt_iterations(struct options *o, const char *arg, char *err, size_t errlen)
{
	char q[QUOTED_MAX];
	long v;

	if (util_parse_long(arg, 1, INT_MAX, &v))
		return refuse(err, errlen, "-n: %s is not a positive count", quoted(q, arg));
	o->iterations = (int)v;
	return 0;
}

static int opt_output(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->output = arg;
	return 0;
}

/* --append and --force: what becomes of -o FILE's old content; one of them. */
static int output_mode(struct options *o, enum output_mode mode, char *err, size_t errlen)
{
	if (o->output_mode != OUTPUT_NEW && o->output_mode != mode)
		return refuse(
		    err, errlen,
		    "--append keeps what -o's file holds and --force replaces it; use one");
	o->output_mode = mode;
	return 0;
}

static int opt_append(struct options *o, const char *arg, char *err, size_t errlen)
{
	return output_mode(o, OUTPUT_APPEND, err, errlen);
}

static int opt_force(struct options *o, const char *arg, char *err, size_t errlen)
{
	return output_mode(o, OUTPUT_REPLACE, err, errlen);
}

static int opt_format(struct options *o, const char *arg, char *err, size_t errlen)
{
	char q[QUOTED_MAX];

	o->format_given = true;
	if (snapshot_parse_format(arg, &o->format))
		return refuse(err, errlen,
		              "--format: %s is unknown; use text, json, csv, folded, openmetrics "
		              "or prometheus",
		              quoted(q, arg));
	return 0;
}

static int opt_listen(struct options *o, const char *arg, char *err, size_t errlen)
{
	char host[256], port[8], q[QUOTED_MAX];

	if (httpd_parse_listen(arg, host, sizeof(host), port, sizeof(port)))
		return refuse(err, errlen,
		              "--listen: %s is not HOST:PORT, [IPV6]:PORT or :PORT (e.g. "
		              "127.0.0.1:9464)",
		              quoted(q, arg));
	o->listen = arg;
	return 0;
}

static int opt_allow_remote(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->allow_remote = true;
	return 0;
}

static int opt_web_config(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->web_config = arg;
	return 0;
}

static int opt_export_tasks(struct options *o, const char *arg, char *err, size_t errlen)
{
	char q[QUOTED_MAX];
	long v;

	if (util_parse_long(arg, 0, 100000, &v))
		return refuse(err, errlen, "--export-tasks: %s is not a task count (0 to 100000)",
		              quoted(q, arg));
	o->export_tasks = (int)v;
	return 0;
}

static int opt_export_cmdline(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->export_cmdline = true;
	return 0;
}

static int opt_daemon(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->daemon = true;
	return 0;
}

/* Repeatable: each -e adds to the list. */
static int opt_events(struct options *o, const char *arg, char *err, size_t errlen)
{
	char perr[256];

	if (events_parse_list(arg, &o->session.events, perr, sizeof(perr))) {
		events_error(arg, perr, err, errlen);
		return -EINVAL;
	}
	o->events_given = true;
	util_strlcpy(o->session.preset, "custom (-e)", sizeof(o->session.preset));
	return 0;
}

/* Repeatable: each -p adds to the processes. */
static int opt_pid(struct options *o, const char *arg, char *err, size_t errlen)
{
	struct list_ctx x = {&o->session, err, errlen};
	char q[QUOTED_MAX];

	if (!*arg)
		return refuse(err, errlen, "-p needs PID[,PID...]");
	/* add_pid() words its own errors; only an empty item is left to say */
	err[0] = '\0';
	if (for_each_item(arg, add_pid, &x)) {
		if (!err[0])
			refuse(err, errlen, "-p: an empty item in %s; give PID[,PID...]",
			       quoted(q, arg));
		return -EINVAL;
	}
	o->session.mode = MODEL_TASKS;
	return 0;
}

static int opt_threads(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->session.threads = true;
	return 0;
}

static int opt_no_inherit(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->session.no_inherit = true;
	return 0;
}

static int opt_cpu(struct options *o, const char *arg, char *err, size_t errlen)
{
	struct session_config *c = &o->session;
	int n = util_cpulist_parse(arg, c->cpus, SESSION_MAX_CPUS);
	char q[QUOTED_MAX];

	if (n <= 0)
		return refuse(err, errlen,
		              "-C: %s is not a CPU list; give e.g. 0-3,8 (online CPUs are in "
		              "/sys/devices/system/cpu/online)",
		              quoted(q, arg));
	c->nr_cpus = n;
	return 0;
}

static int opt_top(struct options *o, const char *arg, char *err, size_t errlen)
{
	char q[QUOTED_MAX];
	long v;

	if (util_parse_long(arg, 0, INT_MAX, &v))
		return refuse(err, errlen, "-N: %s is not a row count (0 = all)", quoted(q, arg));
	o->session.top_n = (int)v;
	o->top_given = true;
	return 0;
}

/* -F and -c: the later one wins here; check_conflicts() refuses the two. */
static int opt_freq(struct options *o, const char *arg, char *err, size_t errlen)
{
	struct profile_config *p = &o->session.profile;
	char q[QUOTED_MAX];
	long v;

	if (util_parse_long(arg, 1, 1000000, &v))
		return refuse(err, errlen,
		              "-F: %s is not a frequency; give samples per second, e.g. -F 999",
		              quoted(q, arg));
	p->freq = (uint64_t)v;
	p->period = 0;
	return 0;
}

static int opt_count(struct options *o, const char *arg, char *err, size_t errlen)
{
	struct profile_config *p = &o->session.profile;
	char q[QUOTED_MAX];
	long v;

	if (util_parse_long(arg, 1, LONG_MAX, &v))
		return refuse(err, errlen,
		              "-c: %s is not a sample period (events between samples, e.g. -c "
		              "100000)",
		              quoted(q, arg));
	p->period = (uint64_t)v;
	p->freq = 0;
	return 0;
}

static int opt_sample_event(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->session.profile.event = arg;
	return 0;
}

static int opt_mmap_pages(struct options *o, const char *arg, char *err, size_t errlen)
{
	char q[QUOTED_MAX];
	long v;

	if (util_parse_long(arg, 1, 1 << 20, &v) || (v & (v - 1)))
		return refuse(err, errlen,
		              "--mmap-pages: %s is not a power of two (1, 2, 4, ... pages)",
		              quoted(q, arg));
	o->session.profile.mmap_pages = (unsigned)v;
	return 0;
}

static int opt_hot(struct options *o, const char *arg, char *err, size_t errlen)
{
	char q[QUOTED_MAX];
	long v;

	if (util_parse_long(arg, 0, 100000, &v))
		return refuse(err, errlen, "--hot: %s is not a row count", quoted(q, arg));
	o->session.profile.top = (int)v;
	o->hot_given = true;
	return 0;
}

static int opt_hot_sort(struct options *o, const char *arg, char *err, size_t errlen)
{
	struct hotkeys k;
	char why[160];

	if (hotkeys_parse(arg, &k, why, sizeof(why)))
		return refuse(err, errlen, "--hot-sort: %s", why);
	hotkeys_format(&k, o->session.profile.hot_keys, sizeof(o->session.profile.hot_keys));
	return 0;
}

static int opt_hot_total(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->session.profile.accumulated = true;
	return 0;
}

static int opt_no_demangle(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->session.profile.raw_names = true;
	return 0;
}

/* -g: DWARF unwinding where it is built (whole chains through libraries
 * built without frame pointers, as distributions build them), else frame
 * pointers. */
static int opt_g(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->session.profile.callchain = true;
	o->session.profile.dwarf_stack = UNWIND_SUPPORTED ? UNWIND_STACK_DEFAULT : 0;
	return 0;
}

/* --call-graph fp | dwarf[,SIZE], as perf spells them. */
static int opt_call_graph(struct options *o, const char *arg, char *err, size_t errlen)
{
	char q[QUOTED_MAX];
	long size = UNWIND_STACK_DEFAULT;

	if (!strcmp(arg, "fp")) {
		o->session.profile.dwarf_stack = 0;
	} else if (!strcmp(arg, "dwarf") || !strncmp(arg, "dwarf,", 6)) {
		if (!UNWIND_SUPPORTED)
			return refuse(err, errlen,
			              "--call-graph dwarf: only built for x86-64 so far; use fp");
		if (arg[5] && util_parse_long(arg + 6, 8, UNWIND_STACK_MAX, &size))
			return refuse(
			    err, errlen,
			    "--call-graph dwarf,SIZE: %s is not a stack size; give bytes, "
			    "from 8 to %d (the kernel's limit), default %d",
			    quoted(q, arg + 6), UNWIND_STACK_MAX, UNWIND_STACK_DEFAULT);
		if (size % 8)
			return refuse(err, errlen,
			              "--call-graph dwarf,%ld: the kernel takes the stack size in "
			              "whole 8-byte words; use a multiple of 8 such as %ld",
			              size,
			              (size + 7) / 8 * 8 <= UNWIND_STACK_MAX ? (size + 7) / 8 * 8
			                                                     : size / 8 * 8);
		o->session.profile.dwarf_stack = (uint32_t)size;
	} else {
		return refuse(err, errlen, "--call-graph: %s is unknown; use fp or dwarf[,SIZE]",
		              quoted(q, arg));
	}
	o->session.profile.callchain = true;
	return 0;
}

static int opt_wide(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->wide = true;
	return 0;
}

static int opt_no_hotspots(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->session.profile.enabled = false;
	return 0;
}

static int opt_annotate(struct options *o, const char *arg, char *err, size_t errlen)
{
	char q[QUOTED_MAX];

	if (!arg[0] || strlen(arg) >= 512 || strpbrk(arg, " \t\n"))
		return refuse(err, errlen,
		              "--annotate: %s is not a function name (as the HOTSPOTS table shows "
		              "it, e.g. main or memcpy)",
		              quoted(q, arg));
	o->session.profile.annotate_symbol = arg;
	return 0;
}

static int opt_hide_kernel(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->session.profile.hide_kernel = true;
	return 0;
}

static int opt_hide_user(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->session.profile.hide_user = true;
	return 0;
}

static int opt_cpu_min(struct options *o, const char *arg, char *err, size_t errlen)
{
	double *min = &o->session.cpu_min;
	char q[QUOTED_MAX];

	/* -1 is the one negative value: /proc figures only */
	if (util_parse_decimal(arg, -1, 100, min) || (*min < 0 && *min != -1))
		return refuse(err, errlen, "--cpu-min: %s is not a CPU%% from 0 to 100 (or -1)",
		              quoted(q, arg));
	return 0;
}

static int opt_task_counters(struct options *o, const char *arg, char *err, size_t errlen)
{
	static const char *const names[] = {"auto", "bpf", "perf"};
	char q[QUOTED_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(arg, names[i]))
			return o->session.task_counters = (enum session_task_counters)i, 0;
	return refuse(err, errlen, "--task-counters: %s is not bpf, perf or auto", quoted(q, arg));
}

/* Repeatable: each --cgroup adds to the cgroups. */
static int opt_cgroup(struct options *o, const char *arg, char *err, size_t errlen)
{
	struct list_ctx x = {&o->session, err, errlen};
	char q[QUOTED_MAX];

	/* add_cgroup() words its own errors; only an empty item is left to say */
	err[0] = '\0';
	if (for_each_item(arg, add_cgroup, &x)) {
		if (!err[0])
			refuse(err, errlen, "--cgroup: an empty item in %s; give PATH[,PATH]",
			       quoted(q, arg));
		return -EINVAL;
	}
	return 0;
}

static int opt_sort(struct options *o, const char *arg, char *err, size_t errlen)
{
	if (!*arg)
		return refuse(err, errlen,
		              "--sort: empty; give a column: cpu, pid, command or an event");
	util_strlcpy(o->session.sort, arg, sizeof(o->session.sort));
	o->sort_given = true;
	return 0;
}

static int opt_preset(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->preset = arg;
	return 0;
}

static int opt_list_presets(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->action = OPTIONS_LIST_PRESETS;
	return 0;
}

static int opt_check_preset(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->action = OPTIONS_CHECK_PRESET;
	o->check = arg;
	return 0;
}

static int opt_convert(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->action = OPTIONS_CONVERT;
	o->convert = arg;
	return 0;
}

static int opt_record(struct options *o, const char *arg, char *err, size_t errlen)
{
	if (!arg[0] || !strcmp(arg, "-"))
		return refuse(err, errlen,
		              "--record: name a file (a recording is not for a terminal; "
		              "use -b --format json for a stream)");
	o->record = arg;
	return 0;
}

static int opt_replay(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->action = OPTIONS_REPLAY;
	o->convert = arg;
	return 0;
}

static int opt_history(struct options *o, const char *arg, char *err, size_t errlen)
{
	char q[QUOTED_MAX];
	double v;

	if (util_parse_decimal(arg, 0, 1440, &v))
		return refuse(err, errlen, "--history: %s is not minutes from 0 to 1440 (a day)",
		              quoted(q, arg));
	o->history_s = v * 60;
	return 0;
}

static int opt_check_presets(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->action = OPTIONS_CHECK_PRESETS;
	return 0;
}

static int opt_theme(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->theme = arg;
	return 0;
}

static int opt_command_output(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->command_output = arg;
	return 0;
}

static int opt_no_config(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->no_config = true;
	return 0;
}

static int opt_view(struct options *o, const char *arg, char *err, size_t errlen)
{
	char q[QUOTED_MAX];

	for (int i = 0; i < OPTIONS_NR_VIEWS; i++) {
		if (!strcmp(arg, options_view_names[i])) {
			o->view = i;
			return 0;
		}
	}
	return refuse(err, errlen,
	              "--view: %s is not a view; use overview, cpus, tasks, hotspots or events",
	              quoted(q, arg));
}

static int opt_probe(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->action = OPTIONS_PROBE;
	return 0;
}

/* Does every '[' of the glob s open a class that a ']' closes (as
 * fnmatch() reads it: a ']' first in the class is one of its characters, a
 * backslash quotes the next character)? */
static bool glob_brackets_ok(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
		} else if (*s == '[') {
			const char *c = s + 1;

			if (*c == '!' || *c == '^')
				c++;
			if (*c == ']')
				c++;
			while (*c && *c != ']')
				c++;
			if (!*c)
				return false;
			s = c;
		}
	}
	return true;
}

static int opt_list_events(struct options *o, const char *arg, char *err, size_t errlen)
{
	char q[QUOTED_MAX];

	if (arg && !glob_brackets_ok(arg))
		return refuse(err, errlen,
		              "--list-events %s: an invalid pattern (a '[' without its ']'; "
		              "write \\[ for a '[' itself)",
		              quoted(q, arg));
	o->action = OPTIONS_LIST_EVENTS;
	o->list_glob = arg;
	return 0;
}

static int opt_help(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->action = OPTIONS_HELP;
	return OPT_DONE;
}

static int opt_version(struct options *o, const char *arg, char *err, size_t errlen)
{
	o->action = OPTIONS_VERSION;
	return OPT_DONE;
}

/* getopt_long() returns the letter of an option that has one, and
 * OPT_LONG_ONLY + its row for one that has not: the value that "given" in
 * options_parse() is indexed by. */
#define OPT_LONG_ONLY 0x100

const struct options_opt options_table[] = {
    {"batch", 'b', OPTIONS_NO_ARG, opt_batch},
    {"delay", 'd', OPTIONS_ARG, opt_delay},
    {"iterations", 'n', OPTIONS_ARG, opt_iterations},
    {"output", 'o', OPTIONS_ARG, opt_output},
    {"append", 0, OPTIONS_NO_ARG, opt_append},
    {"force", 0, OPTIONS_NO_ARG, opt_force},
    {"format", 0, OPTIONS_ARG, opt_format},
    {"events", 'e', OPTIONS_ARG, opt_events},
    {"pid", 'p', OPTIONS_ARG, opt_pid},
    {"threads", 'H', OPTIONS_NO_ARG, opt_threads},
    {"no-inherit", 0, OPTIONS_NO_ARG, opt_no_inherit},
    {"cpu", 'C', OPTIONS_ARG, opt_cpu},
    {"top", 'N', OPTIONS_ARG, opt_top},
    {"freq", 'F', OPTIONS_ARG, opt_freq},
    {"count", 'c', OPTIONS_ARG, opt_count},
    {"sample-event", 0, OPTIONS_ARG, opt_sample_event},
    {"mmap-pages", 0, OPTIONS_ARG, opt_mmap_pages},
    {"hot", 0, OPTIONS_ARG, opt_hot},
    {"hot-total", 0, OPTIONS_NO_ARG, opt_hot_total},
    {"hot-sort", 0, OPTIONS_ARG, opt_hot_sort},
    {"no-hotspots", 0, OPTIONS_NO_ARG, opt_no_hotspots},
    {"wide", 0, OPTIONS_NO_ARG, opt_wide},
    {"annotate", 0, OPTIONS_ARG, opt_annotate},
    {"call-chains", 'g', OPTIONS_NO_ARG, opt_g},
    {"call-graph", 0, OPTIONS_ARG, opt_call_graph},
    {"no-demangle", 0, OPTIONS_NO_ARG, opt_no_demangle},
    {"hide-kernel", 'K', OPTIONS_NO_ARG, opt_hide_kernel},
    {"hide-user", 'U', OPTIONS_NO_ARG, opt_hide_user},
    {"cpu-min", 0, OPTIONS_ARG, opt_cpu_min},
    {"task-counters", 0, OPTIONS_ARG, opt_task_counters},
    {"cgroup", 0, OPTIONS_ARG, opt_cgroup},
    {"sort", 0, OPTIONS_ARG, opt_sort},
    {"preset", 0, OPTIONS_ARG, opt_preset},
    {"list-presets", 0, OPTIONS_NO_ARG, opt_list_presets},
    {"check-preset", 0, OPTIONS_ARG, opt_check_preset},
    {"check-presets", 0, OPTIONS_NO_ARG, opt_check_presets},
    {"convert", 0, OPTIONS_ARG, opt_convert},
    {"record", 0, OPTIONS_ARG, opt_record},
    {"replay", 0, OPTIONS_ARG, opt_replay},
    {"history", 0, OPTIONS_ARG, opt_history},
    {"listen", 0, OPTIONS_ARG, opt_listen},
    {"allow-remote", 0, OPTIONS_NO_ARG, opt_allow_remote},
    {"web-config", 0, OPTIONS_ARG, opt_web_config},
    {"export-tasks", 0, OPTIONS_ARG, opt_export_tasks},
    {"export-cmdline", 0, OPTIONS_NO_ARG, opt_export_cmdline},
    {"daemon", 0, OPTIONS_NO_ARG, opt_daemon},
    {"theme", 0, OPTIONS_ARG, opt_theme},
    {"view", 0, OPTIONS_ARG, opt_view},
    {"command-output", 0, OPTIONS_ARG, opt_command_output},
    {"no-config", 0, OPTIONS_NO_ARG, opt_no_config},
    {"probe", 0, OPTIONS_NO_ARG, opt_probe},
    {"list-events", 0, OPTIONS_OPT_ARG, opt_list_events},
    {"help", 'h', OPTIONS_NO_ARG, opt_help},
    {"version", 'V', OPTIONS_NO_ARG, opt_version},
};

#define NR_OPTS ARRAY_SIZE(options_table)

const size_t options_table_len = NR_OPTS;

/* The enum values are getopt's has_arg, so a row's kind is passed as is. */
_Static_assert(OPTIONS_NO_ARG == no_argument && OPTIONS_ARG == required_argument &&
                   OPTIONS_OPT_ARG == optional_argument,
               "enum options_arg is getopt's has_arg");

/* getopt_long()'s two tables, made from options_table so that they cannot
 * disagree with it: "+" stops at the first word that is not an option
 * (the command's own options are its own). */
static void getopt_tables(struct option *longopts, char *shortopts)
{
	char *s = shortopts;

	*s++ = '+';
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct options_opt *d = &options_table[i];

		longopts[i] = (struct option){d->name, d->arg, NULL,
		                              d->letter ? d->letter : OPT_LONG_ONLY + (int)i};
		if (!d->letter)
			continue;
		*s++ = (char)d->letter;
		if (d->arg == OPTIONS_ARG)
			*s++ = ':';
	}
	*s = '\0';
	longopts[NR_OPTS] = (struct option){0};
}

/* The row of what getopt_long() returned, NULL for its '?'. */
static const struct options_opt *row_of(int val)
{
	if (val >= OPT_LONG_ONLY && val < OPT_LONG_ONLY + (int)NR_OPTS)
		return &options_table[val - OPT_LONG_ONLY];
	for (size_t i = 0; i < NR_OPTS; i++)
		if (options_table[i].letter && options_table[i].letter == val)
			return &options_table[i];
	return NULL;
}

/* "--name needs its VALUE", VALUE as the help text names it. */
static int needs_value(const struct options_opt *d, char *err, size_t errlen)
{
	char key[48];
	const char *at;
	int n = 0;

	snprintf(key, sizeof(key), "--%s ", d->name);
	/* the option's own line: its value in capitals after the name */
	at = strstr(options_usage_text, key);
	while (at && !n) {
		at += strlen(key);
		while (isupper((unsigned char)at[0]) && at[n] && !isspace((unsigned char)at[n]))
			n++;
		if (!n)
			at = strstr(at, key);
	}
	if (n)
		return refuse(err, errlen,
		              "option --%s needs a%s %.*s argument; see 'pfmtop --help'", d->name,
		              strchr("AEIOU", at[0]) ? "n" : "", n, at);
	return refuse(err, errlen, "option --%s needs a value; see 'pfmtop --help'", d->name);
}

/* getopt_long()'s '?'. letter (its optopt) is the letter of the option
 * that lacks its value or is unknown, also when spelt --name; else (0, or a
 * long-only option's value) word, the last one read, is what to show. */
static int getopt_error(int letter, const char *word, char *err, size_t errlen)
{
	char q[QUOTED_MAX];

	if (letter >= OPT_LONG_ONLY) {
		const struct options_opt *d = row_of(letter);

		if (d && d->arg == OPTIONS_ARG)
			return needs_value(d, err, errlen);
	}
	if (letter && letter < OPT_LONG_ONLY) {
		const struct options_opt *d = row_of(letter);

		if (d && d->arg == OPTIONS_ARG)
			return refuse(err, errlen, "option -%c needs a value; see 'pfmtop --help'",
			              letter);
		return refuse(err, errlen, "unknown option -%c; see 'pfmtop --help'", letter);
	}
	return refuse(err, errlen, "unknown option %s; see 'pfmtop --help'", quoted(q, word));
}

static void options_defaults(struct options *o)
{
	struct session_config *c = &o->session;

	memset(o, 0, sizeof(*o));
	o->view = -1;
	o->history_s = TIMELINE_HISTORY_MIN * 60;
	c->interval_ns = 1000000000ull;
	c->top_n = 10;
	c->mode = MODEL_SYSTEM;
	c->profile.enabled = true;
	c->cpu_min = 0.1;
	c->profile.top = 10;
	util_strlcpy(c->preset, "default", sizeof(c->preset));
}

/* The words after the options: a command, if they follow "--". */
static int take_command(struct options *o, int argc, char **argv, int next, char *err,
                        size_t errlen)
{
	struct session_config *c = &o->session;
	char q[QUOTED_MAX], q2[QUOTED_MAX];

	if (next == argc)
		return 0;
	if (strcmp(argv[next - 1], "--") != 0)
		return refuse(err, errlen,
		              "unexpected argument %s; to run a command put it after --, e.g. "
		              "pfmtop -b -- %s",
		              quoted(q, argv[next]), quoted(q2, argv[next]));
	if (c->mode == MODEL_TASKS)
		return refuse(err, errlen, "-p and a command exclude each other; use one");
	c->argv = &argv[next];
	c->mode = MODEL_COMMAND;
	return 0;
}

static bool reads_recording(const struct options *o)
{
	return o->action == OPTIONS_CONVERT || o->action == OPTIONS_REPLAY;
}

/* -o FILE.pfr (without --format) is --record FILE.pfr with nothing printed;
 * what a recording cannot go with. */
static int check_recording(struct options *o, const bool *given, char *err, size_t errlen)
{
	const size_t n = o->output ? strlen(o->output) : 0;

	if (n > 4 && !strcmp(o->output + n - 4, ".pfr") && !o->format_given &&
	    o->action == OPTIONS_RUN) {
		if (o->record)
			return refuse(err, errlen,
			              "-o %s and --record both name a recording; give one",
			              o->output);
		if (!o->batch)
			return refuse(
			    err, errlen,
			    "-o writes batch snapshots: add -b (or use --record FILE with "
			    "the view)");
		o->record = o->output;
		o->record_only = true;
		o->output = NULL;
	}
	if (o->record && reads_recording(o))
		return refuse(err, errlen, "%s reads a recording: drop --record",
		              o->action == OPTIONS_CONVERT ? "--convert" : "--replay");
	if (o->action == OPTIONS_REPLAY && (o->listen || o->daemon))
		return refuse(err, errlen,
		              "--replay shows a recording: drop --listen and --daemon");
	if (o->record && o->daemon)
		return refuse(err, errlen,
		              "--record writes without a terminal by itself: drop --daemon (or "
		              "--record)");
	if (o->action == OPTIONS_REPLAY && !o->batch && o->output)
		return refuse(err, errlen, "--replay -o FILE writes batch snapshots: add -b");
	return 0;
}

/* Options each fine alone but not together. */
static int check_conflicts(const struct options *o, const bool *given, char *err, size_t errlen)
{
	const struct session_config *c = &o->session;

	if (c->nr_cpus && c->mode != MODEL_SYSTEM)
		return refuse(err, errlen,
		              "-C selects CPUs for system-wide mode; drop it with -p or a command");
	if (given['F'] && given['c'])
		return refuse(err, errlen,
		              "-F (samples per second) and -c (events per sample) exclude each "
		              "other; use one");
	if (c->profile.hide_kernel && c->profile.hide_user)
		return refuse(err, errlen,
		              "-K and -U together hide every hotspot; use --no-hotspots to turn "
		              "sampling off");
	if (o->events_given && o->preset)
		return refuse(err, errlen, "-e and --preset both choose the events; use one");
	if (reads_recording(o) && (c->mode != MODEL_SYSTEM || c->nr_cpus))
		return refuse(
		    err, errlen,
		    "%s reads a recording and counts nothing: drop -p, -C and the command",
		    o->action == OPTIONS_CONVERT ? "--convert" : "--replay");
	if (o->output_mode != OUTPUT_NEW && (!o->output || !strcmp(o->output, "-")) && !o->record)
		return refuse(err, errlen,
		              "%s is about the old content of a file: give -o FILE (or --record "
		              "FILE)",
		              o->output_mode == OUTPUT_APPEND ? "--append" : "--force");
	if (o->output_mode == OUTPUT_APPEND && snapshot_format_is_metrics(o->format))
		return refuse(err, errlen,
		              "--append: --format %s replaces -o FILE whole at every refresh; drop "
		              "--append",
		              o->format == SNAPSHOT_OPENMETRICS ? "openmetrics" : "prometheus");
	if (reads_recording(o) && snapshot_format_is_metrics(o->format))
		return refuse(
		    err, errlen,
		    "--convert, --replay: a recording converts to text, json or csv (metrics are "
		    "counted from the start of a live run)");
	if ((o->allow_remote || o->web_config || o->daemon) && !o->listen)
		return refuse(err, errlen, "%s is about the exporter: add --listen ADDR:PORT",
		              o->daemon         ? "--daemon"
		              : o->allow_remote ? "--allow-remote"
		                                : "--web-config");
	if ((c->profile.callchain || o->format == SNAPSHOT_FOLDED) && !c->profile.enabled)
		return refuse(err, errlen,
		              "call chains come with the samples: drop --no-hotspots (or -g and "
		              "--format folded)");
	if (o->format == SNAPSHOT_FOLDED && !c->profile.callchain)
		return refuse(err, errlen, "--format folded writes call chains: add -g");
	if (o->format == SNAPSHOT_FOLDED && !o->batch)
		return refuse(err, errlen, "--format folded is for batch mode: add -b");
	if (o->format == SNAPSHOT_FOLDED && reads_recording(o))
		return refuse(err, errlen,
		              "--convert: a recording has no call chains; folded comes from a live "
		              "run with -g");
	if (c->profile.annotate_symbol && !c->profile.enabled)
		return refuse(err, errlen, "--annotate counts samples: drop --no-hotspots");
	if (c->profile.annotate_symbol && (!o->batch || o->action == OPTIONS_CONVERT))
		return refuse(err, errlen,
		              "--annotate prints at the end of a batch run: add -b (in the view, "
		              "press a on a hotspot)");
	if (c->profile.annotate_symbol && o->format != SNAPSHOT_TEXT)
		return refuse(err, errlen, "--annotate writes text: drop --format");
	if (o->export_cmdline && !o->export_tasks)
		return refuse(err, errlen,
		              "--export-cmdline labels task series: add --export-tasks N");
	if (o->daemon && c->profile.callchain)
		return refuse(err, errlen,
		              "--daemon samples nothing (/metrics has no hotspots): drop -g");
	if (o->daemon && o->batch)
		return refuse(
		    err, errlen,
		    "--daemon prints nothing and -b prints snapshots: use one (-b --listen "
		    "does both)");
	return 0;
}

/* After the last option: what needs the whole command line. The order of
 * the checks is the order in which errors are reported. */
static int options_finish(struct options *o, const bool *given, int argc, char **argv, int next,
                          char *err, size_t errlen)
{
	struct session_config *c = &o->session;
	char perr[256];

	if (o->events_given && events_expand_globs(NULL, &c->events, perr, sizeof(perr)))
		return refuse(err, errlen, "-e: %s", perr);
	if (take_command(o, argc, argv, next, err, errlen) ||
	    check_conflicts(o, given, err, errlen) || check_recording(o, given, err, errlen))
		return -EINVAL;
	if (o->command_output && c->mode != MODEL_COMMAND)
		return refuse(err, errlen,
		              "--command-output is where a command's output goes: give the command "
		              "after --");
	/* Replaced by the preset's choice at start; kept for --probe. */
	if (!o->events_given &&
	    events_parse_list(SESSION_DEFAULT_EVENTS, &c->events, perr, sizeof(perr)))
		return refuse(err, errlen, "built-in default events: %s", perr);
	return 0;
}

int options_parse(struct options *o, int argc, char **argv, char *err, size_t errlen)
{
	struct option longopts[NR_OPTS + 1];
	char shortopts[2 + 2 * NR_OPTS];
	bool given[OPT_LONG_ONLY + NR_OPTS] = {0}; /* by getopt's value: given['F'] */
	int val;

	options_defaults(o);
	err[0] = '\0';
	getopt_tables(longopts, shortopts);
	optind = 1;
	opterr = 0; /* our messages, not getopt's */
	while ((val = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct options_opt *d = row_of(val);
		const char *arg = optarg;

		if (!d)
			return getopt_error(optopt, argv[optind - 1], err, errlen);
		/* --list-events GLOB as well as --list-events=GLOB */
		if (d->arg == OPTIONS_OPT_ARG && !arg && optind < argc && argv[optind][0] != '-')
			arg = argv[optind++];
		given[val] = true;
		int ret = d->set(o, arg, err, errlen);
		if (ret)
			return ret == OPT_DONE ? 0 : ret;
	}
	return options_finish(o, given, argc, argv, optind, err, errlen);
}
