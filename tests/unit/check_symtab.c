/* Unit tests for symbols/symtab.c: alias choice, sizeless ends, lookup
 * bounds, and a randomized comparison with a linear scan. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symtab.h"
#include "testutil.h"

static const char *name_at(const struct symtab *st, uint64_t addr)
{
	const struct symbol *s = symtab_lookup(st, addr);

	return s ? s->name : NULL;
}

START_TEST(test_alias_sized_wins)
{
	struct symtab *st = symtab_new();

	symtab_add(st, 0x1000, 0, SYMTAB_GLOBAL, "nosize", UINT64_MAX);
	symtab_add(st, 0x1000, 0x10, SYMTAB_LOCAL, "sized", UINT64_MAX);
	symtab_finish(st);
	ck_assert_uint_eq(symtab_count(st), 1);
	ck_assert_str_eq(symtab_get(st, 0)->name, "sized");
	ck_assert_uint_eq(symtab_get(st, 0)->end, 0x1010);
	symtab_free(st);
}
END_TEST

START_TEST(test_alias_binding)
{
	struct symtab *st = symtab_new();

	symtab_add(st, 0x100, 8, SYMTAB_LOCAL, "loc", UINT64_MAX);
	symtab_add(st, 0x100, 8, SYMTAB_GLOBAL, "glob", UINT64_MAX);
	symtab_add(st, 0x100, 8, SYMTAB_WEAK, "weak", UINT64_MAX);
	symtab_add(st, 0x200, 8, SYMTAB_LOCAL, "loc2", UINT64_MAX);
	symtab_add(st, 0x200, 8, SYMTAB_WEAK, "weak2", UINT64_MAX);
	symtab_finish(st);
	ck_assert_uint_eq(symtab_count(st), 2);
	ck_assert_str_eq(name_at(st, 0x100), "glob");
	/* perf's choice: a local name over a weak one (libc's debug file:
	 * __GI___libc_write over write). */
	ck_assert_str_eq(name_at(st, 0x204), "loc2");
	symtab_free(st);
}
END_TEST

START_TEST(test_alias_underscores_then_length)
{
	struct symtab *st = symtab_new();

	symtab_add(st, 0x100, 8, SYMTAB_GLOBAL, "__memcpy", UINT64_MAX);
	symtab_add(st, 0x100, 8, SYMTAB_GLOBAL, "memcpy", UINT64_MAX);
	symtab_add(st, 0x100, 8, SYMTAB_GLOBAL, "_memcpy", UINT64_MAX);
	symtab_add(st, 0x200, 8, SYMTAB_GLOBAL, "abc", UINT64_MAX);
	symtab_add(st, 0x200, 8, SYMTAB_GLOBAL, "abcdef", UINT64_MAX);
	symtab_add(st, 0x200, 8, SYMTAB_GLOBAL, "xyz", UINT64_MAX);
	symtab_finish(st);
	ck_assert_str_eq(name_at(st, 0x100), "memcpy");
	ck_assert_str_eq(name_at(st, 0x200), "abcdef");
	symtab_free(st);
}
END_TEST

START_TEST(test_zero_size_extends)
{
	struct symtab *st = symtab_new();

	symtab_add(st, 0x3000, 0, SYMTAB_GLOBAL, "c", 0x3100);
	symtab_add(st, 0x1000, 0, SYMTAB_GLOBAL, "a", UINT64_MAX);
	symtab_add(st, 0x2000, 0, SYMTAB_GLOBAL, "b", 0x2800);
	symtab_finish(st);
	ck_assert_uint_eq(symtab_count(st), 3);
	/* a: to the next symbol's start */
	ck_assert_uint_eq(symtab_get(st, 0)->end, 0x2000);
	ck_assert_str_eq(name_at(st, 0x1fff), "a");
	/* b: clamped by its max_end before c */
	ck_assert_uint_eq(symtab_get(st, 1)->end, 0x2800);
	ck_assert_str_eq(name_at(st, 0x27ff), "b");
	ck_assert_ptr_null(symtab_lookup(st, 0x2800));
	ck_assert_ptr_null(symtab_lookup(st, 0x2fff));
	/* c: last one, clamped */
	ck_assert_uint_eq(symtab_get(st, 2)->end, 0x3100);
	ck_assert_ptr_null(symtab_lookup(st, 0x3100));
	symtab_free(st);
}
END_TEST

