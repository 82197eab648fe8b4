/* Demangling C++ and Rust symbol names, in one place for every loader. */
#ifndef PROFTOP_DEMANGLE_H
#define PROFTOP_DEMANGLE_H

#include <stdbool.h>

/* --no-demangle: names stay raw.  Set before any symbols load. */
void demangle_set_enabled(bool on);

/* The readable form of name, malloc'd, or NULL when it is not mangled, is
 * mangled in a way we do not read (Rust v0 "_R..."), or demangling is off
 * or unavailable.  C++ (Itanium "_Z...") goes through libstdc++'s
 * __cxa_demangle, loaded with dlopen on first use; Rust legacy names
 * (C++-mangled, ending in "17h<16 hex>E") also lose their "::h<hash>".
 * Thread-safe. */
char *demangle(const char *name);

#endif
