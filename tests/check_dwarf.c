/* Unit tests for symbols/dwarfinfo.c: inline chains and source lines of a
 * fixture built here (tests/inline-fixture.c, gcc -O2 -g), compared with
 * eu-addr2line where it is installed; caching, bounds and bad files. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarfinfo.h"
#include "elfsyms.h"
#include "symtab.h"
#include "testutil.h"

static char *dir;
static char fixture[4096], stripped[4096];
static uint64_t outer_start, outer_end, main_start, main_end;

static void setup(void)
{
	struct elf_image img;
	size_t i;

	dir = testutil_tmpdir("dwarf");
	snprintf(fixture, sizeof(fixture), "%s/inlfix", dir);
	snprintf(stripped, sizeof(stripped), "%s/inlfix.stripped", dir);
	ck_assert_int_eq(testutil_sh("cc -O2 -g -o '%s' '%s/inline-fixture.c'", fixture,
				     getenv("srcdir") ? getenv("srcdir") : "tests"),
			 0);
	ck_assert_int_eq(testutil_sh("strip -g -o '%s' '%s'", stripped, fixture), 0);
	ck_assert_int_eq(elf_image_load(fixture, &img), 0);
	for (i = 0; i < symtab_count(img.symtab); i++) {
		const struct symbol *s = symtab_get(img.symtab, i);

		if (!strcmp(s->name, "outer_noinline")) {
			outer_start = s->start;
			outer_end = s->end;
		} else if (!strcmp(s->name, "main")) {
			main_start = s->start;
			main_end = s->end;
		}
	}
	elf_image_release(&img);
	ck_assert(outer_start && outer_end > outer_start && main_start);
}

static void teardown(void)
{
	testutil_sh("rm -rf '%s'", dir);
	free(dir);
}

/* Some address of outer_noinline is in the inlined hot_inline, called
 * from line 23; the entry is not inlined and is on line 19. */
START_TEST(test_inline_chain)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(0);
	const struct dwarfinfo *in;
	uint64_t a;
	bool found = false;

	ck_assert_int_eq(dwarfinfo_lookup(c, fixture, outer_start, &in), 0);
	ck_assert_uint_eq(in->nr_inlines, 0);
	ck_assert_str_eq(in->function, "outer_noinline");
	ck_assert_uint_eq(in->line, 19);
	ck_assert_str_eq(dwarfinfo_srcline(in), "inline-fixture.c:19");
	for (a = outer_start; a < outer_end && !found; a++) {
		ck_assert_int_eq(dwarfinfo_lookup(c, fixture, a, &in), 0);
		if (!in->nr_inlines)
			continue;
		found = true;
		ck_assert_uint_eq(in->nr_inlines, 1);
		ck_assert_str_eq(in->inlines[0].name, "hot_inline");
		ck_assert_ptr_nonnull(in->inlines[0].call_file);
		ck_assert_ptr_nonnull(strstr(in->inlines[0].call_file, "inline-fixture.c"));
		ck_assert_uint_eq(in->inlines[0].call_line, 23);
		ck_assert_str_eq(in->function, "outer_noinline");
		/* hot_inline's body: lines 11..16 */
		ck_assert_uint_ge(in->line, 11);
		ck_assert_uint_le(in->line, 16);
	}
	ck_assert(found);
	dwarfinfo_cache_free(c);
}
END_TEST

/* Every address of main and of outer_noinline agree with
 * eu-addr2line -f -i -s: the innermost file:line, then each inlined
 * function and where it was called from (the DWARF's functions: main and
 * outer_noinline, where main calls the noinline one in a loop). */
