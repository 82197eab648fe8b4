/* unwind.c's hooks for its unit tests: included by unwind.c,
 * unwind-queue.c and tests/unit/check_unwind.c only. */
#ifndef PROFTOP_UNWIND_TEST_H
#define PROFTOP_UNWIND_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dso;
struct unwinder;
struct unwind_file;
struct unwind_queue;

/* Processes holding a Dwfl now (bounded), and processes known. */
size_t unwind_test_dwfls(const struct unwinder *u);
size_t unwind_test_procs(const struct unwinder *u);
/* Binary searches of pid's maps so far. */
size_t unwind_test_map_searches(struct unwinder *u, uint32_t pid);
/* The queue thread's processes known, once the thread has walked all
 * that was queued (call after unwind_queue_next(..., true) gave NULL). */
size_t unwind_queue_test_procs(const struct unwind_queue *q);
/* Stack buffers the queue holds, in slots or free. */
size_t unwind_queue_test_buffers(const struct unwind_queue *q);
/* How often the engine's side handed slots to the thread. */
size_t unwind_queue_test_publishes(const struct unwind_queue *q);

/* Slots whose stack is held in the source now; *unholds: how often the
 * queue copied them out because the source was short of room. */
size_t unwind_queue_test_held(const struct unwind_queue *q, size_t *unholds);

/* Hold (true) or let go every queue's thread before the first slot it
 * takes once started or woken (read once a pass, not once a slot): set
 * while the thread is idle (nothing queued, or all walked), a test's
 * samples then wait on the queue while records go on. */
void unwind_queue_test_hold(bool hold);

/* The unwinder's file of d (opened if it was not). */
struct unwind_file *unwind_test_file(struct unwinder *u, struct dso *d);

#endif
