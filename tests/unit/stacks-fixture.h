/* What the stack tests share (check_callchain, check_view_stacks): two
 * snapshots' stacks compared whole, frame by frame. */
#ifndef PROFTOP_TESTS_STACKS_FIXTURE_H
#define PROFTOP_TESTS_STACKS_FIXTURE_H

#include <check.h>

#include "view.h"

static inline void assert_same_stacks(const struct snapshot *a, const struct snapshot *b)
{
	size_t i, j;

	ck_assert_uint_eq(a->nr_stacks, b->nr_stacks);
	for (i = 0; i < a->nr_stacks; i++) {
		const struct snapshot_stack *x = &a->stacks[i], *y = &b->stacks[i];

		ck_assert_ptr_eq(x->comm, y->comm);
		ck_assert_uint_eq(x->group, y->group);
		ck_assert_uint_eq(x->samples, y->samples);
		ck_assert_uint_eq(x->period, y->period);
		ck_assert_int_eq(x->has_pid, y->has_pid);
		ck_assert_int_eq(x->has_tid, y->has_tid);
		ck_assert_uint_eq(x->pid, y->pid);
		ck_assert_uint_eq(x->tid, y->tid);
		ck_assert_uint_eq(x->nr_frames, y->nr_frames);
		for (j = 0; j < x->nr_frames; j++) {
			const struct snapshot_frame *f = &x->frames[j], *g = &y->frames[j];

			ck_assert_ptr_eq(f->symbol, g->symbol);
			ck_assert_ptr_eq(f->dso, g->dso);
			ck_assert_ptr_eq(f->object, g->object);
			ck_assert_ptr_eq(f->file, g->file);
			ck_assert_int_eq(f->kernel, g->kernel);
			ck_assert_int_eq(f->inlined, g->inlined);
			ck_assert_int_eq(f->synthetic, g->synthetic);
			ck_assert_uint_eq(snapshot_frame_addr(x, j), snapshot_frame_addr(y, j));
		}
	}
}

#endif