START_TEST(test_zero_size_next_differs)
{
	struct symtab *st = symtab_new();

	/* The aliases of the next symbol must not shorten it to 0. */
	symtab_add(st, 0x1000, 0, SYMTAB_GLOBAL, "a", UINT64_MAX);
	symtab_add(st, 0x1000, 0, SYMTAB_LOCAL, "a_alias", UINT64_MAX);
	symtab_add(st, 0x1010, 0, SYMTAB_GLOBAL, "b", 0x1020);
	symtab_finish(st);
	ck_assert_uint_eq(symtab_count(st), 2);
	ck_assert_uint_eq(symtab_get(st, 0)->end, 0x1010);
	ck_assert_str_eq(name_at(st, 0x100f), "a");
	symtab_free(st);
}
END_TEST

START_TEST(test_past_end_null)
{
	struct symtab *st = symtab_new();

	symtab_add(st, 0x1000, 0x20, SYMTAB_GLOBAL, "f", UINT64_MAX);
	symtab_add(st, 0x2000, 0x20, SYMTAB_GLOBAL, "g", UINT64_MAX);
	symtab_finish(st);
	ck_assert_ptr_null(symtab_lookup(st, 0x1020));
	ck_assert_ptr_null(symtab_lookup(st, 0x1fff));
	ck_assert_ptr_null(symtab_lookup(st, 0x2020));
	ck_assert_ptr_null(symtab_lookup(st, 0xfff));
	ck_assert_ptr_null(symtab_lookup(st, 0));
	ck_assert_ptr_null(symtab_lookup(st, UINT64_MAX));
	symtab_free(st);
}
END_TEST

START_TEST(test_exact_bounds)
{
	struct symtab *st = symtab_new();

	symtab_add(st, 0x1000, 0x20, SYMTAB_GLOBAL, "f", UINT64_MAX);
	symtab_add(st, 0x1020, 0x10, SYMTAB_GLOBAL, "g", UINT64_MAX);
	symtab_finish(st);
	ck_assert_str_eq(name_at(st, 0x1000), "f");
	ck_assert_str_eq(name_at(st, 0x101f), "f");
	ck_assert_str_eq(name_at(st, 0x1020), "g");
	ck_assert_str_eq(name_at(st, 0x102f), "g");
	ck_assert_ptr_null(symtab_lookup(st, 0x1030));
	symtab_free(st);
}
END_TEST

START_TEST(test_nested)
{
	struct symtab *st = symtab_new();

	/* outer [0x1000,0x2000) holds inner [0x1100,0x1200) and a sizeless
	 * label at 0x1800; next symbol at 0x3000. */
	symtab_add(st, 0x1000, 0x1000, SYMTAB_GLOBAL, "outer", UINT64_MAX);
	symtab_add(st, 0x1100, 0x100, SYMTAB_LOCAL, "inner", UINT64_MAX);
	symtab_add(st, 0x1800, 0, SYMTAB_LOCAL, "label", UINT64_MAX);
	symtab_add(st, 0x3000, 0x10, SYMTAB_GLOBAL, "next", UINT64_MAX);
	symtab_finish(st);
	ck_assert_str_eq(name_at(st, 0x1150), "inner");
	ck_assert_str_eq(name_at(st, 0x1250), "outer");
	ck_assert_str_eq(name_at(st, 0x1850), "outer");
	ck_assert_str_eq(name_at(st, 0x2500), "label");
	ck_assert_str_eq(name_at(st, 0x3000), "next");
	symtab_free(st);
}
END_TEST

