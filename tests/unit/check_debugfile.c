/* Unit tests for symbols/debugfile.c and the debug-file parts of
 * symbols/elfsyms.c: .gnu_debuglink (read, searched, checked by build ID or
 * CRC), merging a debug file's .symtab, .gnu_debugdata (MiniDebugInfo) and
 * the xz decoder's limits.  Fixtures are built here with cc, objcopy,
 * strip and xz. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "debugfile.h"
#include "dwarfinfo.h"
#include "elfsyms.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"

static char *dir;
static pid_t builder;
static bool have_xz;

static const char prog_src[] =
	"#include <stdio.h>\n"
	"static __attribute__((noinline)) int hidden_local(int x)\n"
	"{\n"
	"	return x * 3 + 1;\n"
	"}\n"
	"__attribute__((noinline)) int visible_func(int x)\n"
	"{\n"
	"	int i, s = 0;\n"
	"	for (i = 0; i < x; i++)\n"
	"		s += hidden_local(i);\n"
	"	return s;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	printf(\"%d\\n\", visible_func(argc));\n"
	"	return 0;\n"
	"}\n";

static char *fixture(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void remove_fixtures(void)
{
	if (!dir || getpid() != builder)
		return;
	testutil_sh("rm -rf '%s'", dir);
	free(dir);
	dir = NULL;
}

/* NAME: -rdynamic build (visible_func in .dynsym, hidden_local only in
 * .symtab); NAME.debug its debug file; NAME.s stripped; NAME.l stripped
 * with a .gnu_debuglink to NAME.debug. */
#define DEBUG_SET(name, flags)                                                          \
	"cc -O1 -g -rdynamic " flags " -o " name " prog.c && "                         \
	"objcopy --only-keep-debug " name " " name ".debug && "                        \
	"strip -o " name ".s " name " && "                                              \
	"objcopy --add-gnu-debuglink=" name ".debug " name ".s " name ".l"

static void build_fixtures(void)
{
	FILE *f;
	char *src;

	if (dir)
		return;
	src = testutil_tmpdir("check_debugfile");
	/* Absolute: mapped paths are, and links are looked up beside them. */
	dir = realpath(src, NULL);
	if (!dir)
		abort();
	free(src);
	builder = getpid();
	atexit(remove_fixtures);
	src = fixture("prog.c");
	f = fopen(src, "w");
	if (!f)
		abort();
	fputs(prog_src, f);
	fclose(f);
	free(src);
	if (testutil_sh("cd '%s' && (" DEBUG_SET("bid", "-Wl,--build-id") " && "
			DEBUG_SET("nob", "-Wl,--build-id=none") " && "
			/* Another build: different build ID, same link name. */
			"cc -O0 -g -rdynamic -Wl,--build-id -o other prog.c && "
			"objcopy --only-keep-debug other other.debug && "
			"cc -O0 -g -rdynamic -Wl,--build-id=none -o othernob prog.c && "
			"objcopy --only-keep-debug othernob othernob.debug) >/dev/null 2>&1",
			dir)) {
		fprintf(stderr, "check_debugfile: cannot build the fixtures\n");
		abort();
	}
	/* MiniDebugInfo as Fedora makes it: the function symbols .dynsym
	 * lacks, in a debug file without DWARF, xz-compressed into the
	 * stripped binary's .gnu_debugdata. */
	have_xz = testutil_sh(
		"cd '%s' && (nm -D --format=posix --defined-only bid | awk '{print $1}' | sort > dynsyms && "
		"nm --format=posix --defined-only bid | awk '$2 ~ /^[Tt]$/ {print $1}' | sort > funcsyms && "
		"comm -13 dynsyms funcsyms > keep && "
		"objcopy -S --remove-section .gdb_index --remove-section .comment "
		"--keep-symbols=keep bid.debug mini && "
		"xz -k mini && cp bid.s mdi && "
		"objcopy --add-section .gnu_debugdata=mini.xz mdi && "
		"head -c 100 mini.xz > trunc.xz && "
		"cp bid.s mdibad && objcopy --add-section .gnu_debugdata=trunc.xz mdibad) "
		">/dev/null 2>&1", dir) == 0;
}

