/* Unit tests for the x86_64 .plt.got names of symbols/elfsyms.c: every
 * entry objdump names func@plt gets the same name, with 8-byte entries and
 * with IBT's 16-byte ones (endbr64), on programs built here and on the
 * system's libraries. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "elfsyms.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"

static char *dir;
static pid_t builder;
static bool have_ibt;

static void remove_fixtures(void)
{
	if (!dir || getpid() != builder)
		return;
	testutil_sh("rm -rf '%s'", dir);
	free(dir);
	dir = NULL;
}

static void build_fixtures(void)
{
	if (dir)
		return;
	dir = testutil_tmpdir("check_elfplt");
	builder = getpid();
	atexit(remove_fixtures);
	/* A shared library that calls functions whose address it also
	 * loads from the GOT: the linker routes those calls through
	 * .plt.got. */
	if (testutil_sh("cd '%s' && printf '%%s\\n' '#include <stdio.h>' '#include <stdlib.h>' "
			"'void *addr_of_malloc(void) { return (void *)malloc; }' "
			"'void *addr_of_free(void) { return (void *)free; }' "
			"'int lib_entry(void) { free(malloc(8)); return puts(\"x\"); }' "
			"> lib.c && cc -O0 -shared -fPIC -o lib.so lib.c 2>/dev/null", dir)) {
		fprintf(stderr, "check_elfplt: cannot build the fixtures\n");
		abort();
	}
	have_ibt = testutil_sh("cd '%s' && cc -O0 -shared -fPIC -fcf-protection=full "
			       "-Wl,-z,ibt,-z,ibtplt -o libibt.so lib.c 2>/dev/null", dir) == 0;
}

/* Compare every .plt.got entry objdump names with ours; returns how many
 * were compared. */
static size_t compare_pltgot(const char *path)
{
	char *cmd = xasprintf("objdump -d -j .plt.got '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	struct elfsyms_image img;
	unsigned long long addr;
	char line[1024], name[512];
	size_t n = 0;

	free(cmd);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	while (fgets(line, sizeof(line), p)) {
		const struct symbol *s;
		char *at;

		/* 0000000000001060 <__cxa_finalize@plt>: */
		if (sscanf(line, "%llx <%511[^>]>:", &addr, name) != 2)
			continue;
		/* objdump may add the version: free@GLIBC_2.2.5@plt. */
		at = strchr(name, '@');
		ck_assert_ptr_nonnull(at);
		strcpy(at, "@plt");
		s = symtab_lookup(img.symtab, addr);
		ck_assert_msg(s != NULL, "%s: nothing at %llx (%s)", path, addr, name);
		ck_assert_msg(strcmp(s->name, name) == 0, "%s: %llx is %s, objdump says %s", path,
			      addr, s->name, name);
		ck_assert_uint_eq(s->start, addr);
		n++;
	}
	pclose(p);
	elfsyms_release(&img);
	return n;
}

START_TEST(test_pltgot)
{
	char *lib = xasprintf("%s/lib.so", dir);

	ck_assert_uint_ge(compare_pltgot(lib), 2);
	free(lib);
}
END_TEST

START_TEST(test_pltgot_ibt)
{
	char *lib = xasprintf("%s/libibt.so", dir);

	if (!have_ibt) {
		free(lib);
		return;
	}
	ck_assert_uint_ge(compare_pltgot(lib), 2);
	free(lib);
}
END_TEST

/* The system's libc and libstdc++ (when present): every entry. */
START_TEST(test_pltgot_system)
{
	static const char *const libs[] = { "/lib/x86_64-linux-gnu/libc.so.6",
					    "/usr/lib/x86_64-linux-gnu/libstdc++.so.6" };
	size_t i;

	demangle_set_enabled(false);
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (access(libs[i], R_OK) == 0)
			compare_pltgot(libs[i]);
	demangle_set_enabled(true);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("elfplt");
	TCase *tc = tcase_create("pltgot");

	tcase_add_unchecked_fixture(tc, build_fixtures, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pltgot);
	tcase_add_test(tc, test_pltgot_ibt);
	tcase_add_test(tc, test_pltgot_system);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