START_TEST(test_empty)
{
	struct symtab *st = symtab_new();

	symtab_finish(st);
	ck_assert_uint_eq(symtab_count(st), 0);
	ck_assert_ptr_null(symtab_lookup(st, 0));
	ck_assert_ptr_null(symtab_lookup(st, 0x1000));
	ck_assert_ptr_null(symtab_get(st, 0));
	symtab_free(st);
}
END_TEST

START_TEST(test_names_copied)
{
	struct symtab *st = symtab_new();
	char buf[32];
	int i;

	for (i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "fn%d", i);
		symtab_add(st, (uint64_t)i * 16, 16, SYMTAB_GLOBAL, buf, UINT64_MAX);
	}
	strcpy(buf, "clobbered");
	symtab_finish(st);
	ck_assert_uint_eq(symtab_count(st), 1000);
	ck_assert_str_eq(name_at(st, 0), "fn0");
	ck_assert_str_eq(name_at(st, 999 * 16 + 5), "fn999");
	ck_assert_str_eq(name_at(st, 500 * 16), "fn500");
	symtab_free(st);
}
END_TEST

/* Non-overlapping random symbols (some sizeless) against a linear scan. */
START_TEST(test_random_vs_linear)
{
	enum { N = 3000, Q = 20000 };
	struct ref { uint64_t start, end; char name[32]; } *ref;
	struct symtab *st = symtab_new();
	uint64_t addr = 0x400000;
	unsigned seed = 12345;
	size_t i;

	ref = calloc(N, sizeof(*ref));
	for (i = 0; i < N; i++) {
		uint64_t gap = (uint64_t)(rand_r(&seed) % 64);
		uint64_t size = 1 + (uint64_t)(rand_r(&seed) % 200);
		bool sizeless = rand_r(&seed) % 5 == 0;

		addr += gap;
		ref[i].start = addr;
		ref[i].end = addr + size;
		snprintf(ref[i].name, sizeof(ref[i].name), "s%zu", i);
		/* A sizeless symbol ends at max_end here (next starts later). */
		symtab_add(st, addr, sizeless ? 0 : size, SYMTAB_GLOBAL, ref[i].name,
			   sizeless ? addr + size : UINT64_MAX);
		addr += size;
	}
	symtab_finish(st);
	ck_assert_uint_eq(symtab_count(st), N);
	for (i = 0; i < Q; i++) {
		uint64_t a = 0x400000 - 100 + (uint64_t)rand_r(&seed) % (addr - 0x400000 + 200);
		const struct symbol *s = symtab_lookup(st, a);
		const struct ref *want = NULL;
		size_t j;

		for (j = 0; j < N; j++)
			if (ref[j].start <= a && a < ref[j].end) {
				want = &ref[j];
				break;
			}
		if (!want) {
			ck_assert_msg(s == NULL, "addr %#llx: got %s, want none",
				      (unsigned long long)a, s ? s->name : "");
		} else {
			ck_assert_msg(s != NULL, "addr %#llx: got none, want %s",
				      (unsigned long long)a, want->name);
			ck_assert_str_eq(s->name, want->name);
			ck_assert_uint_eq(s->start, want->start);
			ck_assert_uint_eq(s->end, want->end);
		}
	}
	free(ref);
	symtab_free(st);
}
END_TEST

