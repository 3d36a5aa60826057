/* pfmlib: libpfm4, opened with dlopen() the first time an event name needs it. */
#include "pfmlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PFMTOP_LIBPFM_SONAME
#define PFMTOP_LIBPFM_SONAME "libpfm.so.4"
#endif

#define WITHOUT                                                                                    \
	"only the kernel's generic events, tracepoints, sysfs PMU events and raw rNNN are "        \
	"available"

static enum { UNTRIED, LOADED, FAILED } state;
static struct pfmlib lib;
static char why[320];

static int load(void)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
	    {"pfm_initialize", offsetof(struct pfmlib, initialize)},
	    {"pfm_get_os_event_encoding", offsetof(struct pfmlib, get_os_event_encoding)},
	    {"pfm_get_pmu_info", offsetof(struct pfmlib, get_pmu_info)},
	    {"pfm_get_event_info", offsetof(struct pfmlib, get_event_info)},
	    {"pfm_get_event_next", offsetof(struct pfmlib, get_event_next)},
	    {"pfm_strerror", offsetof(struct pfmlib, strerror)},
	    {"pfm_get_version", offsetof(struct pfmlib, get_version)},
	};
	const char *soname = secure_getenv("PFMTOP_TEST_LIBPFM");
	const char *dlerr;
	void *h;
	int ret;

	if (!soname || !soname[0])
		soname = PFMTOP_LIBPFM_SONAME;
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		dlerr = dlerror();
		if (!dlerr || strstr(dlerr, "No such file"))
			snprintf(why, sizeof(why),
			         "libpfm4 is not installed (apt-get install libpfm4): " WITHOUT);
		else
			snprintf(why, sizeof(why),
			         "cannot load libpfm4 (%s): reinstall it (apt-get install "
			         "--reinstall libpfm4); until then " WITHOUT,
			         dlerr);
		return -1;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f) {
			snprintf(why, sizeof(why),
			         "%s has no %s: reinstall libpfm4 (apt-get install --reinstall "
			         "libpfm4); until then " WITHOUT,
			         soname, syms[i].name);
			dlclose(h);
			return -1;
		}
		/* POSIX guarantees that a data pointer from dlsym() converts. */
		memcpy((char *)&lib + syms[i].off, &f, sizeof(f));
	}
	ret = lib.initialize();
	if (ret != PFM_SUCCESS) {
		snprintf(why, sizeof(why), "cannot initialise libpfm4: %s", lib.strerror(ret));
		return -1;
	}
	return 0;
}

const struct pfmlib *pfmlib_get(char *err, size_t errlen)
{
	if (state == UNTRIED)
		state = load() ? FAILED : LOADED;
	if (state == LOADED)
		return &lib;
	if (err && errlen)
		snprintf(err, errlen, "%s", why);
	return NULL;
}

bool pfmlib_loaded(void)
{
	return state == LOADED;
}