static bool has_sym(const struct elfsyms_image *img, const char *name)
{
	size_t i, n = symtab_count(img->symtab);

	for (i = 0; i < n; i++)
		if (strcmp(symtab_get(img->symtab, i)->name, name) == 0)
			return true;
	return false;
}

START_TEST(test_crc32)
{
	/* The CRC-32 check value, and zlib's crc32 chaining. */
	ck_assert_uint_eq(debugfile_crc32(0, "123456789", 9), 0xcbf43926u);
	ck_assert_uint_eq(debugfile_crc32(debugfile_crc32(0, "1234", 4), "56789", 5),
			  0xcbf43926u);
	ck_assert_uint_eq(debugfile_crc32(0, "", 0), 0);
}
END_TEST

/* The name and CRC objcopy wrote are read back, and the CRC is the one of
 * the debug file as computed here. */
START_TEST(test_debuglink_read)
{
	struct elfsyms_image img;
	char *bin = fixture("nob.l"), *dbg = fixture("nob.debug");
	uint32_t crc = 0;

	ck_assert_int_eq(elfsyms_load(bin, &img), 0);
	ck_assert_ptr_nonnull(img.debuglink);
	ck_assert_str_eq(img.debuglink, "nob.debug");
	ck_assert_int_eq(debugfile_file_crc32(dbg, &crc), 0);
	ck_assert_uint_eq(img.debuglink_crc, crc);
	ck_assert(img.from_dynsym);
	ck_assert(img.no_symtab);
	elfsyms_release(&img);
	/* The full binary has a .symtab: no debug file needed. */
	free(bin);
	bin = fixture("nob");
	ck_assert_int_eq(elfsyms_load(bin, &img), 0);
	ck_assert(!img.no_symtab);
	elfsyms_release(&img);
	/* A stripped binary without the section has no link. */
	free(bin);
	bin = fixture("nob.s");
	ck_assert_int_eq(elfsyms_load(bin, &img), 0);
	ck_assert_ptr_null(img.debuglink);
	elfsyms_release(&img);
	free(bin);
	free(dbg);
}
END_TEST

