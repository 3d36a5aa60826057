/* bench_exporter [CPUS TASKS]: the exporter on a simulated big machine (default
 * 256 CPUs, 10,000 counted tasks, 8 events): the cost of adding an interval
 * to the running sums, of rendering a scrape (per CPU only, and with the top
 * 100 tasks), the response sizes, and scrape latency through libmicrohttpd
 * on loopback (a forked client, the server on an epoll loop as pfmtop's). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "httpd.h"
#include "openmetrics.h"

#define NR_EVENTS 8
#define SCRAPES   200

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const names[NR_EVENTS] = {
    "cycles",     "instructions",     "cache-misses",   "branch-misses",
    "task-clock", "context-switches", "cpu-migrations", "page-faults",
};

static void fill(struct model *m, int cpus, int tasks, uint64_t seq)
{
	model_clear_rows(m);
	m->seq = seq;
	m->wall_ns = (uint64_t)(1.7e9 + (double)seq) * 1000000000ull;
	m->interval_s = 1.0;
	m->mode = MODEL_SYSTEM;
	m->tasks_total = tasks;
	for (int c = 0; c < cpus; c++) {
		struct model_row *r = model_add_cpu(m);
		r->kind = MODEL_ROW_CPU;
		r->cpu = c;
		for (int e = 0; e < NR_EVENTS; e++)
			r->cells[e] = (struct counter_value){1e6 + c * 7 + e, 1, COUNTER_OK};
	}
	for (int t = 0; t < tasks; t++) {
		struct model_row *r = model_add_task(m);
		r->kind = MODEL_ROW_PROCESS;
		r->pid = r->tid = 1000 + t;
		r->start = 42 + (uint64_t)t;
		r->counted = true;
		r->cpu_pct = 100.0 * (tasks - t) / tasks;
		snprintf(r->comm, sizeof(r->comm), "worker-%d", t % 97);
		for (int e = 0; e < NR_EVENTS; e++)
			r->cells[e] = (struct counter_value){1e3 + t + e, 1, COUNTER_OK};
	}
}

static struct om_state *g_st;
static struct model *g_m;
static struct om_config g_cfg = {.tasks = 100};

static struct httpd_blob *page(enum om_dialect d, void *arg)
{
	size_t len;
	char *text = om_render(g_st, g_m, &g_cfg, d, &len);
	struct httpd_blob *b = text ? httpd_blob_new(text, len) : NULL;

	free(text);
	return b;
}

/* The client: SCRAPES sequential GETs; prints their latency. Each is
 * rendered afresh (pfmtop renders once an interval and shares it). */
static int client(int port)
{
	double total = 0, worst = 0;
	size_t bytes = 0;
	char buf[65536];

	for (int i = 0; i < SCRAPES; i++) {
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
		const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		double t0 = now_s(), dt;
		ssize_t n;

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
		    write(fd, req, sizeof(req) - 1) < 0)
			return 1;
		bytes = 0;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			bytes += (size_t)n;
		close(fd);
		dt = now_s() - t0;
		total += dt;
		if (dt > worst)
			worst = dt;
	}
	printf("HTTP scrape (top 100 tasks, 0.0.4), %d in a row: mean %.2f ms, worst %.2f ms, "
	       "%zu bytes each\n",
	       SCRAPES, total / SCRAPES * 1e3, worst * 1e3, bytes);
	fflush(stdout);
	return 0;
}

static int free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &len);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

int main(int argc, char **argv)
{
	const int cpus = argc > 2 ? atoi(argv[1]) : 256, tasks = argc > 2 ? atoi(argv[2]) : 10000;
	struct om_state st;
	struct model m;
	struct om_config cfg = {0};
	double t0, dt;
	size_t len;
	char *text;

	if (cpus <= 0 || tasks < 0 || model_init(&m, NR_EVENTS))
		return 2;
	for (int e = 0; e < NR_EVENTS; e++) {
		snprintf(m.events[e].name, sizeof(m.events[e].name), "%s", names[e]);
		m.events[e].opened = true;
		m.events[e].scale = e == 4 ? 1e-6 : 1.0;
		snprintf(m.events[e].unit, sizeof(m.events[e].unit), "%s", e == 4 ? "ms" : "");
		m.events[e].coverage = 1;
	}
	om_init(&st);
	st.keep_tasks = true; /* as --export-tasks makes it */
	printf("simulated machine: %d CPUs, %d counted tasks, %d events\n", cpus, tasks, NR_EVENTS);
	fill(&m, cpus, tasks, 1);
	t0 = now_s();
	for (int i = 0; i < 20; i++) {
		m.seq = (uint64_t)i + 1;
		om_update(&st, &m);
	}
	dt = (now_s() - t0) / 20;
	printf("adding an interval to the sums: %.2f ms\n", dt * 1e3);
	for (int k = 0; k < 2; k++) {
		cfg.tasks = k ? 100 : 0;
		for (int d = 0; d < 2; d++) {
			t0 = now_s();
			for (int i = 0; i < 20; i++) {
				text = om_render(&st, &m, &cfg, (enum om_dialect)d, &len);
				free(text);
			}
			dt = (now_s() - t0) / 20;
			printf("render %-11s %-16s %7.2f ms  %8zu bytes  %6.0f series\n",
			       d == OM_OPENMETRICS ? "openmetrics" : "0.0.4",
			       k ? "(+top 100 tasks)" : "(per CPU)", dt * 1e3, len,
			       (double)(cpus + cfg.tasks + 1) * NR_EVENTS + NR_EVENTS * 6 + 12);
		}
	}

	/* Scrapes through the HTTP server, driven as pfmtop drives it. */
	struct httpd h;
	char where[32], err[256];
	int port = free_port(), ep;
	pid_t child;

	snprintf(where, sizeof(where), "127.0.0.1:%d", port);
	g_st = &st;
	g_m = &m;
	struct httpd_config hc = {.listen = where, .page = page, .max_rate = 100000};
	if (httpd_open(&h, &hc, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	fflush(stdout);
	child = fork();
	if (child == 0)
		_exit(client(port));
	ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = httpd_fd(&h)}, out;
	epoll_ctl(ep, EPOLL_CTL_ADD, httpd_fd(&h), &ev);
	for (;;) {
		int status;

		if (epoll_wait(ep, &out, 1, 100) > 0)
			httpd_run(&h);
		if (waitpid(child, &status, WNOHANG) == child)
			break;
	}
	httpd_close(&h);
	om_free(&st);
	model_fini(&m);
	return 0;
}
