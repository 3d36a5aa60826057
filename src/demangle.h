/* demangle: C++ and Rust symbol names as people write them (libiberty). */
#ifndef PFMTOP_DEMANGLE_H
#define PFMTOP_DEMANGLE_H

#include <stddef.h>

/*
 * name demangled into buf (len bytes, cut to fit): C++ (_Z...), Rust v0
 * (_R...) and legacy Rust (its hash dropped, as perf does), with a symbol
 * version (@GLIBCXX_3.4, @@VER) kept after the demangled name. A name that
 * is not mangled, or does not demangle, is copied as it is. Returns buf.
 */
char *demangle(const char *name, char *buf, size_t len);

#endif
