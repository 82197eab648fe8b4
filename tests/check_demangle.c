/* Unit tests for symbols/demangle.c: C++ names, Rust legacy hashes cut,
 * names left alone, and --no-demangle. */
#include "config.h"

#include "demangle.h"

#include <check.h>
#include <stdlib.h>

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
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