START_TEST(test_matches_eu_addr2line)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(0);
	char cmd[8192], line[1024];
	uint64_t a;
	FILE *p;
	size_t n = 0;

	if (testutil_sh("command -v eu-addr2line >/dev/null 2>&1") != 0) {
		fprintf(stderr, "SKIP: eu-addr2line not installed (Debian: elfutils)\n");
		dwarfinfo_cache_free(c);
		return;
	}
	for (a = main_start; a < outer_end; a = a + 1 == main_end ? outer_start : a + 1) {
		const struct dwarfinfo *in;
		char want[2048], got[2048], *w = want;
		size_t k, off = 0;

		snprintf(cmd, sizeof(cmd), "eu-addr2line -f -i -s -e '%s' 0x%llx", fixture,
			 (unsigned long long)a);
		p = popen(cmd, "r");
		ck_assert_ptr_nonnull(p);
		want[0] = 0;
		while (fgets(line, sizeof(line), p) && (size_t)(w - want) + strlen(line) < sizeof(want))
			w += sprintf(w, "%s", line);
		pclose(p);
		ck_assert_int_eq(dwarfinfo_lookup(c, fixture, a, &in), 0);
		/* eu-addr2line's shape: "f inlined at F:L:C in g\nF:L:C\ng\nF:L:C\n". */
		{
			const char *name = in->nr_inlines ? in->inlines[0].name : in->function;
			const char *sl = dwarfinfo_srcline(in);

			off += snprintf(got + off, sizeof(got) - off, "%s", name ? name : "??");
			for (k = 0; k < in->nr_inlines; k++) {
				const char *cf = in->inlines[k].call_file, *b = cf ? strrchr(cf, '/') : NULL;
				const char *caller = k + 1 < in->nr_inlines ? in->inlines[k + 1].name :
									      in->function;

				off += snprintf(got + off, sizeof(got) - off, " inlined at %s:%u",
						b ? b + 1 : cf ? cf : "??", in->inlines[k].call_line);
				/* (the column is left out of the comparison) */
				off += snprintf(got + off, sizeof(got) - off, " in %s", caller);
			}
			off += snprintf(got + off, sizeof(got) - off, "\n%s\n", sl ? sl : "??:0");
		}
		/* Compare the first two lines without columns. */
		{
			char norm[2048], *o = norm;
			const char *s;

			for (s = want; *s; s++) {
				/* drop ":COL" after ":LINE" */
				if (*s == ':' && s[1] >= '0' && s[1] <= '9') {
					const char *t = s + 1;

					while (*t >= '0' && *t <= '9')
						t++;
					if (*t == ':' && t[1] >= '0' && t[1] <= '9') {
						memcpy(o, s, (size_t)(t - s));
						o += t - s;
						s = t + 1;
						while (*s >= '0' && *s <= '9')
							s++;
						s--;
						continue;
					}
				}
				*o++ = *s;
			}
			*o = 0;
			/* our got has two lines: name line and innermost srcline */
			{
				char *nl = strchr(norm, '\n');

				nl = nl ? strchr(nl + 1, '\n') : NULL;
				if (nl)
					nl[1] = 0;
			}
			ck_assert_msg(!strcmp(norm, got), "at 0x%llx: eu-addr2line:\n%sours:\n%s",
				      (unsigned long long)a, norm, got);
		}
		n++;
	}
	ck_assert_uint_gt(n, 32);
	dwarfinfo_cache_free(c);
}
END_TEST

START_TEST(test_cache_hits_and_bound)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(4);
	struct dwarfinfo_stats st;
	const struct dwarfinfo *in;
	uint64_t a;

	ck_assert_int_eq(dwarfinfo_lookup(c, fixture, outer_start, &in), 0);
	ck_assert_int_eq(dwarfinfo_lookup(c, fixture, outer_start, &in), 0);
	dwarfinfo_cache_stats(c, &st);
	ck_assert_uint_eq(st.misses, 1);
	ck_assert_uint_eq(st.hits, 1);
	ck_assert_uint_eq(st.files_opened, 1);
	for (a = outer_start; a < outer_start + 40; a++)
		ck_assert_int_eq(dwarfinfo_lookup(c, fixture, a, &in), 0);
	dwarfinfo_cache_stats(c, &st);
	ck_assert_uint_le(st.entries, 4);
	ck_assert_uint_eq(st.files_opened, 1);
	/* Still right after the cache started over. */
	ck_assert_int_eq(dwarfinfo_lookup(c, fixture, outer_start, &in), 0);
	ck_assert_str_eq(in->function, "outer_noinline");
	dwarfinfo_cache_free(c);
}
END_TEST

START_TEST(test_bad_files)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(0);
	struct dwarfinfo_stats st;
	const struct dwarfinfo *in;
	char missing[4200];

	snprintf(missing, sizeof(missing), "%s/no-such-file", dir);
	ck_assert_int_eq(dwarfinfo_lookup(c, missing, 0x1000, &in), -ENOENT);
	ck_assert_int_eq(dwarfinfo_lookup(c, stripped, outer_start, &in), -ENODATA);
	ck_assert_int_eq(dwarfinfo_lookup(c, stripped, outer_start + 1, &in), -ENODATA);
	dwarfinfo_cache_stats(c, &st);
	ck_assert_uint_eq(st.files_opened, 2); /* the failures are remembered */
	/* A good file after bad ones still works. */
	ck_assert_int_eq(dwarfinfo_lookup(c, fixture, main_start, &in), 0);
	ck_assert_str_eq(in->function, "main");
	ck_assert_int_eq(dwarfinfo_lookup(c, NULL, 0, &in), -EINVAL);
	dwarfinfo_cache_free(c);
}
END_TEST

/* More files than are kept open: answers stay right as files are closed
 * and opened again. */
START_TEST(test_many_files)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(0);
	const struct dwarfinfo *in;
	char path[4200];
	int i, round;

	for (i = 0; i < 12; i++)
		ck_assert_int_eq(testutil_sh("cp '%s' '%s/copy%d'", fixture, dir, i), 0);
	for (round = 0; round < 2; round++)
		for (i = 0; i < 12; i++) {
			snprintf(path, sizeof(path), "%s/copy%d", dir, i);
			ck_assert_int_eq(dwarfinfo_lookup(c, path, outer_start + (uint64_t)round, &in), 0);
			ck_assert_str_eq(in->function, "outer_noinline");
		}
	dwarfinfo_cache_free(c);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dwarf");
	TCase *tc = tcase_create("dwarf");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_inline_chain);
	tcase_add_test(tc, test_matches_eu_addr2line);
	tcase_add_test(tc, test_cache_hits_and_bound);
	tcase_add_test(tc, test_bad_files);
	tcase_add_test(tc, test_many_files);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
