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

/* The name to show for a symbol's raw name: its demangled form (func@plt
 * keeps its suffix), computed on first use and cached for the rest of the
 * run, or name itself when it is not mangled or demangling is off.  The
 * loaders keep raw names, so only names that get displayed pay for
 * demangling (a large C++ binary has tens of thousands).  Thread-safe; the
 * result stays valid until exit. */
const char *demangle_display(const char *name);

#endif
