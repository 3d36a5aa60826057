/* demangle: libiberty's cplus_demangle() over the names the symbolizer finds. */
#include "demangle.h"

#include "util.h"

#include <libiberty/demangle.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names longer than this are not demangled: the demangler's work grows with
 * the name, and a hostile binary may hold anything. */
#define MANGLED_MAX 4096

static bool is_mangled(const char *name)
{
	return (name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')) ||
	       (name[0] == '_' && name[1] == '_' && name[2] == 'Z');
}

char *demangle(const char *name, char *buf, size_t len)
{
	const char *at = strchr(name, '@');
	size_t n = at ? (size_t)(at - name) : strlen(name);
	char base[MANGLED_MAX], *out;

	if (!is_mangled(name) || n >= sizeof(base))
		return util_strlcpy(buf, name, len);
	memcpy(base, name, n);
	base[n] = '\0';
	out = cplus_demangle(base, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (!out)
		return util_strlcpy(buf, name, len);
	snprintf(buf, len, "%s%s", out, at ? at : "");
	free(out);
	return buf;
}
