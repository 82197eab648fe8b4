/* Unit tests for the deferred queue: no sample held while symbols load is
 * lost.  Each is released exactly once, in the order it came, with its
 * own frames, however many are held, and also when the loading fails.
 * The kernel's symbols load from a FIFO that the test writes when it
 * chooses, so "still loading" lasts exactly as long as the test wants. */
#include "config.h"

#include "deferred.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annotate.h"
#include "callchain.h"
#include "hist.h"
#include "kernel.h"
#include "kernel-test.h"
#include "machine.h"
#include "symloader.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"

#define KADDR_A 0xffffffff81000010ULL   /* in kfunc_a */
#define KADDR_B 0xffffffff81000104ULL   /* in kfunc_b */

struct fixture {
	char dir[64];
	char *fifo, *mods;
	struct machine *m;
	struct hist *h;
	struct deferred *d;
	struct dso *kernel;              /* [kernel.kallsyms], loading */
};

static void fixture_init(struct fixture *fx, bool chains)
{
	struct sort_spec spec;
	struct resolved r;
	FILE *f;

	memset(fx, 0, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/check_deferred_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx->dir));
	fx->fifo = xasprintf("%s/kallsyms", fx->dir);
	fx->mods = xasprintf("%s/modules", fx->dir);
	ck_assert_int_eq(mkfifo(fx->fifo, 0600), 0);
	f = fopen(fx->mods, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	fx->m = machine_new();
	ck_assert_int_eq(machine_set_async(fx->m, true), 0);
	machine_set_kernel_files(fx->m, fx->fifo, fx->mods);
	ck_assert_int_eq(machine_load_kernel_async(fx->m), 0);
	machine_resolve(fx->m, 1, 1, PERF_RECORD_MISC_KERNEL, KADDR_A, &r);
	ck_assert(r.pending);
	fx->kernel = r.dso;
	ck_assert_int_eq(sort_spec_parse("sym", &spec, NULL), 0);
	fx->h = hist_new(&spec);
	if (chains)
		hist_enable_callchains(fx->h, 0);
	fx->d = deferred_new();
}

/* The kernel's symbols arrive (text NULL: the read fails, nothing named). */
static void fixture_load(struct fixture *fx, const char *text)
{
	FILE *f = fopen(fx->fifo, "w");

	ck_assert_ptr_nonnull(f);
	if (text)
		fputs(text, f);
	fclose(f);
	machine_wait_symbols(fx->m);
	ck_assert(!machine_dso_pending(fx->kernel));
}

static const char kallsyms_text[] = "ffffffff81000000 T _stext\n"
				    "ffffffff81000000 T kfunc_a\n"
				    "ffffffff81000100 T kfunc_b\n"
				    "ffffffff81001000 T _etext\n";

static void fixture_release(struct fixture *fx)
{
	deferred_free(fx->d);
	hist_free(fx->h);
	machine_free(fx->m);
	unlink(fx->fifo);
	unlink(fx->mods);
	rmdir(fx->dir);
	free(fx->fifo);
	free(fx->mods);
}

/* Sample i of a test: held for the kernel (its leaf a kernel address)
 * when i % 3 != 0, else held with every frame ready (a caller cached as
 * final); a chain of 1 + (i % 4) caller frames, each one of its own
 * (addr = marker(i, k)), so the store says which sample a frame is from. */
static bool sample_pending(size_t i)
{
	return i % 3 != 0;
}

static size_t sample_callers(size_t i)
{
	return 1 + i % 4;
}

static uint64_t marker(size_t i, size_t k)
{
	return (uint64_t)i * 8 + k + 1;
}

static uint64_t sample_period(size_t i)
{
	return 1000 + i;
}

static void hold(struct fixture *fx, size_t i)
{
	struct callchain_frame chain[8];
	struct deferred_addr at[8];
	struct hist_sample hs;
	size_t n = 1 + sample_callers(i), k;

	memset(&hs, 0, sizeof(hs));
	memset(chain, 0, sizeof(chain));
	memset(at, 0, sizeof(at));
	hs.pid = hs.tid = 1;
	hs.period = sample_period(i);
	if (sample_pending(i)) {
		chain[0].dso = fx->kernel;
		chain[0].kernel = true;
		at[0].addr = i % 2 ? KADDR_A : KADDR_B;
		at[0].pending = true;
	} else {
		/* A frame of no map, known at once. */
		chain[0].addr = marker(i, 7);
	}
	for (k = 1; k < n; k++)
		chain[k].addr = marker(i, k);
	hs.dso = chain[0].dso;
	hs.kernel = chain[0].kernel;
	hs.addr = chain[0].addr;
	hs.chain = chain;
	hs.nr_chain = n;
	deferred_add(fx->d, &hs, at, 0);
}

