/* callchain.c's insides that its unit test checks: included by callchain.c
 * and tests/unit/check_callchain.c only. */
#ifndef PROFTOP_CALLCHAIN_TEST_H
#define PROFTOP_CALLCHAIN_TEST_H

#include <stddef.h>
#include <stdint.h>

struct callchain_store;

/* Frame ids held now (the memory bound). */
size_t callchain_store_nr_ids(const struct callchain_store *st);
/* Adds that found their chain through the token's hint, without hashing
 * the callers (the resolve cache's tokens must always hit). */
uint64_t callchain_store_hint_hits(const struct callchain_store *st);
/* The serial the next new chain gets (to test their wrap). */
void callchain_store_set_next_serial(struct callchain_store *st, uint32_t serial);

#endif
