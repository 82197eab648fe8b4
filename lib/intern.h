/* Interned strings: equal contents give the same pointer, valid until the
 * program exits, so hist keys compare names by pointer. */
#ifndef PROFTOP_INTERN_H
#define PROFTOP_INTERN_H

/* The interned copy of s (thread-safe).  Used for comm names and other
 * hist keys. */
const char *intern(const char *s);

#endif
