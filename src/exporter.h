/* exporter: the running sums, the HTTP server and the metrics file, as main drives them. */
#ifndef PFMTOP_EXPORTER_H
#define PFMTOP_EXPORTER_H

#include "httpd.h"
#include "model.h"
#include "openmetrics.h"
#include "procfs.h"
#include "webconfig.h"

#include <stdbool.h>

struct exporter_config {
	const char *listen; /* NULL: no HTTP server */
	bool allow_remote;
	const char *web_config; /* NULL: plain HTTP, no users */
	int tasks;              /* --export-tasks */
	bool cmdline;           /* --export-cmdline */
};

/* Command lines read for the cmdline label, once per pid and interval. */
#define EXPORTER_CMDLINE_CACHE 64
#define EXPORTER_CMDLINE_MAX   256

struct exporter_cmdline {
	pid_t pid;
	uint64_t gen; /* the exporter's gen when read */
	char text[EXPORTER_CMDLINE_MAX];
};

struct exporter {
	bool on;      /* sums are kept (serving, or writing metrics) */
	bool serving; /* the HTTP server runs */
	struct om_state sums;
	struct om_config cfg;
	struct webconfig web;
	bool web_loaded;
	struct httpd http;
	const struct model *model;  /* the last one added */
	uint64_t gen;               /* exporter_update() calls */
	struct httpd_blob *page[2]; /* by dialect, rendered at gen page_gen */
	uint64_t page_gen[2];
	struct procfs proc; /* --export-cmdline reads /proc/PID/cmdline */
	struct exporter_cmdline cmdlines[EXPORTER_CMDLINE_CACHE];
};

/*
 * Get ready: with cfg->listen, load the web config and bind (nothing is
 * served before exporter_run()). on says whether sums are kept at all
 * (also for --format openmetrics/prometheus). 0, or -errno with one
 * sentence in err.
 */
int exporter_open(struct exporter *ex, const struct exporter_config *cfg, bool on, char *err,
                  size_t errlen);

/* Add the interval m holds (a no-op when off); m stays the one served. */
void exporter_update(struct exporter *ex, const struct model *m);

/* The metrics of the last model, rendered (malloc'd, *len bytes), or NULL
 * with errno set. */
char *exporter_render(struct exporter *ex, enum om_dialect d, size_t *len);

/* The HTTP server's fd to watch (-1 when not serving), and its work. */
int exporter_fd(const struct exporter *ex);
void exporter_run(struct exporter *ex);

/* "http://127.0.0.1:9464/metrics", or "" when not serving. */
const char *exporter_where(const struct exporter *ex);

void exporter_close(struct exporter *ex);

#endif
