/* ring.c's insides that its unit test drives: included by ring.c and
 * tests/unit/check_ring.c only. */
#ifndef PROFTOP_RING_TEST_H
#define PROFTOP_RING_TEST_H

#include <stddef.h>

struct ring;

/* Wrap an existing buffer laid out like a mapped ring: base points to the
 * control page, data_size bytes of data follow at data_offset. */
struct ring *ring_wrap(void *base, size_t data_offset, size_t data_size);

#endif
