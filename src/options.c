/* options: the command line, parsed into a plain struct. */
#include "options.h"

#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_FORMAT = 0x100,
	OPT_PROBE,
	OPT_LIST_EVENTS,
	OPT_SAMPLE_EVENT,
	OPT_MMAP_PAGES,
	OPT_HOT,
	OPT_HOT_TOTAL,
	OPT_NO_HOT,
	OPT_CPU_MIN,
	OPT_CGROUP,
	OPT_SORT,
	OPT_PRESET,
	OPT_LIST_PRESETS,
	OPT_CHECK_PRESET,
	OPT_CHECK_PRESETS,
	OPT_THEME,
	OPT_VIEW,
	OPT_NO_INHERIT,
};

const char *const options_view_names[OPTIONS_NR_VIEWS] = {"cpus", "tasks", "hotspots", "events"};

static const struct option long_opts[] = {
    {"batch", no_argument, NULL, 'b'},
    {"delay", required_argument, NULL, 'd'},
    {"iterations", required_argument, NULL, 'n'},
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"events", required_argument, NULL, 'e'},
    {"pid", required_argument, NULL, 'p'},
    {"threads", no_argument, NULL, 'H'},
    {"no-inherit", no_argument, NULL, OPT_NO_INHERIT},
    {"cpu", required_argument, NULL, 'C'},
    {"top", required_argument, NULL, 'N'},
    {"freq", required_argument, NULL, 'F'},
    {"count", required_argument, NULL, 'c'},
    {"sample-event", required_argument, NULL, OPT_SAMPLE_EVENT},
    {"mmap-pages", required_argument, NULL, OPT_MMAP_PAGES},
    {"hot", required_argument, NULL, OPT_HOT},
    {"hot-total", no_argument, NULL, OPT_HOT_TOTAL},
    {"no-hotspots", no_argument, NULL, OPT_NO_HOT},
    {"hide-kernel", no_argument, NULL, 'K'},
    {"hide-user", no_argument, NULL, 'U'},
    {"cpu-min", required_argument, NULL, OPT_CPU_MIN},
    {"cgroup", required_argument, NULL, OPT_CGROUP},
    {"sort", required_argument, NULL, OPT_SORT},
    {"preset", required_argument, NULL, OPT_PRESET},
    {"list-presets", no_argument, NULL, OPT_LIST_PRESETS},
    {"check-preset", required_argument, NULL, OPT_CHECK_PRESET},
    {"check-presets", no_argument, NULL, OPT_CHECK_PRESETS},
    {"theme", required_argument, NULL, OPT_THEME},
    {"view", required_argument, NULL, OPT_VIEW},
    {"probe", no_argument, NULL, OPT_PROBE},
    {"list-events", optional_argument, NULL, OPT_LIST_EVENTS},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {0},
};