/* Where the link is looked for, and which files are refused. */
START_TEST(test_find_link)
{
	struct elfsyms_image img;
	char *bin = fixture("bid.l"), *bindir = fixture("bin"), *found, *want;
	const char *roots[2];

	ck_assert_int_eq(elfsyms_load(bin, &img), 0);
	ck_assert_uint_gt(img.build_id_size, 0);
	ck_assert_int_eq(testutil_sh("cd '%s' && mkdir -p bin/.debug root/usr/lib/debug%s/bin", dir,
				     dir), 0);
	roots[0] = "";
	/* Nothing there yet. */
	ck_assert_ptr_null(debugfile_find_link(roots, 1, bindir, "bid.debug", img.debuglink_crc,
					       img.build_id, img.build_id_size));
	/* Under /usr/lib/debug/DIR of another root (a --symfs). */
	ck_assert_int_eq(testutil_sh("cp '%s/bid.debug' '%s/root/usr/lib/debug%s/bin/'", dir, dir,
				     dir), 0);
	roots[1] = found = fixture("root");
	want = xasprintf("%s/root/usr/lib/debug%s/bin/bid.debug", dir, dir);
	{
		char *got = debugfile_find_link(roots, 2, bindir, "bid.debug", img.debuglink_crc,
						img.build_id, img.build_id_size);

		ck_assert_ptr_nonnull(got);
		ck_assert_str_eq(got, want);
		free(got);
	}
	free(want);
	/* DIR/.debug/ comes before /usr/lib/debug, DIR/ before both. */
	ck_assert_int_eq(testutil_sh("cp '%s/bid.debug' '%s/bin/.debug/'", dir, dir), 0);
	want = xasprintf("%s/.debug/bid.debug", bindir);
	{
		char *got = debugfile_find_link(roots, 2, bindir, "bid.debug", img.debuglink_crc,
						img.build_id, img.build_id_size);

		ck_assert_str_eq(got, want);
		free(got);
	}
	free(want);
	/* Another build's debug file under the name in DIR/: its build ID
	 * differs, so it is skipped for the next candidate. */
	ck_assert_int_eq(testutil_sh("cp '%s/other.debug' '%s/bin/bid.debug'", dir, dir), 0);
	want = xasprintf("%s/.debug/bid.debug", bindir);
	{
		char *got = debugfile_find_link(roots, 2, bindir, "bid.debug", img.debuglink_crc,
						img.build_id, img.build_id_size);

		ck_assert_str_eq(got, want);
		free(got);
	}
	free(want);
	/* The right file in DIR/ wins. */
	ck_assert_int_eq(testutil_sh("cp '%s/bid.debug' '%s/bin/bid.debug'", dir, dir), 0);
	want = xasprintf("%s/bid.debug", bindir);
	{
		char *got = debugfile_find_link(roots, 2, bindir, "bid.debug", img.debuglink_crc,
						img.build_id, img.build_id_size);

		ck_assert_str_eq(got, want);
		free(got);
	}
	free(want);
	/* A build ID mismatch rejects even with the right CRC. */
	{
		uint8_t id[ELFSYMS_BUILD_ID_MAX];

		memcpy(id, img.build_id, img.build_id_size);
		id[0] ^= 0xff;
		ck_assert_ptr_null(debugfile_find_link(roots, 2, bindir, "bid.debug",
						       img.debuglink_crc, id, img.build_id_size));
	}
	/* Names that would leave the directories are refused. */
	ck_assert_ptr_null(debugfile_find_link(roots, 2, bindir, "../bin/bid.debug",
					       img.debuglink_crc, img.build_id,
					       img.build_id_size));
	ck_assert_ptr_null(debugfile_find_link(roots, 2, bindir, "..", img.debuglink_crc,
					       img.build_id, img.build_id_size));
	ck_assert_ptr_null(debugfile_find_link(roots, 2, "relative", "bid.debug",
					       img.debuglink_crc, img.build_id,
					       img.build_id_size));
	elfsyms_release(&img);
	free(found);
	free(bin);
	free(bindir);
}
END_TEST

/* Without build IDs the CRC decides. */
START_TEST(test_find_link_crc)
{
	struct elfsyms_image img;
	char *bin = fixture("nob.l"), *cdir = fixture("crc"), *got;
	const char *roots[1] = { "" };

	ck_assert_int_eq(elfsyms_load(bin, &img), 0);
	ck_assert_uint_eq(img.build_id_size, 0);
	ck_assert_int_eq(testutil_sh("mkdir -p '%s/crc' && cp '%s/othernob.debug' '%s/crc/nob.debug'",
				     dir, dir, dir), 0);
	ck_assert_ptr_null(debugfile_find_link(roots, 1, cdir, "nob.debug", img.debuglink_crc,
					       NULL, 0));
	ck_assert_int_eq(testutil_sh("cp '%s/nob.debug' '%s/crc/nob.debug'", dir, dir), 0);
	got = debugfile_find_link(roots, 1, cdir, "nob.debug", img.debuglink_crc, NULL, 0);
	ck_assert_ptr_nonnull(got);
	free(got);
	/* One byte changed: refused. */
	ck_assert_int_eq(testutil_sh("printf x | dd of='%s/crc/nob.debug' bs=1 seek=100 conv=notrunc "
				     "2>/dev/null", dir), 0);
	ck_assert_ptr_null(debugfile_find_link(roots, 1, cdir, "nob.debug", img.debuglink_crc,
					       NULL, 0));
	elfsyms_release(&img);
	free(bin);
	free(cdir);
}
END_TEST

/* The debug file's .symtab is merged in: local functions appear, and the
 * binary's own func@plt names stay. */
