/* dlbind: a shared library opened with dlopen() only when a feature needs it. */
#include "dlbind.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *dlbind_open(const struct dlbind_lib *lib, const struct dlbind_sym *syms, size_t nr,
                  void *table, char *why, size_t whylen)
{
	const char *file = lib->test_env ? secure_getenv(lib->test_env) : NULL;
	const char *dlerr;
	void *h;

	if (!file || !file[0])
		file = lib->soname;
	h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		dlerr = dlerror();
		if (!dlerr || strstr(dlerr, "No such file"))
			snprintf(why, whylen, "%s is not installed (apt-get install %s): %s",
			         lib->package, lib->package, lib->without);
		else
			snprintf(
			    why, whylen,
			    "cannot load %s (%s): reinstall it (apt-get install --reinstall %s); "
			    "until then %s",
			    lib->package, dlerr, lib->package, lib->without);
		return NULL;
	}
	for (size_t i = 0; i < nr; i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f && !syms[i].optional) {
			snprintf(
			    why, whylen,
			    "%s has no %s: reinstall %s (apt-get install --reinstall %s); until "
			    "then %s",
			    file, syms[i].name, lib->package, lib->package, lib->without);
			dlclose(h);
			return NULL;
		}
		/* POSIX guarantees that a data pointer from dlsym() converts. */
		memcpy((char *)table + syms[i].off, &f, sizeof(f));
	}
	return h;
}