void options_usage(FILE *out)
{
	fputs(
	    "Usage: pfmtop [OPTIONS] [-- COMMAND [ARGS...]]\n"
	    "Live per-CPU and per-task performance counters.\n"
	    "\n"
	    "Targets (default: the whole machine, per CPU):\n"
	    "  -p, --pid PID[,PID...]   count these processes (all their threads) and the\n"
	    "                           children they start from now on\n"
	    "  -C, --cpu LIST           system-wide on these CPUs only (e.g. 0-3,8)\n"
	    "  -- COMMAND [ARGS]        run COMMAND and count it and its children;\n"
	    "                           pfmtop exits with its status\n"
	    "  -H, --threads            a row per thread instead of per process\n"
	    "      --no-inherit         -p and COMMAND: leave out the processes and threads\n"
	    "                           they start after pfmtop does (counted by default)\n"
	    "      --cpu-min PCT        system-wide: counters for tasks using at least PCT% CPU\n"
	    "                           (default 0.1; new tasks at once; -1 = /proc figures only)\n"
	    "      --cgroup PATH[,PATH] count these cgroups (v2) on every CPU; 'auto' takes the\n"
	    "                           top-level cgroups that hold tasks\n"
	    "\n"
	    "Events:\n"
	    "  -e, --events LIST        events to count, comma-separated; {a,b} counts a and b\n"
	    "                           as one group (ratios need that); repeatable.\n"
	    "                           Names: cycles, task-clock, sched:sched_switch,\n"
	    "                           msr/tsc/, r01c2, with :u or :k for user/kernel only\n"
	    "      --preset NAME|FILE   count a preset's events and metrics (default: default);\n"
	    "                           a FILE gives its first preset\n"
	    "      --list-presets       list the presets, where each comes from, and whether it\n"
	    "                           opens fully here\n"
	    "      --check-preset NAME|FILE  validate a preset against this machine; exit 0 all\n"
	    "                           good, 1 valid but events unavailable, 2 invalid\n"
	    "      --check-presets      check every preset file of the search path; exit 2 if\n"
	    "                           one is broken or skipped\n"
	    "      --list-events [GLOB] list the events this machine offers, and whether each "
	    "opens\n"
	    "      --probe              print what this machine allows and why, then exit\n"
	    "\n"
	    "Hotspots (sampling, like perf top):\n"
	    "  -F, --freq HZ            samples per second per CPU (default 4000)\n"
	    "  -c, --count PERIOD       sample every PERIOD events instead of -F\n"
	    "      --sample-event EVENT what to sample (default cycles, else cpu-clock)\n"
	    "      --mmap-pages N       ring size in pages per CPU, a power of two (default 128)\n"
	    "      --hot N              hotspot rows per snapshot (default 10)\n"
	    "      --hot-total          hotspots since the start instead of per interval\n"
	    "  -K, --hide-kernel        hide kernel hotspots\n"
	    "  -U, --hide-user          hide user-space hotspots\n"
	    "      --no-hotspots        do not sample at all (counters only)\n"
	    "\n"
	    "Output:\n"
	    "  -b, --batch              print snapshots instead of the interactive view\n"
	    "  -d, --delay SECS         refresh interval, fractions allowed (default 1)\n"
	    "  -n, --iterations N       stop after N snapshots\n"
	    "  -o, --output FILE        write each snapshot to FILE as soon as it is made\n"
	    "      --format text|json   text for people (default), JSON Lines for scripts\n"
	    "  -N, --top N              task rows per snapshot (default 10, 0 = all)\n"
	    "      --sort COLUMN        order tasks by cpu (default), pid, command, or an event\n"
	    "                           or metric name (largest first)\n"
	    "\n"
	    "Interactive view (press h in it for the keys):\n"
	    "      --view NAME          start in cpus, tasks, hotspots or events (default: cpus\n"
	    "                           system-wide, tasks with -p or a command)\n"
	    "      --theme NAME|FILE    colour theme: default, light, mono, high-contrast, or a\n"
	    "                           theme file (also searched in ~/.config/pfmtop/themes);\n"
	    "                           NO_COLOR or a terminal without colours selects mono\n"
	    "\n"
	    "  -h, --help               this text\n"
	    "  -V, --version            version and library versions\n"
	    "\n"
	    "Exit status: 0 ok, 1 runtime error, 2 usage error; with COMMAND, its status.\n",
	    out);
}

/* An argument for a message: quoted, a long one cut short (see util_quote_elided). */
#define ARG_SHOWN  48
#define QUOTED_MAX (ARG_SHOWN + 32)

