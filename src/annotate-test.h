/* annotate.c's insides that its unit test drives: included by annotate.c
 * and tests/unit/check_annotate.c only. */
#ifndef PROFTOP_ANNOTATE_TEST_H
#define PROFTOP_ANNOTATE_TEST_H

struct annotate;

/* hook(arg) is called before each function is decoded, where decoding
 * runs: without the lock that samples take. */
void annotate_set_decode_hook(struct annotate *a, void (*hook)(void *), void *arg);

#endif
