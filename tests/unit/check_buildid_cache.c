/* Unit tests for symbols/buildid-cache.c: the cache directory rule, perf's
 * two layouts, hostile entries (refused and counted), --symfs read as a
 * cache, and a live process's deleted binary named from the cache. */
#include "config.h"

#include "buildid-cache.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dso.h"
#include "machine.h"
#include "machine_cases.h"
#include "symloader.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"

/* Two builds of one program, with build IDs chosen here (ld's
 * --build-id=0xHEX): the recorded one and the rebuild. */
#define ID_OLD "11223344556677889900aabbccddeeff00112233"
#define ID_NEW "99223344556677889900aabbccddeeff00112233"

static char *dir;     /* absolute; holds old, new and the caches */
static uint8_t id_old[20];

static const char prog_src[] =
	"int func_a(int x) { return x * 3 + 1; }\n"
	"int main(int argc, char **argv) { (void)argv; return func_a(argc); }\n";

static void hex_to_id(const char *hex, uint8_t *id)
{
	size_t i;

	for (i = 0; i < 20; i++)
		sscanf(hex + 2 * i, "%2hhx", &id[i]);
}

static void setup(void)
{
	char cwd[PATH_MAX], *tmp = testutil_tmpdir("check_buildid_cache"), *src;
	FILE *f;

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	dir = xasprintf("%s/%s", cwd, tmp);
	free(tmp);
	src = xasprintf("%s/prog.c", dir);
	f = fopen(src, "w");
	ck_assert_ptr_nonnull(f);
	fputs(prog_src, f);
	fclose(f);
	free(src);
	ck_assert_int_eq(testutil_sh("cd '%s' && cc -O0 -g -o old prog.c -Wl,--build-id=0x%s && "
				     "cc -O0 -o new prog.c -Wl,--build-id=0x%s && "
				     "cp old old.debug && strip -s old -o old.stripped",
				     dir, ID_OLD, ID_NEW), 0);
	hex_to_id(ID_OLD, id_old);
}

static void teardown(void)
{
	testutil_sh("rm -rf '%s'", dir);
	free(dir);
	dir = NULL;
}

/* A cache at dir/NAME: perf's layout for id ID_OLD (the link relative),
 * with FILE as its elf, and the debug file when debug. */
static char *make_cache(const char *name, const char *file, bool debug)
{
	char *c = xasprintf("%s/%s", dir, name);

	ck_assert_int_eq(testutil_sh("rm -rf '%s' && mkdir -p '%s/.build-id/11' "
				     "'%s/opt/app/prog/%s' && cp '%s/%s' '%s/opt/app/prog/%s/elf' && "
				     "ln -s ../../opt/app/prog/%s '%s/.build-id/11/%s'",
				     c, c, c, ID_OLD, dir, file, c, ID_OLD, ID_OLD, c, ID_OLD + 2), 0);
	if (debug)
		ck_assert_int_eq(testutil_sh("cp '%s/old.debug' '%s/opt/app/prog/%s/debug'", dir, c,
					     ID_OLD), 0);
	return c;
}

START_TEST(test_dir_rule)
{
	char *d;

	setenv("PERF_BUILDID_DIR", "/env/cache", 1);
	setenv("HOME", "/home/u", 1);
	d = buildid_cache_dir("/opt/cache");
	ck_assert_str_eq(d, "/opt/cache");
	free(d);
	d = buildid_cache_dir(NULL);
	ck_assert_str_eq(d, "/env/cache");
	free(d);
	setenv("PERF_BUILDID_DIR", "", 1);
	d = buildid_cache_dir("");
	ck_assert_str_eq(d, "/home/u/.debug");
	free(d);
	unsetenv("PERF_BUILDID_DIR");
	unsetenv("HOME");
	ck_assert_ptr_null(buildid_cache_dir(NULL));
}
END_TEST

/* perf's layout: .build-id/xx/rest -> ../../path/ID/ with elf and debug;
 * only the file with the claimed build ID. */