/* Shuffled insertion of a random table gives the same sorted result. */
START_TEST(test_unsorted_input)
{
	enum { N = 500 };
	uint64_t starts[N];
	struct symtab *st = symtab_new();
	unsigned seed = 7;
	size_t i;
	char buf[32];

	for (i = 0; i < N; i++)
		starts[i] = (uint64_t)i * 32;
	for (i = N - 1; i > 0; i--) {
		size_t j = (size_t)rand_r(&seed) % (i + 1);
		uint64_t t = starts[i];

		starts[i] = starts[j];
		starts[j] = t;
	}
	for (i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "f%llu", (unsigned long long)starts[i] / 32);
		symtab_add(st, starts[i], 0, SYMTAB_GLOBAL, buf, N * 32);
	}
	symtab_finish(st);
	ck_assert_uint_eq(symtab_count(st), N);
	for (i = 0; i < N; i++) {
		const struct symbol *s = symtab_get(st, i);

		snprintf(buf, sizeof(buf), "f%zu", i);
		ck_assert_uint_eq(s->start, i * 32);
		ck_assert_uint_eq(s->end, i * 32 + 32);
		ck_assert_str_eq(s->name, buf);
	}
	symtab_free(st);
}
END_TEST

/* Starts differing in every byte (kernel-like high addresses, a module
 * far below), inserted shuffled with aliases at some starts: the table
 * comes out sorted, each start once, the alias rule applied (the first
 * added of two equal names), whatever the bytes the sort passes over. */
START_TEST(test_unsorted_wide)
{
	enum { N = 4000 };
	uint64_t *starts = calloc(N, sizeof(*starts));
	struct symtab *st = symtab_new();
	unsigned seed = 99;
	size_t i;
	char buf[48];

	for (i = 0; i < N; i++) {
		/* Ascending, with jumps that change the high bytes. */
		uint64_t base = i < N / 4 ? 0xffffffffc0000000ULL : i < N / 2 ? 0x7f0000000000ULL
										: 0x400000ULL;

		starts[i] = base + (uint64_t)i * 0x1000 + (i % 7) * 0x100000000ULL;
	}
	for (i = N - 1; i > 0; i--) {
		size_t j = (size_t)rand_r(&seed) % (i + 1);
		uint64_t t = starts[i];

		starts[i] = starts[j];
		starts[j] = t;
	}
	for (i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "a%016llx", (unsigned long long)starts[i]);
		symtab_add(st, starts[i], 16, SYMTAB_GLOBAL, buf, UINT64_MAX);
		if (i % 3 == 0) {
			/* an alias of the same rank, added later: loses */
			snprintf(buf, sizeof(buf), "b%016llx", (unsigned long long)starts[i]);
			symtab_add(st, starts[i], 16, SYMTAB_GLOBAL, buf, UINT64_MAX);
		}
	}
	symtab_finish(st);
	ck_assert_uint_eq(symtab_count(st), N);
	for (i = 0; i < N; i++) {
		const struct symbol *s = symtab_get(st, i);

		if (i)
			ck_assert_uint_gt(s->start, symtab_get(st, i - 1)->start);
		snprintf(buf, sizeof(buf), "a%016llx", (unsigned long long)s->start);
		ck_assert_str_eq(s->name, buf);
		ck_assert_ptr_eq(symtab_lookup(st, s->start + 15), s);
	}
	symtab_free(st);
	free(starts);
}
END_TEST

/* kallsyms' aliases, named as perf report names them: the last one of a
 * start (memcpy, __memcpy, __pi_memcpy: __pi_memcpy, on 6.x kernels),
 * where the default rules take the one with fewest underscores; an end
 * marker ("") after them never wins. */
START_TEST(test_prefer_last)
{
	struct symtab *st = symtab_new(), *def = symtab_new();
	const char *names[] = { "memcpy", "__memcpy", "__pi_memcpy" };
	size_t i;

	symtab_prefer_last(st);
	for (i = 0; i < 3; i++) {
		symtab_add(st, 0x1000, 0, SYMTAB_GLOBAL, names[i], UINT64_MAX);
		symtab_add(def, 0x1000, 0, SYMTAB_GLOBAL, names[i], UINT64_MAX);
	}
	symtab_add(st, 0x1000, 0, SYMTAB_LOCAL, "", 0x1000);
	symtab_add(st, 0x1100, 0, SYMTAB_GLOBAL, "next", UINT64_MAX);
	symtab_add(def, 0x1100, 0, SYMTAB_GLOBAL, "next", UINT64_MAX);
	symtab_finish(st);
	symtab_finish(def);
	ck_assert_str_eq(name_at(st, 0x1010), "__pi_memcpy");
	ck_assert_str_eq(name_at(def, 0x1010), "memcpy");
	ck_assert_str_eq(name_at(st, 0x1100), "next");
	symtab_free(st);
	symtab_free(def);
}
END_TEST

