/* session_cgroups: --cgroup PATH and auto, each counted on every CPU. */
#include "session_priv.h"

#include "explain.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Open cgroup dir (relative to the v2 mount unless absolute under it). */
static int add_cgroup(struct session *s, const char *path, char *err, size_t errlen)
{
	struct session_cgroup *g;
	char full[PATH_MAX];
	const char *rel = path;

	if (s->nr_cg == (int)ARRAY_SIZE(s->cg)) {
		snprintf(err, errlen, "--cgroup: at most %zu cgroups", ARRAY_SIZE(s->cg));
		return -EINVAL;
	}
	if (!strncmp(path, s->cgroup_root, strlen(s->cgroup_root)))
		rel = path + strlen(s->cgroup_root);
	snprintf(full, sizeof(full), "%s/%s", s->cgroup_root, rel[0] == '/' ? rel + 1 : rel);
	g = &s->cg[s->nr_cg];
	memset(g, 0, sizeof(*g));
	g->dirfd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g->dirfd < 0) {
		snprintf(err, errlen, "--cgroup %s: %s (cgroup v2 paths are relative to %s)", path,
		         strerror(errno), s->cgroup_root);
		return -ENOENT;
	}
	snprintf(g->path, sizeof(g->path), "/%s", rel[0] == '/' ? rel + 1 : rel);
	g->cpu = calloc((size_t)s->nr_cpus, sizeof(*g->cpu));
	if (!g->cpu) {
		close(g->dirfd);
		return -ENOMEM;
	}
	s->nr_cg++;
	for (int i = 0; i < s->nr_cpus; i++) {
		struct session_target *t = &g->cpu[i];
		int ret;

		t->pid = t->tid = -1;
		t->cpu = s->cpus[i];
		ret = counters_open_cgroup(&t->cs, &s->ccfg, g->dirfd, s->cpus[i]);
		if (ret == 0 && t->cs.nr_open) {
			t->counted = true;
			s->fds_used += t->cs.nr_open;
		} else {
			counters_close(&t->cs);
			snprintf(t->note, sizeof(t->note), "not counted: %s",
			         explain_short(ret ? -ret : ENOENT));
		}
	}
	return 0;
}

/* --cgroup auto: the top-level cgroups that hold tasks. */
static int auto_cgroups(struct session *s, char *err, size_t errlen)
{
	DIR *d = opendir(s->cgroup_root);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && !ret) {
		char path[PATH_MAX], buf[64];
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/cgroup.procs", s->cgroup_root, de->d_name);
		bool tasks = util_read_file(path, buf, sizeof(buf)) == 0 && buf[0];
		snprintf(path, sizeof(path), "%s/%s/cgroup.events", s->cgroup_root, de->d_name);
		char ev[256];
		if (!tasks && util_read_file(path, ev, sizeof(ev)) == 0 &&
		    strstr(ev, "populated 1"))
			tasks = true;
		if (tasks)
			ret = add_cgroup(s, de->d_name, err, errlen);
	}
	closedir(d);
	return ret;
}

int session_open_cgroups(struct session *s, char *err, size_t errlen)
{
	int ret = 0;

	if (!s->cfg->nr_cgroups && !s->cfg->cgroup_auto)
		return 0;
	if (s->mode != MODEL_SYSTEM) {
		snprintf(err, errlen,
		         "--cgroup counts system-wide: it needs root, CAP_PERFMON or "
		         "perf_event_paranoid <= 0, and no -p or command");
		return -EINVAL;
	}
	if (procfs_cgroup2_root(&s->proc, s->cgroup_root, sizeof(s->cgroup_root))) {
		snprintf(err, errlen,
		         "--cgroup: no cgroup v2 hierarchy is mounted (mount -t cgroup2 "
		         "none /sys/fs/cgroup/unified)");
		return -ENOENT;
	}
	for (int i = 0; i < s->cfg->nr_cgroups && !ret; i++)
		ret = add_cgroup(s, s->cfg->cgroups[i], err, errlen);
	if (!ret && s->cfg->cgroup_auto)
		ret = auto_cgroups(s, err, errlen);
	if (!ret && s->cfg->cgroup_auto && s->nr_cg == 0)
		model_note(&s->model, "--cgroup auto: no top-level cgroup under %s holds tasks",
		           s->cgroup_root);
	return ret;
}

void session_cgroup_rows(struct session *s, bool final)
{
	struct model *m = &s->model;
	struct counter_value *cells = calloc((size_t)s->nr_ev + 1, sizeof(*cells));

	if (!cells)
		return;
	for (int g = 0; g < s->nr_cg; g++) {
		struct model_row *r = model_add_cgroup(m);
		if (!r)
			break;
		util_strlcpy(r->cgroup, s->cg[g].path, sizeof(r->cgroup));
		util_strlcpy(r->comm, s->cg[g].path, sizeof(r->comm));
		for (int i = 0; i < s->nr_cpus; i++) {
			session_target_cells(s, &s->cg[g].cpu[i], final, cells);
			r->counted |= s->cg[g].cpu[i].counted;
			for (int k = 0; k < s->nr_ev; k++)
				session_cell_add(&r->cells[k], &cells[k], i == 0);
		}
		metrics_compute(&s->metrics, r);
	}
	free(cells);
}