START_TEST(test_find)
{
	char *c = make_cache("cache", "old.stripped", true), *path, *want;
	struct buildid_cache *bc;
	uint8_t other[20];
	int fd;

	ck_assert_int_eq(buildid_cache_open(c, true, &bc), 0);
	fd = buildid_cache_find(bc, id_old, 20, BUILDID_CACHE_ELF, &path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	want = xasprintf("%s/opt/app/prog/%s/elf", c, ID_OLD);
	ck_assert_str_eq(path, want);
	free(path);
	free(want);
	fd = buildid_cache_find(bc, id_old, 20, BUILDID_CACHE_DEBUG, &path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	want = xasprintf("%s/opt/app/prog/%s/debug", c, ID_OLD);
	ck_assert_str_eq(path, want);
	free(path);
	free(want);
	/* No entry: not a refusal. */
	hex_to_id(ID_NEW, other);
	ck_assert_int_eq(buildid_cache_find(bc, other, 20, BUILDID_CACHE_ELF, &path), -ENOENT);
	ck_assert_ptr_null(path);
	ck_assert_uint_eq(buildid_cache_refused(bc), 0);
	buildid_cache_close(bc);
	/* perf before 4.x: the link names the binary itself. */
	ck_assert_int_eq(testutil_sh("cd '%s' && rm .build-id/11/%s && mv opt/app/prog/%s/elf "
				     "opt/app/prog/old && ln -s ../../opt/app/prog/old .build-id/11/%s",
				     c, ID_OLD + 2, ID_OLD, ID_OLD + 2), 0);
	ck_assert_int_eq(buildid_cache_open(c, true, &bc), 0);
	fd = buildid_cache_find(bc, id_old, 20, BUILDID_CACHE_ELF, &path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	free(path);
	ck_assert_int_eq(buildid_cache_find(bc, id_old, 20, BUILDID_CACHE_DEBUG, &path), -ENOENT);
	buildid_cache_close(bc);
	ck_assert_int_eq(buildid_cache_open("/nonexistent/cache", true, &bc), -ENOENT);
	free(c);
}
END_TEST

/* One hostile entry: the shell command sh (run in the cache) breaks it;
 * the lookup gives err and counts one refusal (none for -ENOENT), without
 * blocking. */
static void check_hostile(bool strict, const char *sh, int err)
{
	char *c = make_cache("hostile", "old", false), *path;
	struct buildid_cache *bc;

	ck_assert_int_eq(testutil_sh("cd '%s' && %s", c, sh), 0);
	ck_assert_int_eq(buildid_cache_open(c, strict, &bc), 0);
	ck_assert_int_eq(buildid_cache_find(bc, id_old, 20, BUILDID_CACHE_ELF, &path), err);
	ck_assert_ptr_null(path);
	ck_assert_uint_eq(buildid_cache_refused(bc), err == -ENOENT ? 0 : 1);
	buildid_cache_close(bc);
	free(c);
}

START_TEST(test_hostile)
{
#define REST "223344556677889900aabbccddeeff00112233"
#define ENTRY "opt/app/prog/" ID_OLD
	static const struct {
		const char *sh;   /* run in the cache */
		int err;
	} cases[] = {
		/* A valid entry outside the cache, reached by an absolute
		 * link or by climbing out with "..": refused, not used. */
		{ "ln -sfn \"$PWD/../outside/" ENTRY "\" .build-id/11/" REST, -EXDEV },
		{ "ln -sfn ../../../outside/" ENTRY " .build-id/11/" REST, -EXDEV },
		/* Loops. */
		{ "ln -sfn " REST " .build-id/11/" REST, -ELOOP },
		{ "ln -s loop2 opt/loop1 && ln -s loop1 opt/loop2 && "
		  "ln -sfn ../../opt/loop1 .build-id/11/" REST, -ELOOP },
		/* A FIFO, a directory where elf should be: not regular files. */
		{ "rm " ENTRY "/elf && mkfifo " ENTRY "/elf", -EINVAL },
		{ "rm " ENTRY "/elf && mkdir " ENTRY "/elf", -EINVAL },
		/* An elf of another build than its name claims. */
		{ "cp ../new " ENTRY "/elf", -EBADMSG },
		/* An elf that is a link out of the cache: it resolves inside
		 * (to nothing there), never to the file outside. */
		{ "rm " ENTRY "/elf && ln -s \"$PWD/../old\" " ENTRY "/elf", -ENOENT },
	};
	size_t i;

	free(make_cache("outside", "old", false));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_hostile(true, cases[i].sh, cases[i].err);
#undef REST
#undef ENTRY
}
END_TEST

/* --symfs (not strict): an extracted archive whose links are absolute
 * resolve inside it, as in a sysroot; ".." stops at its root. */
START_TEST(test_symfs_mode)
{
	char *c = make_cache("symfs", "old", false), *path;
	struct buildid_cache *bc;
	int fd;

	ck_assert_int_eq(testutil_sh("cd '%s' && ln -sfn /opt/app/prog/%s .build-id/11/%s", c,
				     ID_OLD, ID_OLD + 2), 0);
	ck_assert_int_eq(buildid_cache_open(c, false, &bc), 0);
	fd = buildid_cache_find(bc, id_old, 20, BUILDID_CACHE_ELF, &path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	free(path);
	buildid_cache_close(bc);
	/* Strict, the same link is refused. */
	ck_assert_int_eq(buildid_cache_open(c, true, &bc), 0);
	ck_assert_int_eq(buildid_cache_find(bc, id_old, 20, BUILDID_CACHE_ELF, &path), -EXDEV);
	buildid_cache_close(bc);
	free(c);
}
END_TEST

/* func_a's address in the file at path (nm). */
static uint64_t func_addr(const char *path)
{
	char *out = xasprintf("%s/nm.txt", dir), line[256], name[128], type;
	unsigned long long a, found = 0;
	FILE *f;

	ck_assert_int_eq(testutil_sh("nm '%s' >'%s'", path, out), 0);
	f = fopen(out, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &a, &type, name) == 3 && !strcmp(name, "func_a"))
			found = a;
	fclose(f);
	free(out);
	ck_assert_uint_ne(found, 0);
	return found;
}

/* A live process whose binary was deleted (map_files not readable: here
 * our own pid with a range we do not map): the MMAP2's build ID finds
 * the binary in the cache, and the debug file beside it names a stripped
 * one.  Without the cache: [unknown]. */
START_TEST(test_live_deleted)
{
	char *c = make_cache("live", "old.stripped", true);
	uint64_t base = 0x7f0000000000ULL, fa;
	struct mmap_event ev;
	struct machine *m;
	struct resolved r;
	char *old = xasprintf("%s/old", dir);
	size_t refused;
	int pass;

	fa = func_addr(old);
	for (pass = 0; pass < 2; pass++) {
		m = machine_new();
		machine_set_live(m, true);
		if (pass == 1)
			ck_assert_int_eq(machine_set_buildid_dir(m, c), 0);
		ev = mk_mmap((uint32_t)getpid(), (uint32_t)getpid(), base, 0x10000, 0,
			     "/nonexistent/app/prog (deleted)");
		ev.has_build_id = true;
		ev.build_id_size = 20;
		memcpy(ev.build_id, id_old, 20);
		machine_mmap(m, &ev);
		/* The text segment's offset is its vaddr in cc's default layout. */
		r = user(m, (uint32_t)getpid(), (uint32_t)getpid(), base + fa);
		ck_assert_ptr_nonnull(r.dso);
		if (pass == 0) {
			ck_assert_ptr_null(r.sym);
			ck_assert_uint_eq(machine_buildid_cache_used(m, &refused), 0);
		} else {
			ck_assert_ptr_nonnull(r.sym);
			ck_assert_str_eq(r.sym->name, "func_a");
			ck_assert_ptr_nonnull(strstr(dso_sym_path(r.dso), "/live/opt/app/prog/"));
			ck_assert_ptr_nonnull(strstr(dso_debug_path(r.dso), "/debug"));
			/* JSON's dso_path stays the mapped path. */
			ck_assert_str_eq(dso_path(r.dso), "/nonexistent/app/prog (deleted)");
			ck_assert_uint_eq(machine_buildid_cache_used(m, &refused), 1);
			ck_assert_uint_eq(refused, 0);
		}
		machine_free(m);
	}
	/* Without a build ID or an inode nothing tells whether our own
	 * /proc/PID/exe (readable) is that file: not taken. */
	m = machine_new();
	machine_set_live(m, true);
	ev = mk_mmap((uint32_t)getpid(), (uint32_t)getpid(), base, 0x10000, 0,
		     "/nonexistent/app/lib.so (deleted)");
	machine_mmap(m, &ev);
	r = user(m, (uint32_t)getpid(), (uint32_t)getpid(), base + fa);
	ck_assert_ptr_nonnull(r.dso);
	ck_assert_ptr_null(r.sym);
	ck_assert_ptr_null(dso_sym_path(r.dso));
	machine_free(m);
	free(old);
	free(c);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("buildid_cache");
	TCase *tc;

	tc = tcase_create("rule");
	tcase_add_test(tc, test_dir_rule);
	suite_add_tcase(s, tc);

	tc = tcase_create("cache");
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_symfs_mode);
	tcase_add_test(tc, test_live_deleted);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