/* A table from a finished one's arrays: the same lookups (the sized
 * symbol still covers the label inside it); arrays that no finished
 * table could hold are refused. */
START_TEST(test_from_sorted)
{
	static const char pool[] = "outer\0label\0next";
	uint64_t starts[] = { 0x1000, 0x1010, 0x2000 }, ends[] = { 0x1100, 0x1020, 0x2010 };
	uint32_t names[] = { 0, 6, 12 };
	uint8_t sized[] = { 1, 0, 0 };
	struct symtab *st = symtab_from_sorted(3, starts, ends, names, sized, pool, sizeof(pool));

	ck_assert_ptr_nonnull(st);
	ck_assert_str_eq(symtab_lookup(st, 0x1015)->name, "outer");
	ck_assert_str_eq(symtab_lookup(st, 0x1050)->name, "outer");
	ck_assert_str_eq(symtab_lookup(st, 0x2000)->name, "next");
	ck_assert_ptr_null(symtab_lookup(st, 0x2010));
	ck_assert(symtab_sized(st, 0) && !symtab_sized(st, 1));
	symtab_free(st);
	/* Out of order, empty, a name past the pool, a pool without NUL. */
	starts[1] = 0x1000;
	ck_assert_ptr_null(symtab_from_sorted(3, starts, ends, names, sized, pool, sizeof(pool)));
	starts[1] = 0x1010;
	ends[2] = 0x2000;
	ck_assert_ptr_null(symtab_from_sorted(3, starts, ends, names, sized, pool, sizeof(pool)));
	ends[2] = 0x2010;
	names[2] = sizeof(pool);
	ck_assert_ptr_null(symtab_from_sorted(3, starts, ends, names, sized, pool, sizeof(pool)));
	names[2] = 12;
	ck_assert_ptr_null(symtab_from_sorted(3, starts, ends, names, sized, pool, sizeof(pool) - 1));
	st = symtab_from_sorted(0, starts, ends, names, sized, pool, 0);
	ck_assert_ptr_nonnull(st);
	ck_assert_ptr_null(symtab_lookup(st, 0x1000));
	symtab_free(st);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("symtab");
	TCase *tc;

	tc = tcase_create("aliases");
	tcase_add_test(tc, test_alias_sized_wins);
	tcase_add_test(tc, test_alias_binding);
	tcase_add_test(tc, test_alias_underscores_then_length);
	tcase_add_test(tc, test_prefer_last);
	suite_add_tcase(s, tc);

	tc = tcase_create("zero_size");
	tcase_add_test(tc, test_zero_size_extends);
	tcase_add_test(tc, test_zero_size_next_differs);
	suite_add_tcase(s, tc);

	tc = tcase_create("lookup");
	tcase_add_test(tc, test_past_end_null);
	tcase_add_test(tc, test_exact_bounds);
	tcase_add_test(tc, test_nested);
	tcase_add_test(tc, test_names_copied);
	suite_add_tcase(s, tc);

	tc = tcase_create("empty");
	tcase_add_test(tc, test_empty);
	suite_add_tcase(s, tc);

	tc = tcase_create("random");
	tcase_add_test(tc, test_random_vs_linear);
	tcase_add_test(tc, test_unsorted_input);
	tcase_add_test(tc, test_unsorted_wide);
	tcase_add_test(tc, test_from_sorted);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