/* The marker frames of the hist's chains in the order the store first saw
 * them (frame ids are given in that order), as sample indexes, each once;
 * and checks that every chain is one sample's, whole, with its period. */
static size_t released_order(struct fixture *fx, size_t nsamples, size_t *order,
			     const char *leaf_name)
{
	const struct callchain_store *st = hist_callchains(fx->h);
	uint32_t max_id = 0;
	size_t i, k, n = 0;
	bool *seen = xcalloc(nsamples, sizeof(*seen));

	for (i = 0; i < callchain_store_count(st); i++) {
		struct callchain_chain c;
		const struct callchain_frame *leaf;
		size_t s;

		callchain_store_get(st, i, &c);
		ck_assert_uint_ge(c.nr, 2);
		/* The chain's first caller names its sample. */
		s = (size_t)((callchain_store_frame(st, c.ids[1])->addr - 1) / 8);
		ck_assert_uint_lt(s, nsamples);
		ck_assert_msg(!seen[s], "sample %zu released twice", s);
		seen[s] = true;
		ck_assert_uint_eq(c.nr, 1 + sample_callers(s));
		ck_assert_uint_eq(c.samples, 1);
		ck_assert_uint_eq(c.period, sample_period(s));
		for (k = 1; k < c.nr; k++)
			ck_assert_uint_eq(callchain_store_frame(st, c.ids[k])->addr, marker(s, k));
		leaf = callchain_store_frame(st, c.ids[0]);
		if (sample_pending(s)) {
			ck_assert(leaf->kernel);
			ck_assert_ptr_eq(leaf->dso, fx->kernel);
			if (leaf_name)
				ck_assert_str_eq(leaf->sym->name,
						 s % 2 ? leaf_name : "kfunc_b");
			else
				ck_assert_ptr_null(leaf->sym);
		} else {
			ck_assert_uint_eq(leaf->addr, marker(s, 7));
		}
		for (k = 0; k < c.nr; k++)
			if (c.ids[k] > max_id)
				max_id = c.ids[k];
	}
	for (i = 0; i <= max_id && callchain_store_count(st); i++) {
		const struct callchain_frame *f = callchain_store_frame(st, (uint32_t)i);

		if (!f->kernel && f->addr && (f->addr - 1) % 8 == 1) {
			ck_assert_uint_lt(n, nsamples);
			order[n++] = (size_t)((f->addr - 1) / 8);
		}
	}
	free(seen);
	return n;
}

/* Held samples whose frames are ready go at the first flush; those held for
 * the kernel stay (however often flushed, with more added meanwhile) and
 * all go once its symbols are in: each once, in order, with its frames. */
START_TEST(test_none_lost_in_order)
{
	enum { N = 3000 };
	struct fixture fx;
	size_t *order = xmalloc(N * sizeof(*order)), n, i, j, held = 0;
	uint64_t total = 0;

	fixture_init(&fx, true);
	/* Three batches, a flush after each while the kernel still loads. */
	for (j = 0; j < 3; j++) {
		for (i = j * N / 3; i < (j + 1) * N / 3; i++) {
			hold(&fx, i);
			held += sample_pending(i);
			total += sample_pending(i) ? 0 : sample_period(i);
		}
		ck_assert_uint_eq(deferred_flush(fx.d, fx.m, fx.h, 0, HIST_ACCUMULATE), held);
		ck_assert_uint_eq(hist_total_period(fx.h), total);
	}
	/* The ready ones, in the order they came. */
	n = released_order(&fx, N, order, NULL);
	ck_assert_uint_eq(n, N - held);
	for (i = 0, j = 0; i < N; i++)
		if (!sample_pending(i))
			ck_assert_uint_eq(order[j++], i);

	fixture_load(&fx, kallsyms_text);
	ck_assert_uint_eq(deferred_flush(fx.d, fx.m, fx.h, 0, HIST_ACCUMULATE), 0);
	ck_assert_uint_eq(deferred_frames(fx.d), 0);
	n = released_order(&fx, N, order, "kfunc_a");
	ck_assert_uint_eq(n, N);
	/* Then the held ones, in the order they came. */
	for (i = 0, j = N - held; i < N; i++)
		if (sample_pending(i))
			ck_assert_uint_eq(order[j++], i);
	for (i = 0, total = 0; i < N; i++)
		total += sample_period(i);
	ck_assert_uint_eq(hist_total_period(fx.h), total);
	ck_assert_uint_eq(hist_total_samples(fx.h), N);
	/* Released once: a flush now adds nothing. */
	ck_assert_uint_eq(deferred_flush(fx.d, fx.m, fx.h, 0, HIST_ACCUMULATE), 0);
	ck_assert_uint_eq(hist_total_period(fx.h), total);
	free(order);
	fixture_release(&fx);
}
END_TEST

