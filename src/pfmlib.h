/* pfmlib: libpfm4, opened with dlopen() the first time an event name needs it. */
#ifndef PFMTOP_PFMLIB_H
#define PFMTOP_PFMLIB_H

#include <perfmon/pfmlib.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * pfmtop does not link libpfm4: loading it costs ~2 MB of resident memory
 * and ~2.5 ms of relocations and pfm_initialize() at every start, while the
 * common case (the kernel's generic events, see events.c) needs none of it.
 * The headers still give the types and constants; the functions come from
 * this table.
 */
struct pfmlib {
	pfm_err_t (*initialize)(void);
	pfm_err_t (*get_os_event_encoding)(const char *str, int dfl_plm, pfm_os_t os, void *args);
	pfm_err_t (*get_pmu_info)(pfm_pmu_t pmu, pfm_pmu_info_t *output);
	pfm_err_t (*get_event_info)(int idx, pfm_os_t os, pfm_event_info_t *output);
	int (*get_event_next)(int idx);
	const char *(*strerror)(int code);
	int (*get_version)(void);
};

/*
 * The library, opened (soname PFMTOP_LIBPFM_SONAME, from CMake) and
 * initialised on the first call. NULL when that fails, with one line in err
 * that says what to do; the outcome is kept, so later calls are cheap and
 * give the same answer. Not thread-safe: call it from one thread.
 *
 * Tests simulate a machine without libpfm4 by setting PFMTOP_TEST_LIBPFM to
 * a file that does not exist: it is opened instead of the soname (ignored
 * in set-user-ID or file-capability runs, like LD_PRELOAD).
 */
const struct pfmlib *pfmlib_get(char *err, size_t errlen);

/* True once pfmlib_get() has opened and initialised the library. */
bool pfmlib_loaded(void);

#endif
