/* pfmlib: libpfm4, opened with dlopen() the first time an event name needs it. */
#include "pfmlib.h"

#include "dlbind.h"

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
	static const struct dlbind_lib libpfm = {
	    .soname = PFMTOP_LIBPFM_SONAME,
	    .test_env = "PFMTOP_TEST_LIBPFM",
	    .package = "libpfm4",
	    .without = WITHOUT,
	};
	static const struct dlbind_sym syms[] = {
	    DLBIND(struct pfmlib, initialize, pfm_initialize),
	    DLBIND(struct pfmlib, get_os_event_encoding, pfm_get_os_event_encoding),
	    DLBIND(struct pfmlib, get_pmu_info, pfm_get_pmu_info),
	    DLBIND(struct pfmlib, get_event_info, pfm_get_event_info),
	    DLBIND(struct pfmlib, get_event_next, pfm_get_event_next),
	    DLBIND(struct pfmlib, strerror, pfm_strerror),
	    DLBIND(struct pfmlib, get_version, pfm_get_version),
	};
	int ret;

	if (!dlbind_open(&libpfm, syms, sizeof(syms) / sizeof(syms[0]), &lib, why, sizeof(why)))
		return -1;
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