/* The kernel's symbols cannot be read: the held samples are released all
 * the same, once each, under [unknown] in [kernel.kallsyms]. */
START_TEST(test_load_fails)
{
	enum { N = 200 };
	struct fixture fx;
	size_t *order = xmalloc(N * sizeof(*order)), i;
	uint64_t total = 0;

	fixture_init(&fx, true);
	for (i = 0; i < N; i++) {
		hold(&fx, i);
		total += sample_period(i);
	}
	fixture_load(&fx, NULL);
	ck_assert_uint_eq(deferred_flush(fx.d, fx.m, fx.h, 0, HIST_ACCUMULATE), 0);
	ck_assert_uint_eq(released_order(&fx, N, order, NULL), N);
	for (i = 0; i < N; i++)
		ck_assert_uint_eq(order[i], i);
	ck_assert_uint_eq(hist_total_period(fx.h), total);
	ck_assert_uint_eq(hist_total_samples(fx.h), N);
	free(order);
	fixture_release(&fx);
}
END_TEST

/* Samples of one frame (no chain), held for the kernel: each lands on its
 * own symbol once loaded, aged by the refreshes it waited under decay. */
START_TEST(test_single_frames_and_age)
{
	struct fixture fx;
	struct hist_sample hs;
	struct deferred_addr at = { KADDR_A, true };
	const char *spec = "kfunc_a";
	struct annotate *an = annotate_new(&spec, 1, false);
	struct annotate_report *r;
	uint64_t a = 0, b = 0;
	size_t i;

	fixture_init(&fx, false);
	deferred_set_annotate(fx.d, an);
	memset(&hs, 0, sizeof(hs));
	hs.pid = hs.tid = 1;
	hs.dso = fx.kernel;
	hs.kernel = true;
	for (i = 0; i < 100; i++) {
		hs.period = 800 + i;
		at.addr = i % 2 ? KADDR_A : KADDR_B;
		/* Half came before one refresh, half after. */
		deferred_add(fx.d, &hs, &at, i < 50 ? 0 : 1);
		if (i % 2)
			a += i < 50 ? (hs.period / 8) * 7 + (hs.period % 8) * 7 / 8 : hs.period;
		else
			b += i < 50 ? (hs.period / 8) * 7 + (hs.period % 8) * 7 / 8 : hs.period;
	}
	ck_assert_uint_eq(deferred_frames(fx.d), 100);
	ck_assert_uint_eq(deferred_flush(fx.d, fx.m, fx.h, 1, HIST_DECAY), 100);
	ck_assert_uint_eq(hist_count(fx.h), 0);
	fixture_load(&fx, kallsyms_text);
	ck_assert_uint_eq(deferred_flush(fx.d, fx.m, fx.h, 1, HIST_DECAY), 0);
	ck_assert_uint_eq(hist_total_samples(fx.h), 100);
	ck_assert_uint_eq(hist_count(fx.h), 2);
	for (i = 0; i < hist_count(fx.h); i++) {
		const struct hist_entry *e = hist_entry_at(fx.h, i);

		ck_assert_ptr_nonnull(e->sym);
		ck_assert_uint_eq(e->period, strcmp(e->sym->name, "kfunc_a") ? b : a);
	}
	/* --annotate saw kfunc_a's samples as they joined the hist, at the
	 * sampled address. */
	r = annotate_report(an);
	ck_assert_uint_eq(r->nr_fns, 1);
	ck_assert_uint_eq(r->fns[0].period, a);
	ck_assert_uint_eq(r->fns[0].samples, 50);
	ck_assert_uint_eq(r->fns[0].nr_lines, 1);
	ck_assert_uint_eq(r->fns[0].lines[0].addr, KADDR_A);
	annotate_report_free(r);
	annotate_free(an);
	fixture_release(&fx);
}
END_TEST

static Suite *deferred_suite(void)
{
	Suite *s = suite_create("deferred");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_none_lost_in_order);
	tcase_add_test(tc, test_load_fails);
	tcase_add_test(tc, test_single_frames_and_age);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(deferred_suite()) ? 1 : 0;
}
