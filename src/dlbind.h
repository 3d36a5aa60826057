/* dlbind: a shared library opened with dlopen() only when a feature needs it. */
#ifndef PFMTOP_DLBIND_H
#define PFMTOP_DLBIND_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Linking a library costs every start its relocations and the pages they
 * touch (capstone alone: ~370 page faults and 3 MB of resident memory),
 * while most runs never annotate or serve metrics. Such a library is
 * opened when first needed: its headers give the types, a table of
 * function pointers the functions.
 */
struct dlbind_sym {
	const char *name;
	size_t off;    /* of the pointer in the table */
	bool optional; /* absent: the pointer stays NULL */
};

#define DLBIND(type, field, sym)                                                                   \
	{                                                                                          \
#sym, offsetof(type, field), false                                                 \
	}
#define DLBIND_OPT(type, field, sym)                                                               \
	{                                                                                          \
#sym, offsetof(type, field), true                                                  \
	}

struct dlbind_lib {
	const char *soname;   /* e.g. "libcapstone.so.4" (from CMake) */
	const char *test_env; /* tests name another file to open in it (not set-user-ID) */
	const char *package;  /* the Debian package to install */
	const char *without;  /* what cannot be done without it, e.g. "annotate cannot run" */
};

/*
 * Opens lib and fills table's pointers from syms. Returns the handle (for
 * dlclose()), or NULL with one line in why that says what to install and
 * what cannot be done until then.
 */
void *dlbind_open(const struct dlbind_lib *lib, const struct dlbind_sym *syms, size_t nr,
                  void *table, char *why, size_t whylen);

#endif