START_TEST(test_merge_debug)
{
	struct elfsyms_image img;
	char *bin = fixture("bid.s"), *dbg = fixture("bid.debug");
	size_t before;

	ck_assert_int_eq(elfsyms_load(bin, &img), 0);
	ck_assert(img.from_dynsym);
	ck_assert(has_sym(&img, "visible_func"));
	ck_assert(!has_sym(&img, "hidden_local"));
	ck_assert(has_sym(&img, "printf@plt"));
	before = symtab_count(img.symtab);
	ck_assert_int_eq(elfsyms_merge_debug(&img, dbg), 0);
	ck_assert(has_sym(&img, "hidden_local"));
	ck_assert(has_sym(&img, "visible_func"));
	ck_assert(has_sym(&img, "printf@plt"));
	ck_assert_uint_gt(symtab_count(img.symtab), before);
	/* Twice: nothing new. */
	ck_assert_int_eq(elfsyms_merge_debug(&img, dbg), -ENODATA);
	/* Not an ELF file, or no .symtab. */
	ck_assert_int_lt(elfsyms_merge_debug(&img, bin), 0);
	elfsyms_release(&img);
	free(bin);
	free(dbg);
}
END_TEST

/* A process chrooted into DIR/croot (its /proc/PID/root), or -1 when
 * chroot is refused (not root). */
