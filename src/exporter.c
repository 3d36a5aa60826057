/* exporter: the running sums, the HTTP server and the metrics file, as main drives them. */
#include "exporter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The page of dialect d for the last model: rendered once per model,
 * shared by the requests (each holds a reference until it is sent). */
static struct httpd_blob *page(enum om_dialect d, void *arg)
{
	struct exporter *ex = arg;
	char *text;
	size_t len;

	if (!ex->model) {
		errno = EAGAIN;
		return NULL;
	}
	if (!ex->page[d] || ex->page_gen[d] != ex->gen) {
		text = exporter_render(ex, d, &len);
		if (!text)
			return NULL;
		httpd_blob_unref(ex->page[d]);
		ex->page[d] = httpd_blob_new(text, len);
		free(text);
		if (!ex->page[d])
			return NULL;
		ex->page_gen[d] = ex->gen;
	}
	ex->page[d]->refs++;
	return ex->page[d];
}

/* A task's command line for its cmdline label: read once an interval (the
 * renderer asks once per series), cut at EXPORTER_CMDLINE_MAX; NULL when
 * the task is gone. */
static const char *cmdline(pid_t pid, void *arg)
{
	struct exporter *ex = arg;
	struct exporter_cmdline *c = &ex->cmdlines[(uint32_t)pid % EXPORTER_CMDLINE_CACHE];

	if (c->pid != pid || c->gen != ex->gen) {
		c->pid = pid;
		c->gen = ex->gen;
		if (procfs_cmdline(&ex->proc, pid, c->text, sizeof(c->text)))
			c->text[0] = '\0';
	}
	return c->text[0] ? c->text : NULL;
}

int exporter_open(struct exporter *ex, const struct exporter_config *cfg, bool on, char *err,
                  size_t errlen)
{
	int ret;

	memset(ex, 0, sizeof(*ex));
	om_init(&ex->sums);
	procfs_init(&ex->proc, NULL);
	ex->http.sock = ex->http.epoll_fd = ex->http.poll_fd = ex->http.timer_fd = -1;
	ex->on = on || cfg->listen;
	ex->cfg.tasks = cfg->tasks;
	ex->sums.keep_tasks = cfg->tasks > 0;
	if (cfg->cmdline) {
		ex->cfg.cmdline = cmdline;
		ex->cfg.cmdline_arg = ex;
	}
	if (!cfg->listen)
		return 0;
	if (cfg->web_config) {
		ret = webconfig_load(&ex->web, cfg->web_config, err, errlen);
		if (ret)
			return ret;
		ex->web_loaded = true;
	}
	struct httpd_config hc = {
	    .listen = cfg->listen,
	    .allow_remote = cfg->allow_remote,
	    .web = ex->web_loaded ? &ex->web : NULL,
	    .page = page,
	    .arg = ex,
	};
	ret = httpd_open(&ex->http, &hc, err, errlen);
	if (ret)
		return ret;
	ex->serving = true;
	ex->cfg.nr_http = HTTPD_NR_CODES;
	ex->cfg.http_codes = ex->http.codes;
	ex->cfg.http_counts = ex->http.counts;
	return 0;
}

void exporter_update(struct exporter *ex, const struct model *m)
{
	if (!ex->on)
		return;
	om_update(&ex->sums, m);
	ex->model = m;
	ex->gen++;
}

char *exporter_render(struct exporter *ex, enum om_dialect d, size_t *len)
{
	if (!ex->model) {
		errno = EAGAIN;
		return NULL;
	}
	return om_render(&ex->sums, ex->model, &ex->cfg, d, len);
}

int exporter_fd(const struct exporter *ex)
{
	return ex->serving ? httpd_fd(&ex->http) : -1;
}

void exporter_run(struct exporter *ex)
{
	if (ex->serving)
		httpd_run(&ex->http);
}

const char *exporter_where(const struct exporter *ex)
{
	return ex->serving ? ex->http.where : "";
}

void exporter_close(struct exporter *ex)
{
	if (ex->serving)
		httpd_close(&ex->http);
	for (int d = 0; d < 2; d++)
		httpd_blob_unref(ex->page[d]);
	if (ex->web_loaded)
		webconfig_free(&ex->web);
	om_free(&ex->sums);
	procfs_close(&ex->proc);
	memset(ex, 0, sizeof(*ex));
}
