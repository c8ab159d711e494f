#ifndef LINEUP_CJEMALLOC_SHIM_H
#define LINEUP_CJEMALLOC_SHIM_H

#include <stddef.h>

/*
 * jemalloc's control interface, the one function of it Lineup calls (to report which allocator
 * serves the process). <jemalloc/jemalloc.h> is not included: Debian builds jemalloc without a
 * prefix, so that header declares malloc and free again, which would make them ambiguous in a
 * Swift file that also imports Glibc. Linking the library is what replaces malloc.
 */
int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

#endif