static pid_t chrooted_child(void)
{
	int fds[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *root = fixture("croot");

		close(fds[0]);
		c = chroot(root) == 0 && chdir("/") == 0 ? 'y' : 'n';
		if (write(fds[1], &c, 1) != 1 || c != 'y')
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1 || c != 'y') {
		close(fds[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(fds[0]);
	return pid;
}

/* Under a process's root (a container's /proc/PID/root), debug files are
 * opened inside it: an absolute symlink there names the container's file,
 * never the host's one at that path, for the .gnu_debuglink search, the
 * merge and the DWARF reader alike. */
START_TEST(test_link_in_root)
{
	struct elfsyms_image img;
	struct dwarfinfo_cache *dc;
	const struct dwarfinfo *in;
	char *bin = fixture("bid.l"), *host = fixture("bid.debug"), *got, *want, *root, *evil;
	const char *roots[1];
	uint64_t func = 0;
	size_t i;
	pid_t child;

	ck_assert_int_eq(testutil_sh("cd '%s' && rm -rf croot && mkdir -p croot/bin/.debug "
				     "croot/usr/lib/debug/bin && "
				     "ln -s '%s' croot/usr/lib/debug/bin/bid.debug", dir, host), 0);
	child = chrooted_child();
	if (child < 0) {
		fprintf(stderr, "SKIP: test_link_in_root: chroot refused (needs root)\n");
		free(bin);
		free(host);
		return;
	}
	ck_assert_int_eq(elfsyms_load(bin, &img), 0);
	root = xasprintf("/proc/%d/root", (int)child);
	evil = xasprintf("%s/usr/lib/debug/bin/bid.debug", root);
	roots[0] = root;
	/* The symlink's target is the right debug file, on the host: not
	 * taken (a plain open of evil reads it). */
	ck_assert_int_eq(access(evil, R_OK), 0);
	ck_assert_ptr_null(debugfile_find_link(roots, 1, "/bin", "bid.debug", img.debuglink_crc,
					       img.build_id, img.build_id_size));
	ck_assert_int_lt(elfsyms_merge_debug(&img, evil), 0);
	ck_assert(!has_sym(&img, "hidden_local"));
	for (i = 0; i < symtab_count(img.symtab); i++)
		if (strcmp(symtab_get(img.symtab, i)->name, "visible_func") == 0)
			func = symtab_get(img.symtab, i)->start;
	ck_assert_uint_ne(func, 0);
	dc = dwarfinfo_cache_new(0);
	ck_assert_int_lt(dwarfinfo_lookup(dc, evil, func, &in), 0);
	/* The container's own file is found, and read. */
	ck_assert_int_eq(testutil_sh("cp '%s' '%s/croot/bin/.debug/'", host, dir), 0);
	want = xasprintf("%s/bin/.debug/bid.debug", root);
	got = debugfile_find_link(roots, 1, "/bin", "bid.debug", img.debuglink_crc, img.build_id,
				  img.build_id_size);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	ck_assert_int_eq(elfsyms_merge_debug(&img, got), 0);
	ck_assert(has_sym(&img, "hidden_local"));
	ck_assert_int_eq(dwarfinfo_lookup(dc, got, func, &in), 0);
	ck_assert_ptr_nonnull(in->function);
	ck_assert_str_eq(in->function, "visible_func");
	dwarfinfo_cache_free(dc);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	elfsyms_release(&img);
	free(got);
	free(want);
	free(evil);
	free(root);
	free(bin);
	free(host);
}
END_TEST

START_TEST(test_debugdata)
{
	struct elfsyms_image img;
	char *bin;

#ifndef HAVE_LIBLZMA
	return;   /* built without liblzma: nothing to read them with */
#endif
	if (!have_xz)
		return;
	bin = fixture("mdi");
	ck_assert_int_eq(elfsyms_load(bin, &img), 0);
	ck_assert(img.from_dynsym);
	ck_assert(img.from_debugdata);
	ck_assert(has_sym(&img, "visible_func"));
	ck_assert(has_sym(&img, "hidden_local"));
	ck_assert(has_sym(&img, "main"));
	ck_assert(has_sym(&img, "printf@plt"));
	elfsyms_release(&img);
	free(bin);
	/* A truncated stream: .dynsym only, no failure. */
	bin = fixture("mdibad");
	ck_assert_int_eq(elfsyms_load(bin, &img), 0);
	ck_assert(!img.from_debugdata);
	ck_assert(has_sym(&img, "visible_func"));
	ck_assert(!has_sym(&img, "hidden_local"));
	elfsyms_release(&img);
	free(bin);
}
END_TEST

static void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = xmalloc((size_t)n + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

START_TEST(test_xz_limits)
{
	char *xzp, *rawp;
	void *in, *raw, *out = NULL;
	size_t inlen, rawlen, outlen = 0;

#ifndef HAVE_LIBLZMA
	ck_assert_int_eq(debugfile_xz_decode("", 0, 1, &out, &outlen), -ENOTSUP);
	return;
#endif
	if (!have_xz)
		return;
	xzp = fixture("mini.xz");
	rawp = fixture("mini");
	in = slurp(xzp, &inlen);
	raw = slurp(rawp, &rawlen);
	ck_assert_int_eq(debugfile_xz_decode(in, inlen, DEBUGFILE_XZ_MAX, &out, &outlen), 0);
	ck_assert_uint_eq(outlen, rawlen);
	ck_assert(memcmp(out, raw, rawlen) == 0);
	free(out);
	/* The cap holds: a bomb stops there. */
	ck_assert_int_eq(debugfile_xz_decode(in, inlen, rawlen / 2, &out, &outlen), -EFBIG);
	/* Truncated and corrupt streams. */
	ck_assert_int_eq(debugfile_xz_decode(in, inlen / 2, DEBUGFILE_XZ_MAX, &out, &outlen),
			 -EINVAL);
	((unsigned char *)in)[inlen / 2] ^= 0x55;
	ck_assert_int_lt(debugfile_xz_decode(in, inlen, DEBUGFILE_XZ_MAX, &out, &outlen), 0);
	ck_assert_int_lt(debugfile_xz_decode("not xz at all", 13, DEBUGFILE_XZ_MAX, &out, &outlen),
			 0);
	free(in);
	free(raw);
	free(xzp);
	free(rawp);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("debugfile");
	TCase *tc;

	tc = tcase_create("debuglink");
	tcase_add_unchecked_fixture(tc, build_fixtures, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_crc32);
	tcase_add_test(tc, test_debuglink_read);
	tcase_add_test(tc, test_find_link);
	tcase_add_test(tc, test_find_link_crc);
	tcase_add_test(tc, test_merge_debug);
	tcase_add_test(tc, test_link_in_root);
	suite_add_tcase(s, tc);

	tc = tcase_create("debugdata");
	tcase_add_unchecked_fixture(tc, build_fixtures, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_debugdata);
	tcase_add_test(tc, test_xz_limits);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
