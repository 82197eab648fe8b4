/* Unit tests for symbols/demangle.c: C++ names, Rust legacy hashes cut,
 * names left alone, --no-demangle, and the display cache (once per name,
 * func@plt, many threads). */
#include "config.h"

#include "demangle.h"

#include <check.h>
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfsyms.h"
#include "symtab.h"

static void ck_demangled(const char *in, const char *want)
{
	char *out = demangle(in);

	if (!want) {
		ck_assert_msg(out == NULL, "%s demangled to %s", in, out);
		return;
	}
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(out, want);
	free(out);
}

START_TEST(test_cxx)
{
	/* Like perf's default: no return type, no parameters. */
	ck_demangled("_ZN3hot4spinImEET_S1_", "hot::spin<unsigned long>");
	ck_demangled("_ZNSt6vectorIiSaIiEE9push_backERKi",
		     "std::vector<int, std::allocator<int> >::push_back");
	ck_demangled("_Z3foov", "foo");
	ck_demangled("_ZNK3Foo3barEv", "Foo::bar");
	ck_demangled("_ZN6__lsan20ScanRangeForPointersEmmPN11__sanitizer18InternalMmapVectorImEEPKcNS_8ChunkTagE",
		     "__lsan::ScanRangeForPointers");
	ck_demangled("_ZN12_GLOBAL__N_13bazEi", "(anonymous namespace)::baz");
	/* Operators keep what they need. */
	ck_demangled("_ZN3FooclEv", "Foo::operator()");
	ck_demangled("_ZlsRSoRK3Foo", "operator<<");
}
END_TEST

START_TEST(test_rust_legacy)
{
	/* The trailing ::h<hash> is build noise, not a name. */
	ck_demangled("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write");
	/* 16 characters that are not all hex: a real path element. */
	ck_demangled("_ZN3foo17hxyzxyzxyzxyzxyzxE", "foo::hxyzxyzxyzxyzxyzx");
}
END_TEST

START_TEST(test_not_mangled)
{
	ck_demangled("main", NULL);
	ck_demangled("_Zbroken", NULL);
	ck_demangled("_RNvCs1234_3foo3bar", NULL);   /* Rust v0: kept raw */
	ck_demangled("", NULL);
}
END_TEST

START_TEST(test_disabled)
{
	demangle_set_enabled(false);
	ck_demangled("_Z3foov", NULL);
	demangle_set_enabled(true);
	ck_demangled("_Z3foov", "foo");
}
END_TEST

START_TEST(test_display)
{
	char buf[64];
	const char *a, *b;

	/* Not mangled: the very same string, no copy. */
	a = "main";
	ck_assert_ptr_eq(demangle_display(a), a);
	ck_assert_ptr_null(demangle_display(NULL));
	a = "_Zbroken";
	ck_assert_ptr_eq(demangle_display(a), a);
	/* Demangled once: the same pointer again, also for another copy of
	 * the raw name (tables come and go, the cache is by content). */
	a = demangle_display("_ZN3hot4spinImEET_S1_");
	ck_assert_str_eq(a, "hot::spin<unsigned long>");
	strcpy(buf, "_ZN3hot4spinImEET_S1_");
	b = demangle_display(buf);
	ck_assert_ptr_eq(a, b);
	/* func@plt keeps its suffix. */
	ck_assert_str_eq(demangle_display("_ZdlPv@plt"), "operator delete@plt");
	ck_assert_str_eq(demangle_display("_Z3foov@plt"), "foo@plt");
	/* --no-demangle: raw, even for names already cached. */
	demangle_set_enabled(false);
	ck_assert_ptr_eq(demangle_display(buf), buf);
	demangle_set_enabled(true);
}
END_TEST

/* Threads asking for the same and different names at once all get the
 * right demangled name, each name one pointer. */
#define DISPLAY_THREADS 4
#define DISPLAY_NAMES 2000
static const char *display_seen[DISPLAY_THREADS][DISPLAY_NAMES];

static void *display_thread(void *arg)
{
	size_t t = (size_t)arg, i;
	char raw[64];

	for (i = 0; i < DISPLAY_NAMES; i++) {
		size_t k = (i * 7 + t * 13) % DISPLAY_NAMES;

		snprintf(raw, sizeof(raw), "_Z5fn%03zuv", k % 1000);
		if (k >= 1000)
			snprintf(raw, sizeof(raw), "_Z5fn%03zuv", k - 1000);
		display_seen[t][k] = demangle_display(raw);
	}
	return NULL;
}

START_TEST(test_display_threads)
{
	pthread_t th[DISPLAY_THREADS];
	size_t t, k;
	char want[16];

	for (t = 0; t < DISPLAY_THREADS; t++)
		ck_assert_int_eq(pthread_create(&th[t], NULL, display_thread, (void *)t), 0);
	for (t = 0; t < DISPLAY_THREADS; t++)
		pthread_join(th[t], NULL);
	for (k = 0; k < DISPLAY_NAMES; k++) {
		snprintf(want, sizeof(want), "fn%03zu", k % 1000);
		for (t = 0; t < DISPLAY_THREADS; t++) {
			ck_assert_ptr_nonnull(display_seen[t][k]);
			ck_assert_str_eq(display_seen[t][k], want);
			ck_assert_ptr_eq(display_seen[t][k], display_seen[0][k % 1000]);
		}
	}
}
END_TEST

/* The ELF loader keeps raw names (demangling is the display's, lazily):
 * libstdc++'s table holds _Z names, shown demangled. */
START_TEST(test_loader_keeps_raw)
{
	static const char *const paths[] = { "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
					     "/usr/lib64/libstdc++.so.6", "/usr/lib/libstdc++.so.6" };
	struct elfsyms_image img;
	size_t i, n, mangled = 0, shown = 0;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (access(paths[i], R_OK) == 0)
			break;
	if (i == sizeof(paths) / sizeof(paths[0]))
		return;   /* no libstdc++ here: nothing to demangle with either */
	ck_assert_int_eq(elfsyms_load(paths[i], &img), 0);
	n = symtab_count(img.symtab);
	for (i = 0; i < n; i++) {
		const char *name = symtab_get(img.symtab, i)->name;

		if (strncmp(name, "_Z", 2) != 0)
			continue;
		mangled++;
		if (strcmp(demangle_display(name), name) != 0)
			shown++;
	}
	elfsyms_release(&img);
	ck_assert_uint_gt(mangled, 1000);
	ck_assert_uint_gt(shown, mangled * 9 / 10);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("demangle");
	TCase *tc = tcase_create("names");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_cxx);
	tcase_add_test(tc, test_rust_legacy);
	tcase_add_test(tc, test_not_mangled);
	tcase_add_test(tc, test_disabled);
	tcase_add_test(tc, test_display);
	tcase_add_test(tc, test_display_threads);
	tcase_add_test(tc, test_loader_keeps_raw);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