static const char *quoted(char *buf, const char *arg)
{
	return util_quote_elided(buf, QUOTED_MAX, arg, ARG_SHOWN, NULL);
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

struct pid_ctx {
	struct session_config *c;
	char *err;
	size_t errlen;
};

static int add_pid(const char *tok, void *arg)
{
	struct pid_ctx *x = arg;
	struct session_config *c = x->c;
	char q[QUOTED_MAX];
	long pid;

	if (util_parse_long(tok, 1, INT_MAX, &pid)) {
		snprintf(x->err, x->errlen, "-p: %s is not a process ID; give PID[,PID...]",
		         quoted(q, tok));
		return -EINVAL;
	}
	for (int i = 0; i < c->nr_pids; i++)
		if (c->pids[i] == (pid_t)pid)
			return 0; /* counted once */
	if (c->nr_pids == (int)ARRAY_SIZE(c->pids)) {
		snprintf(x->err, x->errlen, "-p: at most %zu processes", ARRAY_SIZE(c->pids));
		return -EINVAL;
	}
	c->pids[c->nr_pids++] = (pid_t)pid;
	return 0;
}

static int parse_pids(struct session_config *c, const char *arg, char *err, size_t errlen)
{
	struct pid_ctx x = {c, err, errlen};
	char q[QUOTED_MAX];

	if (!*arg) {
		snprintf(err, errlen, "-p needs PID[,PID...]");
		return -EINVAL;
	}
	err[0] = '\0';
	if (for_each_item(arg, add_pid, &x)) {
		if (!err[0])
			snprintf(err, errlen, "-p: an empty item in %s; give PID[,PID...]",
			         quoted(q, arg));
		return -EINVAL;
	}
	return 0;
}

static int add_cgroup(const char *tok, void *arg)
{
	struct pid_ctx *x = arg;
	struct session_config *c = x->c;

	if (!strcmp(tok, "auto")) {
		c->cgroup_auto = true;
		return 0;
	}
	for (int i = 0; i < c->nr_cgroups; i++)
		if (!strcmp(c->cgroups[i], tok))
			return 0;
	if (strlen(tok) >= sizeof(c->cgroups[0])) {
		snprintf(x->err, x->errlen, "--cgroup: a path longer than %zu characters",
		         sizeof(c->cgroups[0]) - 1);
		return -EINVAL;
	}
	if (c->nr_cgroups == (int)ARRAY_SIZE(c->cgroups)) {
		snprintf(x->err, x->errlen, "--cgroup: at most %zu cgroups",
		         ARRAY_SIZE(c->cgroups));
		return -EINVAL;
	}
	util_strlcpy(c->cgroups[c->nr_cgroups++], tok, sizeof(c->cgroups[0]));
	return 0;
}

/* -e: the reason first, then where, then the list (cut short when long). */
/* -e: the reason first, then where: the list with a caret under the
 * column, as preset errors show it (a list too long for a line, or with
 * bytes that are not plain text, gets its column named instead). */
static void events_error(const char *arg, const char *perr, char *err, size_t errlen)
{
	char q[QUOTED_MAX + 32];
	int col = 0, used = 0;
	bool plain = strlen(arg) <= 160;

	for (const char *p = arg; *p && plain; p++)
		plain = *p >= 0x20 && *p < 0x7f;
	util_quote_elided(q, sizeof(q), arg, ARG_SHOWN, "events");
	if (sscanf(perr, "column %d: %n", &col, &used) >= 1 && used > 0 && plain && col > 0)
		snprintf(err, errlen, "-e: %s (column %d)\n  %s\n  %*s^", perr + used, col, arg,
		         col - 1, "");
	else if (used > 0)
		snprintf(err, errlen, "-e: %s (column %d of %s)", perr + used, col, q);
	else
		snprintf(err, errlen, "-e: %s (in %s)", perr, q);
}

int options_parse(struct options *o, int argc, char **argv, char *err, size_t errlen)
{
	struct session_config *c = &o->session;
	bool freq_given = false, period_given = false;
	char q[QUOTED_MAX];
	long v;
	int opt;

	memset(o, 0, sizeof(*o));
	o->view = -1;
	c->interval_ns = 1000000000ull;
	c->top_n = 10;
	c->mode = MODEL_SYSTEM;
	c->profile.enabled = true;
	c->cpu_min = 0.1;
	c->profile.top = 10;
	util_strlcpy(c->preset, "default", sizeof(c->preset));
	err[0] = '\0';
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+bd:n:o:e:p:HC:N:F:c:KUhV", long_opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'b':
			o->batch = true;
			break;
		case 'd':
			if (util_parse_seconds(optarg, &c->interval_ns)) {
				snprintf(err, errlen,
				         "-d: %s is not a delay; give seconds between 0.01 and "
				         "86400, e.g. -d 0.5",
				         quoted(q, optarg));
				return -EINVAL;
			}
			break;
		case 'n':
			if (util_parse_long(optarg, 1, INT_MAX, &v)) {
				snprintf(err, errlen, "-n: %s is not a positive count",
				         quoted(q, optarg));
				return -EINVAL;
			}
			o->iterations = (int)v;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_FORMAT:
			if (snapshot_parse_format(optarg, &o->format)) {
				snprintf(err, errlen, "--format: %s is unknown; use text or json",
				         quoted(q, optarg));
				return -EINVAL;
			}
			break;
		case 'e': {
			char perr[256];
			if (events_parse_list(optarg, &c->events, perr, sizeof(perr))) {
				events_error(optarg, perr, err, errlen);
				return -EINVAL;
			}
			o->events_given = true;
			util_strlcpy(c->preset, "custom (-e)", sizeof(c->preset));
			break;
		}
		case 'p':
			if (parse_pids(c, optarg, err, errlen))
				return -EINVAL;
			c->mode = MODEL_TASKS;
			break;
		case 'H':
			c->threads = true;
			break;
		case OPT_NO_INHERIT:
			c->no_inherit = true;
			break;
		case 'C': {
			int n = util_cpulist_parse(optarg, c->cpus, SESSION_MAX_CPUS);
			if (n <= 0) {
				snprintf(err, errlen,
				         "-C: %s is not a CPU list; give e.g. 0-3,8 (online CPUs "
				         "are in /sys/devices/system/cpu/online)",
				         quoted(q, optarg));
				return -EINVAL;
			}
			c->nr_cpus = n;
			break;
		}
		case 'N':
			if (util_parse_long(optarg, 0, INT_MAX, &v)) {
				snprintf(err, errlen, "-N: %s is not a row count (0 = all)",
				         quoted(q, optarg));
				return -EINVAL;
			}
			c->top_n = (int)v;
			break;
		case 'F':
			if (util_parse_long(optarg, 1, 1000000, &v)) {
				snprintf(err, errlen,
				         "-F: %s is not a frequency; give samples per "
				         "second, e.g. -F 999",
				         quoted(q, optarg));
				return -EINVAL;
			}
			c->profile.freq = (uint64_t)v;
			c->profile.period = 0;
			freq_given = true;
			break;
		case 'c':
			if (util_parse_long(optarg, 1, LONG_MAX, &v)) {
				snprintf(err, errlen,
				         "-c: %s is not a sample period (events between "
				         "samples, e.g. -c 100000)",
				         quoted(q, optarg));
				return -EINVAL;
			}
			c->profile.period = (uint64_t)v;
			c->profile.freq = 0;
			period_given = true;
			break;
		case OPT_SAMPLE_EVENT:
			c->profile.event = optarg;
			break;
		case OPT_MMAP_PAGES:
			if (util_parse_long(optarg, 1, 1 << 20, &v) || (v & (v - 1))) {
				snprintf(err, errlen,
				         "--mmap-pages: %s is not a power of two (1, 2, "
				         "4, ... pages)",
				         quoted(q, optarg));
				return -EINVAL;
			}
			c->profile.mmap_pages = (unsigned)v;
			break;
		case OPT_HOT:
			if (util_parse_long(optarg, 0, 100000, &v)) {
				snprintf(err, errlen, "--hot: %s is not a row count",
				         quoted(q, optarg));
				return -EINVAL;
			}
			c->profile.top = (int)v;
			o->hot_given = true;
			break;
		case OPT_HOT_TOTAL:
			c->profile.accumulated = true;
			break;
		case OPT_CPU_MIN:
			if (util_parse_decimal(optarg, -1, 100, &c->cpu_min) ||
			    (c->cpu_min < 0 && c->cpu_min != -1)) {
				snprintf(err, errlen,
				         "--cpu-min: %s is not a CPU%% from 0 to 100 (or -1)",
				         quoted(q, optarg));
				return -EINVAL;
			}
			break;
		case OPT_CGROUP: {
			struct pid_ctx x = {c, err, errlen};

			err[0] = '\0';
			if (for_each_item(optarg, add_cgroup, &x)) {
				if (!err[0])
					snprintf(err, errlen,
					         "--cgroup: an empty item in %s; give PATH[,PATH]",
					         quoted(q, optarg));
				return -EINVAL;
			}
			break;
		}
		case OPT_SORT:
			util_strlcpy(c->sort, optarg, sizeof(c->sort));
			o->sort_given = true;
			break;
		case OPT_PRESET:
			o->preset = optarg;
			break;
		case OPT_THEME:
			o->theme = optarg;
			break;
		case OPT_VIEW:
			o->view = -1;
			for (int i = 0; i < OPTIONS_NR_VIEWS; i++)
				if (!strcmp(optarg, options_view_names[i]))
					o->view = i;
			if (o->view < 0) {
				snprintf(
				    err, errlen,
				    "--view: %s is not a view; use cpus, tasks, hotspots or events",
				    quoted(q, optarg));
				return -EINVAL;
			}
			break;
		case OPT_LIST_PRESETS:
			o->action = OPTIONS_LIST_PRESETS;
			break;
		case OPT_CHECK_PRESET:
			o->action = OPTIONS_CHECK_PRESET;
			o->check = optarg;
			break;
		case OPT_CHECK_PRESETS:
			o->action = OPTIONS_CHECK_PRESETS;
			break;
		case OPT_NO_HOT:
			c->profile.enabled = false;
			break;
		case 'K':
			c->profile.hide_kernel = true;
			break;
		case 'U':
			c->profile.hide_user = true;
			break;
		case OPT_PROBE:
			o->action = OPTIONS_PROBE;
			break;
		case OPT_LIST_EVENTS:
			o->action = OPTIONS_LIST_EVENTS;
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			o->list_glob = optarg;
			break;
		case 'h':
			o->action = OPTIONS_HELP;
			return 0;
		case 'V':
			o->action = OPTIONS_VERSION;
			return 0;
		case '?':
		default:
			if (optopt && optopt < 0x100 && strchr("dnoepCNFc", optopt))
				snprintf(err, errlen,
				         "option -%c needs a value; see 'pfmtop --help'", optopt);
			else if (optopt && optopt < 0x100)
				snprintf(err, errlen, "unknown option -%c; see 'pfmtop --help'",
				         optopt);
			else
				snprintf(err, errlen, "unknown option %s; see 'pfmtop --help'",
				         quoted(q, argv[optind - 1]));
			return -EINVAL;
		}
	}
	if (o->events_given) {
		char perr[256];
		if (events_expand_globs(NULL, &c->events, perr, sizeof(perr))) {
			snprintf(err, errlen, "-e: %s", perr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0) {
			char q2[QUOTED_MAX];

			snprintf(err, errlen,
			         "unexpected argument %s; to run a command put it after --, e.g. "
			         "pfmtop -b -- %s",
			         quoted(q, argv[optind]), quoted(q2, argv[optind]));
			return -EINVAL;
		}
		if (c->mode == MODEL_TASKS) {
			snprintf(err, errlen, "-p and a command exclude each other; use one");
			return -EINVAL;
		}
		c->argv = &argv[optind];
		c->mode = MODEL_COMMAND;
	}
	if (c->nr_cpus && c->mode != MODEL_SYSTEM) {
		snprintf(err, errlen,
		         "-C selects CPUs for system-wide mode; drop it with -p or a "
		         "command");
		return -EINVAL;
	}
	if (freq_given && period_given) {
		snprintf(err, errlen,
		         "-F (samples per second) and -c (events per sample) exclude "
		         "each other; use one");
		return -EINVAL;
	}
	if (c->profile.hide_kernel && c->profile.hide_user) {
		snprintf(err, errlen,
		         "-K and -U together hide every hotspot; use --no-hotspots to "
		         "turn sampling off");
		return -EINVAL;
	}
	if (o->events_given && o->preset) {
		snprintf(err, errlen, "-e and --preset both choose the events; use one");
		return -EINVAL;
	}
	if (!o->events_given) {
		/* Replaced by the preset's choice at start; kept for --probe. */
		char perr[256];
		if (events_parse_list(SESSION_DEFAULT_EVENTS, &c->events, perr, sizeof(perr))) {
			snprintf(err, errlen, "built-in default events: %s", perr);
			return -EINVAL;
		}
	}
	return 0;
}
